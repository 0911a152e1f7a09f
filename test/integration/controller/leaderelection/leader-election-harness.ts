/**
 * What the leader election integration tests share: candidates on the embedded server, each
 * with its own connection (a transport that can fail, stall or black-hole its requests),
 * its own clock (a shared FakeClock seen with an offset), and a monitor of who believes it
 * leads, checked at every start of leadership.
 */
import { Readable } from "node:stream";
import { expect } from "vitest";
import {
  Clientset,
  type LeaderElectorOptions,
  LeaderElector,
  LeaseLock,
  type LeaderElectionRecord,
  type ObservedLeaderElectionRecord,
  type ResourceLock,
  noopLogger,
  type TransportRequest,
  type TransportResponse,
  Transport,
} from "kubekit";
import type { Clock, FakeClock } from "../../../../packages/kubekit/src/core/clock.js";
import type { ApiServer } from "@kubekit/apiserver";

/**
 * How a candidate's connection to the API server behaves: `ok`; `fail`, every request answered
 * 503 by the client side; `stall`, requests never sent and never answered (until aborted);
 * `blackhole`, requests sent and applied by the server but the answers lost.
 */
export type LinkMode = "ok" | "fail" | "stall" | "blackhole";

/** A transport whose requests obey {@link LinkMode}; counts the requests it holds. */
export class FaultyTransport extends Transport {
  mode: LinkMode = "ok";
  /** Requests held (stalled or black-holed) until their signal aborts. */
  held = 0;

  override async send(req: TransportRequest): Promise<TransportResponse> {
    const mode = this.mode;
    if (mode === "fail") {
      const status = {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "injected: the API server is unavailable",
        reason: "ServiceUnavailable",
        code: 503,
      };
      return {
        statusCode: 503,
        headers: { "content-type": "application/json" },
        body: Readable.from([Buffer.from(JSON.stringify(status))]),
      };
    }
    if (mode === "blackhole") {
      const response = await super.send(req);
      response.body.on("error", () => undefined).resume(); // the answer is read and lost
    } else if (mode === "ok") {
      return super.send(req);
    }
    this.held++;
    try {
      return await new Promise<never>((_, reject) => {
        const signal = req.signal;
        if (signal === undefined) return;
        if (signal.aborted) reject(signal.reason);
        else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    } finally {
      this.held--;
    }
  }
}

/** A lock counting the calls in progress, so tests know when a candidate is idle. */
export class CountingLock implements ResourceLock {
  inFlight = 0;

  constructor(readonly inner: ResourceLock) {}

  get identity(): string {
    return this.inner.identity;
  }

  describe(): string {
    return this.inner.describe();
  }

  get(signal?: AbortSignal): Promise<ObservedLeaderElectionRecord | undefined> {
    return this.#count(this.inner.get(signal));
  }

  create(
    record: LeaderElectionRecord,
    signal?: AbortSignal,
  ): Promise<ObservedLeaderElectionRecord> {
    return this.#count(this.inner.create(record, signal));
  }

  update(
    record: LeaderElectionRecord,
    signal?: AbortSignal,
  ): Promise<ObservedLeaderElectionRecord> {
    return this.#count(this.inner.update(record, signal));
  }

  async #count<T>(call: Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await call;
    } finally {
      this.inFlight--;
    }
  }
}

/** A clock reading `offsetMs` more than `base`, with the same timers (same rate). */
export function offsetClock(base: FakeClock, offsetMs: number): Clock {
  return {
    now: () => base.now() + offsetMs,
    setTimer: (ms, callback) => base.setTimer(ms, callback),
    sleep: (ms, signal) => base.sleep(ms, signal),
  };
}

/** One candidate: its elector, link and leadership history (times on the shared clock). */
export interface Candidate {
  readonly identity: string;
  readonly elector: LeaderElector;
  readonly transport: FaultyTransport;
  readonly lock: CountingLock;
  /** [start, end) of each leadership; `end` undefined while leading. */
  readonly terms: { start: number; end: number | undefined }[];
  /** The abort controller of the current run. */
  abort: AbortController;
  /** The current run, or undefined once it ended (leadership lost or aborted). */
  running: Promise<void> | undefined;
  /** Starts (again) a run when none is in progress. */
  start(): void;
}

/** Candidates competing for one Lease on a server, on one FakeClock. */
export class Election {
  readonly candidates: Candidate[] = [];
  /** Every time a candidate started leading while another still believed it led. */
  readonly violations: string[] = [];

  constructor(
    readonly server: ApiServer,
    readonly clock: FakeClock,
    readonly namespace: string,
    readonly leaseName: string,
  ) {}

  /** Adds a candidate (not started); `offsetMs` skews its clock. */
  add(
    identity: string,
    options: Partial<Omit<LeaderElectorOptions, "lock" | "callbacks">> = {},
    offsetMs = 0,
  ): Candidate {
    const config = { ...this.server.kubeConfig().restConfig(), qps: -1 };
    const transport = new FaultyTransport(config);
    const clientset = new Clientset(config, { transport, logger: noopLogger });
    const lock = new CountingLock(
      new LeaseLock(clientset, this.namespace, this.leaseName, identity),
    );
    const terms: Candidate["terms"] = [];
    const clock = this.clock;
    const elector = new LeaderElector({
      lock,
      clock: offsetClock(clock, offsetMs),
      logger: noopLogger,
      ...options,
      callbacks: {
        onStartedLeading: (signal) => {
          const now = clock.now();
          for (const other of this.candidates) {
            if (other.identity === identity) continue;
            if (other.elector.isLeader()) {
              this.violations.push(
                `${identity} started leading at ${now} while ${other.identity} led`,
              );
            }
            const last = other.terms.at(-1);
            if (last !== undefined && (last.end === undefined || last.end >= now)) {
              this.violations.push(
                `${identity} started leading at ${now}, ${other.identity}'s term ended at ${last.end}`,
              );
            }
          }
          const term = { start: now, end: undefined as number | undefined };
          terms.push(term);
          signal.addEventListener("abort", () => (term.end = clock.now()), { once: true });
        },
        onStoppedLeading: () => undefined,
      },
    });
    const candidate: Candidate = {
      identity,
      elector,
      transport,
      lock,
      terms,
      abort: new AbortController(),
      running: undefined,
      start: () => {
        if (candidate.running !== undefined) return;
        candidate.abort = new AbortController();
        const run = elector.run(candidate.abort.signal).finally(() => {
          if (candidate.running === run) candidate.running = undefined;
        });
        candidate.running = run;
      },
    };
    this.candidates.push(candidate);
    return candidate;
  }

  /** The candidates believing they lead now. */
  leaders(): Candidate[] {
    return this.candidates.filter((c) => c.elector.isLeader());
  }

  /**
   * Resolves once every candidate waits on its clock (no lock call in progress other than
   * held ones), seen on two rounds of the event loop in a row.
   */
  async quiesce(): Promise<void> {
    const deadline = Date.now() + 10_000;
    let idleRounds = 0;
    while (idleRounds < 2) {
      await new Promise((resolve) => setImmediate(resolve));
      const idle = this.candidates.every((c) => c.lock.inFlight === c.transport.held);
      idleRounds = idle ? idleRounds + 1 : 0;
      if (!idle) {
        if (Date.now() > deadline) throw new Error("candidates did not become idle");
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
  }

  /** Advances the clock by `ms`, timer by timer, letting the candidates act after each. */
  async advance(ms: number): Promise<void> {
    const target = this.clock.now() + ms;
    await this.quiesce();
    for (;;) {
      const next = this.clock.nextTimerAt();
      if (next === undefined || next > target) break;
      this.clock.advance(next - this.clock.now());
      await this.quiesce();
    }
    this.clock.advance(target - this.clock.now());
    await this.quiesce();
  }

  /** Asserts that no two candidates ever led at once, and at most one leads now. */
  expectSafe(): void {
    expect(this.violations).toEqual([]);
    expect(this.leaders().length).toBeLessThanOrEqual(1);
  }

  /** Aborts every run, waits for them, and closes the connections. */
  async stop(): Promise<void> {
    for (const c of this.candidates) c.abort.abort();
    await Promise.all(this.candidates.map((c) => c.running));
    for (const c of this.candidates) await c.transport.close();
  }
}
