import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Clientset,
  EventRecorder,
  LeaderElector,
  LeaderHealthzAdaptor,
  LeaseLock,
  Manager,
  noopLogger,
} from "kubekit";
import { eventually, useServer } from "../../../support/server-test-helpers.js";

/**
 * Leader election on the embedded server (issue 21 §2): Lease labels, the leader election
 * Events on the Lease, and the health check a Manager serves on /healthz.
 */

const FAST = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 100 };

describe("leader election extras on the embedded server", () => {
  const h = useServer();
  let cs: Clientset;

  beforeAll(() => {
    cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
  });
  afterAll(async () => {
    await cs.restClient.transport.close();
  });

  it("labels the Lease and records '<identity> became leader' / 'stopped leading' Events on it", async () => {
    const recorder = new EventRecorder({ clientset: cs, component: "elector", logger: noopLogger });
    const lock = new LeaseLock(cs, "default", "labelled", "replica-a", {
      labels: { "app.kubernetes.io/name": "demo" },
      eventRecorder: recorder,
    });
    const stop = new AbortController();
    let leading!: () => void;
    const led = new Promise<void>((resolve) => (leading = resolve));
    const elector = new LeaderElector({
      lock,
      ...FAST,
      releaseOnCancel: true,
      logger: noopLogger,
      callbacks: { onStartedLeading: () => leading(), onStoppedLeading: () => undefined },
    });
    const healthz = new LeaderHealthzAdaptor(1_000);
    healthz.setLeaderElector(elector);
    const run = elector.run(stop.signal);
    await led;
    expect(() => healthz.check()).not.toThrow();
    const lease = await cs.coordinationV1.leases("default").get("labelled");
    expect(lease.metadata?.labels).toEqual({ "app.kubernetes.io/name": "demo" });
    stop.abort();
    await run;
    await recorder.shutdown();
    const released = await cs.coordinationV1.leases("default").get("labelled");
    expect(released.metadata?.labels).toEqual({ "app.kubernetes.io/name": "demo" });
    expect(released.spec?.holderIdentity ?? "").toBe("");
    const events = await cs.eventsV1.events("default").list();
    const onLease = events.items
      .filter((e) => e.regarding?.kind === "Lease" && e.regarding.name === "labelled")
      .map((e) => [e.type, e.reason, e.note]);
    expect(onLease).toEqual([
      ["Normal", "LeaderElection", "replica-a became leader"],
      ["Normal", "LeaderElection", "replica-a stopped leading"],
    ]);
  });

  it("a Manager with leader election serves the leaderElection check on /healthz, and labels its Lease", async () => {
    await cs.coreV1.namespaces().create({ metadata: { name: "le-healthz" } });
    const mgr = new Manager({
      kubeConfig: h.server.kubeConfig(),
      leaderElection: {
        namespace: "le-healthz",
        name: "lock",
        identity: "only",
        labels: { tier: "control" },
        healthzToleranceMs: 5_000,
        ...FAST,
      },
      healthPort: 0,
      registry: new Registry(),
      logger: noopLogger,
    });
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    try {
      await mgr.elected();
      const res = await eventually("the health port", async () =>
        mgr.healthPort !== undefined
          ? fetch(`http://127.0.0.1:${mgr.healthPort}/healthz?verbose`)
          : undefined,
      );
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("[+]leaderElection ok");
      const lease = await cs.coordinationV1.leases("le-healthz").get("lock");
      expect(lease.metadata?.labels).toEqual({ tier: "control" });
    } finally {
      stop.abort();
      await run.catch(() => undefined);
    }
  });
});
