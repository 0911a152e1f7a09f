import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Clientset,
  LeaseLock,
  type LeaderElectionRecord,
  isAlreadyExists,
  isConflict,
} from "kubekit";
import { useServer } from "../../../support/server-test-helpers.js";

const record = (holderIdentity: string, leaderTransitions = 0): LeaderElectionRecord => ({
  holderIdentity,
  leaseDurationSeconds: 15,
  acquireTime: "2026-01-01T00:00:00.000000Z",
  renewTime: "2026-01-01T00:00:02.500000Z",
  leaderTransitions,
});

describe("LeaseLock", () => {
  const h = useServer();
  let cs: Clientset;

  beforeAll(() => {
    cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
  });
  afterAll(async () => {
    await cs.restClient.transport.close();
  });

  it("requires a namespace and a name", () => {
    expect(() => new LeaseLock(cs, "", "x", "a")).toThrow(
      expect.objectContaining({ reason: "InvalidConfig", field: "namespace" }),
    );
    expect(() => new LeaseLock(cs, "default", "", "a")).toThrow(
      expect.objectContaining({ reason: "InvalidConfig", field: "name" }),
    );
  });

  it("reads a missing Lease as undefined, creates it, and maps the record to the Lease spec", async () => {
    const lock = new LeaseLock(cs, "default", "lock-a", "a");
    expect(lock.describe()).toBe("default/lock-a");
    expect(await lock.get()).toBeUndefined();
    const created = await lock.create(record("a"));
    expect(created.record).toEqual(record("a"));
    const lease = await cs.coordinationV1.leases("default").get("lock-a");
    expect(lease.spec).toEqual({
      holderIdentity: "a",
      leaseDurationSeconds: 15,
      acquireTime: "2026-01-01T00:00:00.000000Z",
      renewTime: "2026-01-01T00:00:02.500000Z",
      leaseTransitions: 0,
    });
    expect(created.version).toBe(lease.metadata?.resourceVersion);
    await expect(new LeaseLock(cs, "default", "lock-a", "b").create(record("b"))).rejects.toSatisfy(
      isAlreadyExists,
    );
  });

  it("updates only over the version it last saw (409 otherwise), keeping the Lease's other fields", async () => {
    const a = new LeaseLock(cs, "default", "lock-b", "a");
    const b = new LeaseLock(cs, "default", "lock-b", "b");
    await expect(a.update(record("a"))).rejects.toThrow(/update before the Lease was read/);
    await a.create(record("a"));
    const leases = cs.coordinationV1.leases("default");
    const labelled = await leases.get("lock-b");
    await leases.update({ ...labelled, metadata: { ...labelled.metadata, labels: { app: "x" } } });
    await expect(a.update(record("a"))).rejects.toSatisfy(isConflict);
    const seen = await b.get();
    expect(seen?.record.holderIdentity).toBe("a");
    const written = await b.update(record("b", 1));
    expect(written.version).not.toBe(seen?.version);
    expect(written.record).toEqual(record("b", 1));
    await expect(a.update(record("a", 2))).rejects.toSatisfy(isConflict);
    const lease = await leases.get("lock-b");
    expect(lease.metadata?.labels).toEqual({ app: "x" });
    expect(lease.spec).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 });
  });

  it("writes a released record (empty holder) as an empty holderIdentity", async () => {
    const lock = new LeaseLock(cs, "default", "lock-c", "a");
    await lock.create(record("a"));
    const released = await lock.update({ ...record(""), leaseDurationSeconds: 1 });
    expect(released.record.holderIdentity).toBe("");
    const lease = await cs.coordinationV1.leases("default").get("lock-c");
    expect(lease.spec).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
  });
});
