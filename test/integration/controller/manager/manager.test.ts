import type { ConfigMap, Secret } from "kubernetes-types/core/v1.js";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Clientset,
  Controller,
  Manager,
  type ManagerOptions,
  SharedInformerFactory,
} from "kubekit";
import { eventually, useServer, waitFor } from "../../../support/server-test-helpers.js";
import { MemoryLogger } from "../controller-harness.js";
import { parseExposition } from "./exposition-parser.js";
import type { MetricFamily } from "./exposition-parser.js";

/**
 * The Manager against the embedded server: replicas competing for a Lease, controllers that
 * run only on the leader, the graceful stop, `/metrics`, `/healthz` and `/readyz`.
 */

/** A long lease and a short retry: a takeover within the lease duration proves a release. */
const LEASE = { leaseDurationMs: 10_000, renewDeadlineMs: 8_000, retryPeriodMs: 100 };

interface Replica {
  readonly identity: string;
  readonly mgr: Manager;
  readonly logger: MemoryLogger;
  /** Keys reconciled, as `controller:key`. */
  readonly reconciled: string[];
  start(): Promise<void>;
  stop(): Promise<void>;
  /** `start`'s promise once called. */
  run: Promise<void> | undefined;
}

interface ReplicaHooks {
  /** Called in the ConfigMap controller's reconcile before it records the key. */
  onConfigMap?(key: string, signal: AbortSignal): Promise<void> | void;
  /** Called in the Secret controller's reconcile. */
  onSecret?(key: string): void;
}

describe("Manager on the embedded server", () => {
  const h = useServer();
  let cs: Clientset;
  const replicas: Replica[] = [];
  let namespaces = 0;

  beforeAll(() => {
    cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
  });
  afterAll(async () => {
    for (const r of replicas) await r.stop();
    await cs.restClient.transport.close();
  });

  async function namespace(): Promise<string> {
    const name = `mgr-${namespaces++}`;
    await cs.coreV1.namespaces().create({ metadata: { name } });
    const cm: ConfigMap = { metadata: { name: "cm" }, data: { v: "0" } };
    const secret: Secret = { metadata: { name: "secret" }, stringData: { v: "0" } };
    await cs.coreV1.configMaps(name).create(cm);
    await cs.coreV1.secrets(name).create(secret);
    return name;
  }

  /** A manager with two controllers (ConfigMaps, Secrets) on one factory of `ns`. */
  function replica(
    ns: string,
    identity: string,
    hooks: ReplicaHooks = {},
    options: Partial<ManagerOptions> = {},
  ): Replica {
    const logger = new MemoryLogger();
    const mgr = new Manager({
      kubeConfig: h.server.kubeConfig(),
      leaderElection: { namespace: ns, name: "lock", identity, ...LEASE },
      metricsPort: 0,
      healthPort: 0,
      registry: new Registry(),
      logger,
      ...options,
    });
    const reconciled: string[] = [];
    const factory = new SharedInformerFactory(mgr.clientset, {
      namespace: ns,
      informerOptions: { logger },
    });
    const configMaps = new Controller({
      name: `configmaps-${identity}`,
      workers: 2,
      metrics: mgr.metrics,
      logger,
      reconcile: async (key, signal) => {
        await hooks.onConfigMap?.(key, signal);
        reconciled.push(`configmaps:${key}`);
      },
    });
    configMaps.watch(factory.coreV1.configMaps().informer);
    const secrets = new Controller({
      name: `secrets-${identity}`,
      metrics: mgr.metrics,
      logger,
      reconcile: (key) => {
        hooks.onSecret?.(key);
        reconciled.push(`secrets:${key}`);
      },
    });
    secrets.watch(factory.coreV1.secrets().informer);
    mgr.add(factory);
    mgr.add(configMaps);
    mgr.add(secrets);
    const abort = new AbortController();
    const r: Replica = {
      identity,
      mgr,
      logger,
      reconciled,
      run: undefined,
      start: () => (r.run ??= mgr.start(abort.signal)),
      stop: async () => {
        abort.abort();
        await r.run?.catch(() => undefined);
      },
    };
    replicas.push(r);
    return r;
  }

  async function holder(ns: string): Promise<string | undefined> {
    const lease = await cs.coordinationV1.leases(ns).get("lock");
    return lease.spec?.holderIdentity;
  }

  async function get(
    port: number | undefined,
    path: string,
  ): Promise<{ status: number; text: string; type: string | null }> {
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: res.status, text: await res.text(), type: res.headers.get("content-type") };
  }

  async function scrape(r: Replica): Promise<Map<string, MetricFamily>> {
    const res = await get(r.mgr.metricsPort, "/metrics");
    expect(res.status).toBe(200);
    expect(res.type).toContain("text/plain");
    return parseExposition(res.text);
  }

  it("runs the controllers on the leader only; a stop drains in-flight reconciles, releases the Lease, and the standby takes over", async () => {
    const ns = await namespace();
    const gate: { closed?: Promise<void> } = {};
    let release = (): void => undefined;
    let inFlight: { key: string; signal: AbortSignal } | undefined;
    const a = replica(ns, "a", {
      onConfigMap: async (key, signal) => {
        if (gate.closed === undefined) return;
        inFlight = { key, signal };
        await gate.closed;
      },
    });
    void a.start();
    await a.mgr.elected();
    expect(await holder(ns)).toBe("a");
    const b = replica(ns, "b");
    void b.start();
    await waitFor("both controllers of the leader", async () => a.reconciled.length >= 2);
    expect([...a.reconciled].sort()).toEqual([`configmaps:${ns}/cm`, `secrets:${ns}/secret`]);
    // The standby's cache is warm (readyz passes) but its controllers do not run.
    await waitFor(
      "the standby ready",
      async () =>
        b.mgr.healthPort !== undefined && (await get(b.mgr.healthPort, "/readyz")).status === 200,
    );
    expect(b.mgr.isLeader()).toBe(false);
    expect(a.mgr.isLeader()).toBe(true);

    // A reconcile in flight when the stop comes.
    gate.closed = new Promise((resolve) => (release = resolve));
    await cs.coreV1
      .configMaps(ns)
      .patch("cm", "application/merge-patch+json", { data: { v: "1" } });
    await waitFor("the reconcile in flight", async () => inFlight !== undefined);
    let settled = false;
    const aborted = a.stop().then(() => (settled = true));
    await waitFor("the reconcile's signal aborted", async () => inFlight?.signal.aborted === true);
    // Drained first: the manager waits for the reconcile and keeps the Lease meanwhile.
    expect(settled).toBe(false);
    expect(await holder(ns)).toBe("a");
    expect(b.reconciled).toEqual([]);
    release();
    await aborted;
    expect(a.reconciled).toContain(`configmaps:${ns}/cm`);
    expect(a.reconciled.filter((k) => k.startsWith("configmaps"))).toHaveLength(2);
    await expect(a.run).resolves.toBeUndefined();
    // Released: the standby acquires within a few retry periods, long before the 10 s lease.
    await waitFor("the standby to lead", async () => b.mgr.isLeader(), 3_000);
    await waitFor("the new leader's reconciles", async () => b.reconciled.length >= 2, 3_000);
    expect([...b.reconciled].sort()).toEqual([`configmaps:${ns}/cm`, `secrets:${ns}/secret`]);
    const lease = await cs.coordinationV1.leases(ns).get("lock");
    expect(lease.spec?.holderIdentity).toBe("b");
    expect(lease.spec?.leaseTransitions).toBeGreaterThanOrEqual(1);
    // The stopped replica's servers are closed.
    await expect(fetch(`http://127.0.0.1:${a.mgr.metricsPort}/metrics`)).rejects.toThrow();
    await b.stop();
    await expect(b.run).resolves.toBeUndefined();
    expect(a.logger.entries.filter((e) => e.level === "error")).toEqual([]);
  });

  it("exposes controller-runtime's and client-go's metrics on /metrics", async () => {
    const ns = await namespace();
    let failures = 1;
    const a = replica(ns, "m", {
      onSecret: () => {
        if (failures-- > 0) throw new Error("first attempt fails");
      },
    });
    const b = replica(ns, "n");
    void a.start();
    await a.mgr.elected();
    void b.start();
    await waitFor("reconciles, one retried", async () => a.reconciled.length >= 2);
    await waitFor("the standby's metrics server", async () => b.mgr.metricsPort !== undefined);
    const families = await scrape(a);
    const value = (name: string, labels: Record<string, string> = {}): number => {
      const family = families.get(name) ?? families.get(name.replace(/_(bucket|sum|count)$/, ""));
      const sample = family?.samples.find(
        (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
      );
      if (sample === undefined) throw new Error(`no sample ${name} ${JSON.stringify(labels)}`);
      return sample.value;
    };
    const cmController = { controller: "configmaps-m" };
    const secretController = { controller: "secrets-m" };
    expect(families.get("controller_runtime_reconcile_total")?.type).toBe("counter");
    expect(
      value("controller_runtime_reconcile_total", { ...cmController, result: "success" }),
    ).toBe(1);
    expect(value("controller_runtime_reconcile_total", { ...cmController, result: "error" })).toBe(
      0,
    );
    expect(
      value("controller_runtime_reconcile_total", { ...secretController, result: "error" }),
    ).toBe(1);
    expect(
      value("controller_runtime_reconcile_total", { ...secretController, result: "success" }),
    ).toBe(1);
    expect(value("controller_runtime_reconcile_errors_total", secretController)).toBe(1);
    expect(value("controller_runtime_reconcile_errors_total", cmController)).toBe(0);
    expect(families.get("controller_runtime_reconcile_time_seconds")?.type).toBe("histogram");
    expect(value("controller_runtime_reconcile_time_seconds_count", secretController)).toBe(2);
    expect(
      value("controller_runtime_reconcile_time_seconds_bucket", { ...cmController, le: "+Inf" }),
    ).toBe(1);
    expect(value("controller_runtime_max_concurrent_reconciles", cmController)).toBe(2);
    expect(value("controller_runtime_max_concurrent_reconciles", secretController)).toBe(1);
    expect(value("controller_runtime_active_workers", cmController)).toBe(0);
    const queue = { name: "secrets-m", controller: "secrets-m" };
    expect(families.get("workqueue_depth")?.type).toBe("gauge");
    expect(value("workqueue_depth", queue)).toBe(0);
    expect(value("workqueue_adds_total", queue)).toBe(2);
    expect(value("workqueue_retries_total", queue)).toBe(1);
    expect(value("workqueue_queue_duration_seconds_count", queue)).toBe(2);
    expect(value("workqueue_work_duration_seconds_count", queue)).toBe(2);
    expect(value("workqueue_work_duration_seconds_sum", queue)).toBeGreaterThanOrEqual(0);
    expect(value("workqueue_unfinished_work_seconds", queue)).toBe(0);
    expect(value("workqueue_longest_running_processor_seconds", queue)).toBe(0);
    const host = new URL(h.server.url).host;
    expect(families.get("rest_client_requests_total")?.type).toBe("counter");
    // The lists of two informers, the Lease reads and writes.
    expect(
      value("rest_client_requests_total", { code: "200", method: "GET", host }),
    ).toBeGreaterThanOrEqual(2);
    expect(value("rest_client_requests_total", { code: "201", method: "POST", host })).toBe(1);
    expect(
      value("rest_client_request_duration_seconds_count", { verb: "GET", host }),
    ).toBeGreaterThanOrEqual(2);
    expect(value("leader_election_master_status", { name: "lock" })).toBe(1);
    const standby = await scrape(b);
    expect(standby.get("leader_election_master_status")?.samples).toEqual([
      { name: "leader_election_master_status", labels: { name: "lock" }, value: 0 },
    ]);
    expect(standby.has("controller_runtime_reconcile_time_seconds")).toBe(true);
    await a.stop();
    await b.stop();
  });

  it("stops the controllers and rejects with LeaderElectionLost when another holder takes the Lease", async () => {
    const ns = await namespace();
    let signal: AbortSignal | undefined;
    let reconciling = false;
    const a = replica(ns, "lost", {
      onConfigMap: async (_key, s) => {
        if (reconciling) return;
        reconciling = true;
        signal = s;
        await new Promise((resolve) => s.addEventListener("abort", resolve, { once: true }));
      },
    });
    void a.start();
    await waitFor("a reconcile running", async () => signal !== undefined);
    const lease = await cs.coordinationV1.leases(ns).get("lock");
    await cs.coordinationV1.leases(ns).update({
      ...lease,
      spec: { ...lease.spec, holderIdentity: "intruder" },
    });
    await expect(a.run).rejects.toMatchObject({
      name: "ManagerError",
      reason: "LeaderElectionLost",
    });
    expect(signal?.aborted).toBe(true);
    expect(a.mgr.isLeader()).toBe(false);
  });

  it("serves /healthz and /readyz: readyz fails until the informers synced, checks are pluggable", async () => {
    const ns = await namespace();
    const logger = new MemoryLogger();
    const mgr = new Manager({
      kubeConfig: h.server.kubeConfig(),
      healthPort: 0,
      registry: new Registry(),
      logger,
    });
    const factory = new SharedInformerFactory(mgr.clientset, {
      namespace: ns,
      informerOptions: { logger },
    });
    factory.coreV1.configMaps();
    mgr.add(factory);
    let healthy = true;
    mgr.addHealthzCheck("custom", () => {
      if (!healthy) throw new Error("unhealthy on purpose");
    });
    mgr.addReadyzCheck("always", () => undefined);
    expect(() => mgr.addReadyzCheck("always", () => undefined)).toThrow(TypeError);
    // Every list fails until the faults are cleared: the cache cannot sync.
    h.server.faults.failNext(1_000_000, { code: 500, verbs: ["list"] });
    const abort = new AbortController();
    const run = mgr.start(abort.signal);
    const port = await eventually("the health port", async () => mgr.healthPort);
    const notReady = await get(port, "/readyz");
    expect(notReady.status).toBe(500);
    expect(notReady.text).toBe(
      "[-]informer-sync failed: reason withheld\n[+]always ok\nreadyz check failed\n",
    );
    expect(await get(port, "/readyz/informer-sync")).toMatchObject({ status: 500 });
    expect(await get(port, "/readyz?exclude=informer-sync")).toMatchObject({
      status: 200,
      text: "ok",
    });
    expect(await get(port, "/healthz")).toMatchObject({ status: 200, text: "ok" });
    expect(await get(port, "/healthz?verbose")).toMatchObject({
      status: 200,
      text: "[+]custom ok\nhealthz check passed\n",
    });
    healthy = false;
    expect(await get(port, "/healthz")).toMatchObject({
      status: 500,
      text: "[-]custom failed: reason withheld\nhealthz check failed\n",
    });
    expect(await get(port, "/healthz/custom")).toMatchObject({ status: 500 });
    expect(await get(port, "/healthz/nope")).toMatchObject({ status: 404 });
    expect(await get(port, "/metrics")).toMatchObject({ status: 404 });
    h.server.faults.clear();
    await waitFor("ready", async () => (await get(port, "/readyz")).status === 200, 10_000);
    expect(await get(port, "/readyz/informer-sync")).toMatchObject({ status: 200, text: "ok" });
    abort.abort();
    await expect(run).resolves.toBeUndefined();
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    await mgr.clientset.restClient.transport.close();
  });
});
