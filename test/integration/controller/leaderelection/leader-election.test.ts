import { afterEach, describe, expect, it } from "vitest";
import { Clientset } from "kubekit";
import { FakeClock } from "kubekit/testing";
import { useServer } from "../../../support/server-test-helpers.js";
import type { Candidate, LinkMode } from "./leader-election-harness.js";
import { Election } from "./leader-election-harness.js";

const HOUR = 3_600_000;

describe("LeaderElector with three candidates on the embedded server", () => {
  const h = useServer();
  let election: Election | undefined;
  let leaseCount = 0;

  afterEach(async () => {
    await election?.stop();
    election = undefined;
  });

  /** Three started candidates a, b, c whose clocks disagree by hours. */
  async function threeCandidates(
    options: Parameters<Election["add"]>[1] = {},
  ): Promise<{ e: Election; leader: Candidate; lease: string }> {
    const lease = `lease-${leaseCount++}`;
    const e = new Election(h.server, new FakeClock(), "default", lease);
    election = e;
    e.add("a", options, 0);
    e.add("b", options, 5 * HOUR);
    e.add("c", options, -26 * HOUR);
    for (const c of e.candidates) c.start();
    await e.advance(0);
    const leaders = e.leaders();
    expect(leaders).toHaveLength(1);
    return { e, leader: leaders[0] as Candidate, lease };
  }

  async function leaseOf(name: string): Promise<Record<string, unknown>> {
    const cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
    try {
      const lease = await cs.coordinationV1.leases("default").get(name);
      return { ...lease.spec };
    } finally {
      await cs.restClient.transport.close();
    }
  }

  it("exactly one leads, keeps leading while it renews, and the others see it as leader", async () => {
    const { e, leader, lease } = await threeCandidates();
    await e.advance(120_000);
    expect(e.leaders()).toEqual([leader]);
    expect(e.candidates.map((c) => c.elector.leader())).toEqual([
      leader.identity,
      leader.identity,
      leader.identity,
    ]);
    expect(leader.terms).toHaveLength(1);
    const spec = await leaseOf(lease);
    expect(spec).toMatchObject({
      holderIdentity: leader.identity,
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
    });
    expect(spec["renewTime"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    e.expectSafe();
  });

  for (const mode of ["fail", "stall", "blackhole"] satisfies LinkMode[]) {
    it(`a leader whose requests ${mode} stops leading before another acquires`, async () => {
      const { e, leader, lease } = await threeCandidates();
      await e.advance(5_000);
      const cutAt = e.clock.now();
      leader.transport.mode = mode;
      await e.advance(40_000);
      const [successor] = e.leaders();
      expect(successor).toBeDefined();
      expect(successor).not.toBe(leader);
      const lost = leader.terms[0]?.end;
      // It renewed last at the retry tick before the cut, and stopped renewDeadline later.
      expect(lost).toBeGreaterThan(cutAt);
      expect(lost).toBeLessThanOrEqual(cutAt + 10_000);
      expect(successor?.terms[0]?.start).toBeGreaterThanOrEqual(cutAt - 2_000 + 15_000);
      expect(leader.running).toBeUndefined();
      expect(await leaseOf(lease)).toMatchObject({
        holderIdentity: successor?.identity,
        leaseTransitions: 1,
      });
      e.expectSafe();
    });
  }

  it("a server answering 503 to everyone makes the leader step down and nobody lead until it heals", async () => {
    const { e, leader } = await threeCandidates();
    await e.advance(3_000);
    const cutAt = e.clock.now();
    h.server.faults.failNext(1_000_000, { code: 503 });
    await e.advance(60_000);
    expect(e.leaders()).toEqual([]);
    expect(leader.terms[0]?.end).toBeLessThanOrEqual(cutAt + 10_000);
    expect(e.candidates.flatMap((c) => c.terms)).toHaveLength(1);
    h.server.faults.clear();
    for (const c of e.candidates) c.start();
    await e.advance(20_000);
    expect(e.leaders()).toHaveLength(1);
    e.expectSafe();
  });

  it("releaseOnCancel hands the lease over within one retry period", async () => {
    const { e, leader, lease } = await threeCandidates({
      releaseOnCancel: true,
      random: () => 0,
    });
    await e.advance(7_000);
    const releasedAt = e.clock.now();
    leader.abort.abort();
    await leader.running;
    expect(await leaseOf(lease)).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
    await e.advance(2_000);
    const [successor] = e.leaders();
    expect(successor).toBeDefined();
    expect(successor?.terms[0]?.start).toBeLessThanOrEqual(releasedAt + 2_000);
    expect(await leaseOf(lease)).toMatchObject({
      holderIdentity: successor?.identity,
      leaseTransitions: 1,
    });
    e.expectSafe();
  });

  it("run() resolves after abort with no timer and no request left, even with a stalled link", async () => {
    const { e, leader } = await threeCandidates();
    const follower = e.candidates.find((c) => c !== leader) as Candidate;
    follower.transport.mode = "stall";
    leader.transport.mode = "blackhole";
    await e.advance(3_000);
    expect(follower.transport.held + leader.transport.held).toBeGreaterThan(0);
    for (const c of e.candidates) c.abort.abort();
    await Promise.all(e.candidates.map((c) => c.running));
    expect(e.clock.pendingTimers()).toBe(0);
    for (const c of e.candidates) {
      expect(c.transport.held).toBe(0);
      expect(c.lock.inFlight).toBe(0);
      expect(c.elector.isLeader()).toBe(false);
    }
  });
});
