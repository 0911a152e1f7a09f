import { afterEach, describe, expect, it } from "vitest";
import {
  LeaderElectionError,
  LeaderElector,
  LeaderHealthzAdaptor,
  type LeaderElectionRecord,
  type ObservedLeaderElectionRecord,
  type ResourceLock,
  noopLogger,
} from "kubekit";
import { FakeClock } from "kubekit/testing";

/**
 * A lock held by nobody else. `frozenVersion`: renewals succeed but answer the version of
 * the first write, so the elector sees no change (a leader whose renewals are not observed:
 * what the health check catches). Records the events asked for.
 */
class SoloLock implements ResourceLock {
  readonly events: string[] = [];
  #record: LeaderElectionRecord | undefined;
  #version = 0;

  constructor(
    readonly identity: string,
    readonly frozenVersion = false,
  ) {}

  describe(): string {
    return "default/solo";
  }
  async get(): Promise<ObservedLeaderElectionRecord | undefined> {
    return this.#record && { record: this.#record, version: String(this.#version) };
  }
  async create(record: LeaderElectionRecord): Promise<ObservedLeaderElectionRecord> {
    return this.#write(record);
  }
  async update(record: LeaderElectionRecord): Promise<ObservedLeaderElectionRecord> {
    return this.#write(record);
  }
  recordEvent(message: string): void {
    this.events.push(`${this.identity} ${message}`);
  }
  #write(record: LeaderElectionRecord): ObservedLeaderElectionRecord {
    this.#record = record;
    if (!this.frozenVersion || this.#version === 0) this.#version++;
    return { record, version: String(this.#version) };
  }
}

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

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

function elect(lock: SoloLock, clock: FakeClock, renewDeadlineMs = 10_000) {
  const stop = new AbortController();
  stops.push(stop);
  let leading = false;
  const elector = new LeaderElector({
    lock,
    clock,
    logger: noopLogger,
    random: () => 0,
    releaseOnCancel: true,
    renewDeadlineMs,
    callbacks: {
      onStartedLeading: () => {
        leading = true;
      },
      onStoppedLeading: () => undefined,
    },
  });
  const done = elector.run(stop.signal);
  return { elector, stop, done, isLeading: () => leading };
}

describe("LeaderHealthzAdaptor", () => {
  it("passes without an elector and for a leader that renews", async () => {
    const adaptor = new LeaderHealthzAdaptor(20_000);
    expect(adaptor.name).toBe("leaderElection");
    expect(() => adaptor.check()).not.toThrow();
    const clock = new FakeClock();
    const { elector, isLeading } = elect(new SoloLock("a"), clock);
    adaptor.setLeaderElector(elector);
    await advance(clock, 0);
    expect(isLeading()).toBe(true);
    await advance(clock, 120_000);
    expect(elector.isLeader()).toBe(true);
    expect(() => adaptor.check()).not.toThrow();
  });

  it("fails once a leader has not seen its lock renewed for the lease duration plus the tolerance", async () => {
    const clock = new FakeClock();
    // A renew deadline past the lease duration would be refused: the leader keeps leading
    // here because its renewals "succeed" without the elector seeing a new version.
    const { elector } = elect(new SoloLock("a", true), clock);
    const adaptor = new LeaderHealthzAdaptor(5_000);
    adaptor.setLeaderElector(elector);
    await advance(clock, 0);
    expect(elector.isLeader()).toBe(true);
    await advance(clock, 20_000); // 15 s lease + 5 s tolerance: not past it yet
    expect(() => adaptor.check()).not.toThrow();
    await advance(clock, 2_000);
    expect(elector.isLeader()).toBe(true);
    expect(() => adaptor.check()).toThrow(LeaderElectionError);
    expect(() => adaptor.check()).toThrow(
      /failed election to renew leadership on lease default\/solo/,
    );
  });

  it("refuses a negative tolerance", () => {
    expect(() => new LeaderHealthzAdaptor(-1)).toThrow(RangeError);
  });
});

describe("leader election Events", () => {
  it("records '<identity> became leader' on acquisition and '<identity> stopped leading' when leadership ends", async () => {
    const clock = new FakeClock();
    const lock = new SoloLock("replica-1");
    const { stop, done } = elect(lock, clock);
    await advance(clock, 0);
    expect(lock.events).toEqual(["replica-1 became leader"]);
    await advance(clock, 10_000); // renewals record nothing
    expect(lock.events).toEqual(["replica-1 became leader"]);
    stop.abort();
    await done;
    expect(lock.events).toEqual(["replica-1 became leader", "replica-1 stopped leading"]);
  });
});
