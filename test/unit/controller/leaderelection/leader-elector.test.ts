import { describe, expect, it } from "vitest";
import {
  LeaderElectionError,
  type LeaderElectorOptions,
  LeaderElector,
  type LeaderElectionRecord,
  type ObservedLeaderElectionRecord,
  type ResourceLock,
  noopLogger,
  newAlreadyExists,
  newConflict,
  newServiceUnavailable,
} from "kubekit";
import { formatMicroTime } from "../../../../packages/kubekit/src/core/wire-time.js";
import { FakeClock } from "kubekit/testing";

const LEASES = { group: "coordination.k8s.io", resource: "leases" };

/** One lock object in memory, with a version bumped on every write. */
class MemoryLockStore {
  current: { record: LeaderElectionRecord; version: number } | undefined;
  readonly writes: LeaderElectionRecord[] = [];
  #version = 0;

  write(record: LeaderElectionRecord): ObservedLeaderElectionRecord {
    this.current = { record, version: ++this.#version };
    this.writes.push(record);
    return { record, version: String(this.#version) };
  }
}

/** One candidate's view of a {@link MemoryLockStore}; `mode` fails or stalls its calls. */
class MemoryLock implements ResourceLock {
  /**
   * `lose-answer`: writes are applied, then the call stalls until aborted (the answer is lost,
   * so the lock does not learn the new version, as a LeaseLock remembers only answers).
   */
  mode: "ok" | "fail" | "stall" | "lose-answer" = "ok";
  #seen: number | undefined;

  constructor(
    readonly store: MemoryLockStore,
    readonly identity: string,
  ) {}

  describe(): string {
    return "default/lock";
  }

  async get(signal?: AbortSignal): Promise<ObservedLeaderElectionRecord | undefined> {
    await this.#gate(signal);
    const current = this.store.current;
    if (current === undefined) return undefined;
    this.#seen = current.version;
    return { record: current.record, version: String(current.version) };
  }

  async create(
    record: LeaderElectionRecord,
    signal?: AbortSignal,
  ): Promise<ObservedLeaderElectionRecord> {
    await this.#gate(signal);
    if (this.store.current !== undefined) throw newAlreadyExists(LEASES, "lock");
    return this.#answer(this.store.write(record), signal);
  }

  async update(
    record: LeaderElectionRecord,
    signal?: AbortSignal,
  ): Promise<ObservedLeaderElectionRecord> {
    await this.#gate(signal);
    if (this.store.current?.version !== this.#seen) {
      throw newConflict(LEASES, "lock", "the object has been modified");
    }
    return this.#answer(this.store.write(record), signal);
  }

  /** The answer of an applied write, or (in `lose-answer` mode) a stall until `signal` aborts. */
  #answer(
    observed: ObservedLeaderElectionRecord,
    signal: AbortSignal | undefined,
  ): ObservedLeaderElectionRecord | Promise<never> {
    if (this.mode !== "lose-answer") return this.#wrote(observed);
    return new Promise<never>((_, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  }

  #wrote(observed: ObservedLeaderElectionRecord): ObservedLeaderElectionRecord {
    this.#seen = Number(observed.version);
    return observed;
  }

  async #gate(signal: AbortSignal | undefined): Promise<void> {
    if (this.mode === "fail") throw newServiceUnavailable("unavailable");
    if (this.mode === "lose-answer") return;
    if (this.mode === "stall") {
      await new Promise<never>((_, reject) => {
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
    await Promise.resolve();
  }
}

/** Lets every promise chain started by fired timers run to its next wait. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Advances `clock` by `ms`, timer by timer, settling after each. */
async function advance(clock: FakeClock, ms: number): Promise<void> {
  const target = clock.now() + ms;
  await settle();
  for (;;) {
    const next = clock.nextTimerAt();
    if (next === undefined || next > target) break;
    clock.advance(next - clock.now());
    await settle();
  }
  clock.advance(target - clock.now());
  await settle();
}

interface Candidate {
  readonly lock: MemoryLock;
  readonly elector: LeaderElector;
  readonly events: string[];
  readonly abort: AbortController;
  readonly done: Promise<void>;
  /** The signal of the last onStartedLeading call. */
  leadingSignal: AbortSignal | undefined;
}

function candidate(
  store: MemoryLockStore,
  identity: string,
  clock: FakeClock,
  options: Partial<LeaderElectorOptions> = {},
): Candidate {
  const lock = new MemoryLock(store, identity);
  const events: string[] = [];
  const c = { lock, events, abort: new AbortController() } as Omit<Candidate, "elector" | "done"> &
    Partial<Candidate>;
  const elector = new LeaderElector({
    lock,
    clock,
    logger: noopLogger,
    random: () => 0,
    ...options,
    callbacks: {
      onStartedLeading: (signal) => {
        c.leadingSignal = signal;
        events.push(`started@${clock.now()}`);
        signal.addEventListener("abort", () => events.push(`aborted@${clock.now()}`));
      },
      onStoppedLeading: () => events.push(`stopped@${clock.now()}`),
      onNewLeader: (id) => events.push(`leader:${id}`),
    },
  });
  return Object.assign(c, { elector, done: elector.run(c.abort.signal) }) as Candidate;
}

const T0 = Date.UTC(2026, 0, 1);

describe("formatMicroTime", () => {
  it("formats a record time with six fractional digits", () => {
    expect(formatMicroTime(Date.UTC(2026, 0, 1, 0, 0, 2, 500))).toBe("2026-01-01T00:00:02.500000Z");
  });
});

describe("LeaderElector options", () => {
  const lock = new MemoryLock(new MemoryLockStore(), "a");
  const callbacks = { onStartedLeading: () => undefined, onStoppedLeading: () => undefined };
  const invalid = (options: Partial<LeaderElectorOptions>, field: string): void => {
    let error: unknown;
    try {
      new LeaderElector({ lock, callbacks, ...options });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(LeaderElectionError);
    expect(error).toMatchObject({ reason: "InvalidConfig", field, lock: "default/lock" });
  };

  it("accepts client-go's defaults (15 s / 10 s / 2 s)", () => {
    expect(() => new LeaderElector({ lock, callbacks })).not.toThrow();
  });

  it("requires leaseDuration > renewDeadline > 1.2 × retryPeriod, all > 0", () => {
    invalid({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }, "leaseDurationMs");
    invalid({ renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }, "renewDeadlineMs");
    expect(
      () => new LeaderElector({ lock, callbacks, renewDeadlineMs: 2_401, retryPeriodMs: 2_000 }),
    ).not.toThrow();
    invalid({ retryPeriodMs: 0 }, "retryPeriodMs");
    invalid({ leaseDurationMs: -1 }, "leaseDurationMs");
    invalid({ renewDeadlineMs: Number.NaN }, "renewDeadlineMs");
    invalid({ lock: new MemoryLock(new MemoryLockStore(), "") }, "identity");
  });
});

describe("LeaderElector", () => {
  it("creates a missing lock and leads at once, renewing every retry period", async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryLockStore();
    const a = candidate(store, "a", clock);
    await settle();
    expect(a.elector.isLeader()).toBe(true);
    expect(a.elector.leader()).toBe("a");
    expect(a.events).toEqual(["leader:a", `started@${T0}`]);
    expect(store.current?.record).toEqual({
      holderIdentity: "a",
      leaseDurationSeconds: 15,
      acquireTime: "2026-01-01T00:00:00.000000Z",
      renewTime: "2026-01-01T00:00:00.000000Z",
      leaderTransitions: 0,
    });
    await advance(clock, 6_000);
    expect(store.writes.map((r) => r.renewTime)).toEqual([
      "2026-01-01T00:00:00.000000Z",
      "2026-01-01T00:00:02.000000Z",
      "2026-01-01T00:00:04.000000Z",
      "2026-01-01T00:00:06.000000Z",
    ]);
    expect(store.current?.record.acquireTime).toBe("2026-01-01T00:00:00.000000Z");
    a.abort.abort();
    await a.done;
  });

  it("takes a held lock over only after it stayed unchanged for the lease duration on the local clock, whatever its times say", async () => {
    for (const remoteTime of ["2099-01-01T00:00:00.000000Z", "2001-01-01T00:00:00.000000Z"]) {
      const clock = new FakeClock(T0);
      const store = new MemoryLockStore();
      store.write({
        holderIdentity: "old",
        leaseDurationSeconds: 20,
        acquireTime: remoteTime,
        renewTime: remoteTime,
        leaderTransitions: 4,
      });
      const b = candidate(store, "b", clock);
      await advance(clock, 19_999);
      expect(b.elector.isLeader()).toBe(false);
      expect(b.elector.leader()).toBe("old");
      await advance(clock, 2_001);
      expect(b.elector.isLeader()).toBe(true);
      expect(b.events).toEqual(["leader:old", "leader:b", `started@${T0 + 20_000}`]);
      expect(store.current?.record).toMatchObject({ holderIdentity: "b", leaderTransitions: 5 });
      b.abort.abort();
      await b.done;
    }
  });

  it("never takes over a lock whose holder keeps renewing it", async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryLockStore();
    const a = candidate(store, "a", clock);
    await settle();
    const b = candidate(store, "b", clock);
    const c = candidate(store, "c", clock);
    await advance(clock, 120_000);
    expect([a, b, c].map((x) => x.elector.isLeader())).toEqual([true, false, false]);
    expect([b, c].map((x) => x.elector.leader())).toEqual(["a", "a"]);
    for (const x of [a, b, c]) x.abort.abort();
    await Promise.all([a.done, b.done, c.done]);
  });

  it("lets exactly one of several candidates racing for a missing lock lead", async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryLockStore();
    const all = ["a", "b", "c"].map((id) => candidate(store, id, clock));
    await advance(clock, 10_000);
    expect(all.filter((x) => x.elector.isLeader())).toHaveLength(1);
    for (const x of all) x.abort.abort();
    await Promise.all(all.map((x) => x.done));
  });

  for (const mode of ["fail", "stall"] as const) {
    it(`a leader whose writes ${mode} stops renewDeadline after its last successful write was sent, before anyone can take over`, async () => {
      const clock = new FakeClock(T0);
      const store = new MemoryLockStore();
      const a = candidate(store, "a", clock);
      await settle();
      const b = candidate(store, "b", clock);
      await advance(clock, 4_000); // a renewed at T0 + 2 s and T0 + 4 s
      a.lock.mode = mode;
      await advance(clock, 30_000);
      expect(a.events).toEqual([
        "leader:a",
        `started@${T0}`,
        `aborted@${T0 + 14_000}`,
        `stopped@${T0 + 14_000}`,
      ]);
      expect(a.leadingSignal?.reason).toMatchObject({ reason: "LeadershipLost" });
      await a.done;
      // b saw a's last renewal at T0 + 4 s and waits 15 s from then.
      expect(b.events).toContain(`started@${T0 + 4_000 + 16_000}`);
      b.abort.abort();
      await b.done;
    });
  }

  it("a leader that sees another holder in the lock steps down at once", async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryLockStore();
    const a = candidate(store, "a", clock);
    await settle();
    store.write({ holderIdentity: "intruder", leaseDurationSeconds: 15, leaderTransitions: 1 });
    await advance(clock, 2_000);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events).toEqual([
      "leader:a",
      `started@${T0}`,
      "leader:intruder",
      `aborted@${T0 + 2_000}`,
      `stopped@${T0 + 2_000}`,
    ]);
    await a.done;
  });

  it("run() resolves after an abort with no timer left, while acquiring, leading or stalled", async () => {
    for (const phase of ["acquiring", "leading", "stalled"] as const) {
      const clock = new FakeClock(T0);
      const store = new MemoryLockStore();
      if (phase === "acquiring") {
        store.write({ holderIdentity: "other", leaseDurationSeconds: 15, leaderTransitions: 0 });
      }
      const a = candidate(store, "a", clock);
      await advance(clock, 3_000);
      if (phase === "stalled") {
        a.lock.mode = "stall";
        await advance(clock, 1_000); // the renewal at T0 + 4 s now hangs
      }
      expect(clock.pendingTimers()).toBeGreaterThan(0);
      a.abort.abort();
      await a.done;
      expect(clock.pendingTimers()).toBe(0);
      expect(a.elector.isLeader()).toBe(false);
      expect(a.events.filter((e) => e.startsWith("stopped"))).toHaveLength(1);
    }
  });

  it("releaseOnCancel waits for the work, then writes a released lock a successor takes at its next retry", async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryLockStore();
    let finishWork: () => void = () => undefined;
    const a = new AbortController();
    const elector = new LeaderElector({
      lock: new MemoryLock(store, "a"),
      clock,
      logger: noopLogger,
      releaseOnCancel: true,
      callbacks: {
        onStartedLeading: (signal) =>
          new Promise<void>((resolve) => {
            finishWork = resolve;
            expect(signal.aborted).toBe(false);
          }),
        onStoppedLeading: () => undefined,
      },
    });
    const done = elector.run(a.signal);
    await settle();
    const b = candidate(store, "b", clock);
    await advance(clock, 1_000);
    a.abort();
    await advance(clock, 500);
    expect(elector.isLeader()).toBe(false);
    expect(store.current?.record.holderIdentity).toBe("a"); // work still draining
    finishWork();
    await done;
    expect(store.current?.record).toMatchObject({
      holderIdentity: "",
      leaseDurationSeconds: 1,
      leaderTransitions: 0,
    });
    await advance(clock, 2_000);
    expect(b.elector.isLeader()).toBe(true);
    expect(store.current?.record).toMatchObject({ holderIdentity: "b", leaderTransitions: 1 });
    b.abort.abort();
    await b.done;
  });

  it("releaseOnCancel releases a lock that a cancelled acquiring write took without an answer", async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryLockStore();
    const a = candidate(store, "a", clock, { releaseOnCancel: true });
    a.lock.mode = "lose-answer";
    await settle();
    // The create was applied: "a" holds the lock, but never heard back and never led.
    expect(store.current?.record.holderIdentity).toBe("a");
    expect(a.elector.isLeader()).toBe(false);
    a.lock.mode = "ok";
    a.abort.abort();
    await a.done;
    expect(a.events).not.toContain(`started@${T0}`);
    expect(store.current?.record).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
    expect(clock.pendingTimers()).toBe(0);
  });

  it("releaseOnCancel re-reads the lock and releases it after a renewal whose answer the cancel cut off", async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryLockStore();
    const a = candidate(store, "a", clock, { releaseOnCancel: true });
    await settle();
    a.lock.mode = "lose-answer";
    await advance(clock, 2_000); // the renewal is applied; its answer never comes
    expect(store.writes).toHaveLength(2);
    a.lock.mode = "ok";
    a.abort.abort();
    await a.done;
    // client-go's tryRelease: the release is written over the version read, not the one last
    // seen (which the in-flight renewal made stale), so it does not fail with a 409.
    expect(store.current?.record).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
    expect(clock.pendingTimers()).toBe(0);
  });

  it("releaseOnCancel retries the release after a 409 Conflict", async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryLockStore();
    const a = candidate(store, "a", clock, { releaseOnCancel: true });
    await settle();
    // Someone writes the lock (same holder) between the release's read and its write, once.
    const get = a.lock.get.bind(a.lock);
    let raced = false;
    a.lock.get = async (signal) => {
      const observed = await get(signal);
      if (a.abort.signal.aborted && !raced && store.current !== undefined) {
        raced = true;
        store.write({ ...store.current.record });
      }
      return observed;
    };
    a.abort.abort();
    await a.done;
    expect(raced).toBe(true);
    expect(store.current?.record).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
  });

  it("reports the empty identity to onNewLeader after a release, as client-go", async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryLockStore();
    const a = candidate(store, "a", clock, { releaseOnCancel: true });
    await settle();
    a.abort.abort();
    await a.done;
    expect(a.events).toEqual([
      "leader:a",
      `started@${T0}`,
      `aborted@${T0}`,
      "leader:",
      `stopped@${T0}`,
    ]);
  });

  it("does not report an unheld lock seen before any holder", async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryLockStore();
    store.write({ holderIdentity: "", leaseDurationSeconds: 1, leaderTransitions: 0 });
    const a = candidate(store, "a", clock);
    await settle();
    expect(a.events).toEqual(["leader:a", `started@${T0}`]);
    a.abort.abort();
    await a.done;
  });

  it("releaseOnCancel does not release when the work outlives the renew deadline", async () => {
    const clock = new FakeClock(T0);
    const store = new MemoryLockStore();
    const warnings: string[] = [];
    const abort = new AbortController();
    const elector = new LeaderElector({
      lock: new MemoryLock(store, "a"),
      clock,
      logger: { ...noopLogger, warn: (message) => warnings.push(message) },
      releaseOnCancel: true,
      callbacks: {
        onStartedLeading: () => new Promise<void>(() => undefined),
        onStoppedLeading: () => undefined,
      },
    });
    const done = elector.run(abort.signal);
    await advance(clock, 3_000); // renewed at T0 + 2 s: deadline T0 + 12 s
    abort.abort();
    await advance(clock, 8_999);
    expect(clock.pendingTimers()).toBe(1);
    await advance(clock, 1);
    await done;
    expect(clock.pendingTimers()).toBe(0);
    expect(store.current?.record.holderIdentity).toBe("a");
    expect(warnings).toEqual([
      "lease not released: the renew deadline passed, or another holder wrote it",
    ]);
  });

  it("rejects a second concurrent run() and survives throwing callbacks", async () => {
    const clock = new FakeClock(T0);
    const errors: string[] = [];
    const elector = new LeaderElector({
      lock: new MemoryLock(new MemoryLockStore(), "a"),
      clock,
      logger: { ...noopLogger, error: (message) => errors.push(message) },
      callbacks: {
        onStartedLeading: () => {
          throw new Error("boom");
        },
        onStoppedLeading: () => {
          throw new Error("boom");
        },
        onNewLeader: () => {
          throw new Error("boom");
        },
      },
    });
    const abort = new AbortController();
    const done = elector.run(abort.signal);
    await expect(elector.run(abort.signal)).rejects.toMatchObject({ reason: "AlreadyRunning" });
    await settle();
    expect(elector.isLeader()).toBe(true);
    abort.abort();
    await done;
    expect(errors).toEqual([
      "onNewLeader failed",
      "onStartedLeading failed",
      "onStoppedLeading failed",
    ]);
  });
});
