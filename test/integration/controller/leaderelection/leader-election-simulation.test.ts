import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { useServer } from "../../../support/server-test-helpers.js";
import type { LinkMode } from "./leader-election-harness.js";
import { Election } from "./leader-election-harness.js";

/** A small seeded PRNG (mulberry32): the same seed replays the same simulation. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MODES: readonly LinkMode[] = ["ok", "fail", "stall", "blackhole"];
const STEPS = 1000;
/**
 * Short periods relative to the lease: followers poll often, so takeovers come close to the
 * earliest allowed instant and a leader that stepped down even slightly late would be caught.
 */
const DURATIONS = { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 500 };

describe("LeaderElector under random partitions", () => {
  const h = useServer();
  let election: Election | undefined;

  afterEach(async () => {
    await election?.stop();
  });

  it(`never lets two candidates lead at once over ${STEPS} partitions and heals`, async () => {
    const seed = Number(process.env["LEADER_ELECTION_SEED"] ?? Date.now() % 2 ** 31);
    const random = seededRandom(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const e = new Election(h.server, new FakeClock(), "default", "simulated");
    election = e;
    for (const identity of ["a", "b", "c"]) {
      e.add(identity, { ...DURATIONS, random }, Math.round((random() - 0.5) * 1e9));
    }
    const where = (step: number): string => `seed ${seed}, step ${step}`;
    for (let step = 0; step < STEPS; step++) {
      // Half the faults hit the leader, the one whose partition tests the renew deadline.
      const [leader] = e.leaders();
      const target = leader !== undefined && random() < 0.5 ? leader : pick(e.candidates);
      target.transport.mode = pick(MODES);
      // A supervisor restarts a candidate whose run ended (it lost leadership).
      for (const c of e.candidates) c.start();
      // Mostly a few retry periods, sometimes beyond a whole lease.
      await e.advance(random() < 0.9 ? random() * 1_500 : random() * 8_000);
      expect(e.violations, where(step)).toEqual([]);
      expect(e.leaders().length, where(step)).toBeLessThanOrEqual(1);
    }
    const terms = e.candidates.reduce((n, c) => n + c.terms.length, 0);
    expect(terms, `seed ${seed}: leadership changed hands`).toBeGreaterThan(20);
    // Healed, the election converges on one leader.
    for (const c of e.candidates) c.transport.mode = "ok";
    for (const c of e.candidates) c.start();
    await e.advance(20_000);
    expect(e.leaders(), `seed ${seed}`).toHaveLength(1);
    e.expectSafe();
  }, 120_000);
});
