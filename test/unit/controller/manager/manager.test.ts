import { EventEmitter } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import {
  Controller,
  controllerMetricsProvider,
  Manager,
  type InformerFactoryLike,
  ManagerError,
  KubeConfig,
  MetricRegistrationError,
  PrometheusMetricFactory,
  signalHandler,
  TerminalError,
  noopLogger,
} from "kubekit";
import { HealthChecks } from "../../../../packages/kubekit/src/controller/manager/health-checks.js";
import { FakeClock } from "kubekit/testing";
import { obj } from "../../cache/fixtures.js";
import { CapturingLogger, setupInformer } from "../../cache/shared-index-informer-harness.js";

/** The value of one sample of `name` with exactly `labels`, from the registry's JSON. */
async function sample(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const family = (await registry.getMetricsAsJSON()).find((m) => name.startsWith(m.name));
  const found = family?.values.find(
    (v) =>
      ((v as { metricName?: string }).metricName ?? family.name) === name &&
      Object.keys(v.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([k, value]) => String(v.labels[k]) === value),
  );
  return found?.value;
}

describe("PrometheusMetricFactory", () => {
  it("shares a family between calls and factories on one registry, and creates series at 0", async () => {
    const registry = new Registry();
    const description = { name: "kk_things_total", help: "things", labelNames: ["kind"] };
    const first = new PrometheusMetricFactory({ registry }).counter(description);
    const second = new PrometheusMetricFactory({ registry }).counter(description);
    first.labels("a");
    expect(await sample(registry, "kk_things_total", { kind: "a" })).toBe(0);
    first.labels("a").inc();
    second.labels("a").inc();
    expect(await sample(registry, "kk_things_total", { kind: "a" })).toBe(2);
    expect(registry.getMetricsAsArray()).toHaveLength(1);
  });

  it("refuses a name registered as another kind", () => {
    const factory = new PrometheusMetricFactory({ registry: new Registry() });
    factory.gauge({ name: "kk_level", help: "level", labelNames: [] });
    expect(() => factory.counter({ name: "kk_level", help: "level", labelNames: [] })).toThrow(
      MetricRegistrationError,
    );
  });
});

describe("Controller reconcile metrics", () => {
  it("counts outcomes, errors and terminal errors, and times reconciles on the controller's clock", async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const metrics = controllerMetricsProvider(new PrometheusMetricFactory({ registry }));
    const outcomes: Record<string, () => unknown> = {
      ok: () => undefined,
      slow: async () => {
        await clock.sleep(250);
      },
      again: () => ({ requeue: true }),
      later: () => ({ requeueAfterMs: 60_000 }),
      fails: () => {
        throw new Error("boom");
      },
      terminal: () => {
        throw new TerminalError("never");
      },
    };
    const done = new Set<string>();
    const controller = new Controller({
      name: "measured",
      workers: 3,
      clock,
      logger: noopLogger,
      metrics,
      reconcile: async (key) => {
        try {
          return (await outcomes[key]?.()) as undefined;
        } finally {
          done.add(key);
        }
      },
    });
    const labels = { controller: "measured" };
    expect(await sample(registry, "controller_runtime_max_concurrent_reconciles", labels)).toBe(3);
    expect(await sample(registry, "controller_runtime_reconcile_errors_total", labels)).toBe(0);
    for (const key of Object.keys(outcomes)) controller.enqueue(key);
    const stop = new AbortController();
    const run = controller.run(stop.signal);
    while (!done.has("ok") || !done.has("fails") || !done.has("terminal") || !done.has("again")) {
      await clock.advance(0);
    }
    expect(await sample(registry, "controller_runtime_active_workers", labels)).toBe(1); // slow
    await clock.advance(250);
    while (!done.has("slow")) await clock.advance(0);
    const total = (result: string) =>
      sample(registry, "controller_runtime_reconcile_total", { ...labels, result });
    expect(await total("success")).toBeGreaterThanOrEqual(2);
    expect(await total("requeue_after")).toBe(1);
    expect(await total("requeue")).toBeGreaterThanOrEqual(1);
    expect(await total("error")).toBeGreaterThanOrEqual(2);
    expect(
      await sample(registry, "controller_runtime_terminal_reconcile_errors_total", labels),
    ).toBe(1);
    const errors = await sample(registry, "controller_runtime_reconcile_errors_total", labels);
    expect(errors).toBe(await total("error"));
    // Every reconcile took 0 s on the fake clock except `slow`, which took 250 ms.
    expect(await sample(registry, "controller_runtime_reconcile_time_seconds_sum", labels)).toBe(
      0.25,
    );
    expect(
      await sample(registry, "controller_runtime_reconcile_time_seconds_bucket", {
        le: "0.2",
        ...labels,
      }),
    ).toBe(
      (await sample(registry, "controller_runtime_reconcile_time_seconds_count", labels))! - 1,
    );
    stop.abort();
    await run;
    expect(await sample(registry, "controller_runtime_active_workers", labels)).toBe(0);
    expect(
      await sample(registry, "workqueue_adds_total", { name: "measured", controller: "measured" }),
    ).toBeGreaterThanOrEqual(6);
  });
});

describe("HealthChecks", () => {
  it("runs every check, withholds reasons, and answers one check by name", async () => {
    const checks = new HealthChecks("readyz", noopLogger);
    const signal = new AbortController().signal;
    expect(await checks.probe("", new URLSearchParams(), signal)).toEqual({
      status: 200,
      body: "ok",
    });
    checks.add("a", () => undefined);
    checks.add("b", async () => Promise.reject(new Error("secret detail")));
    expect(() => checks.add("a/b", () => undefined)).toThrow(TypeError);
    expect(await checks.probe("", new URLSearchParams(), signal)).toEqual({
      status: 500,
      body: "[+]a ok\n[-]b failed: reason withheld\nreadyz check failed\n",
    });
    expect(await checks.probe("", new URLSearchParams("exclude=b&verbose"), signal)).toEqual({
      status: 200,
      body: "[+]a ok\n[+]b excluded: ok\nreadyz check passed\n",
    });
    expect(await checks.probe("a", new URLSearchParams(), signal)).toEqual({
      status: 200,
      body: "ok",
    });
    expect((await checks.probe("b", new URLSearchParams(), signal)).status).toBe(500);
    expect((await checks.probe("c", new URLSearchParams(), signal)).status).toBe(404);
  });
});

/** A kubeconfig whose server nothing listens on (port 1): for lifecycles that need no server. */
function unreachableKubeConfig(): KubeConfig {
  return KubeConfig.fromDocument({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: "http://127.0.0.1:1" } }],
    users: [{ name: "u", user: {} }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  });
}

describe("signalHandler", () => {
  it("aborts on the first signal and calls onSecondSignal on the next", () => {
    const target = new EventEmitter();
    let second = 0;
    const signal = signalHandler({ target, onSecondSignal: () => void second++ });
    expect(signal.aborted).toBe(false);
    target.emit("SIGTERM", "SIGTERM");
    expect(signal.aborted).toBe(true);
    expect(String(signal.reason)).toContain("SIGTERM");
    expect(second).toBe(0);
    target.emit("SIGINT", "SIGINT");
    expect(second).toBe(1);
  });

  it("without onSecondSignal, stops listening after the first signal (the default disposition applies)", () => {
    const target = new EventEmitter();
    const signal = signalHandler({ target });
    expect(target.listenerCount("SIGTERM")).toBe(1);
    expect(target.listenerCount("SIGINT")).toBe(1);
    target.emit("SIGINT", "SIGINT");
    expect(signal.aborted).toBe(true);
    expect(target.listenerCount("SIGTERM")).toBe(0);
    expect(target.listenerCount("SIGINT")).toBe(0);
  });
});

describe("Manager lifecycle without a server", () => {
  const kubeConfig = unreachableKubeConfig();

  it("rejects with GracefulShutdownTimeout when a runnable outlives gracefulShutdownMs", async () => {
    const clock = new FakeClock();
    const mgr = new Manager({
      kubeConfig,
      clock,
      gracefulShutdownMs: 5_000,
      registry: new Registry(),
      logger: noopLogger,
    });
    let started = false;
    mgr.add({ run: () => ((started = true), new Promise<void>(() => undefined)) });
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    await mgr.elected();
    expect(started).toBe(true);
    expect(mgr.clientset.restClient.rateLimiter?.qps).toBe(20);
    stop.abort();
    await clock.waitForTimers(1);
    await clock.advance(5_000);
    await expect(run).rejects.toMatchObject({
      name: "ManagerError",
      reason: "GracefulShutdownTimeout",
    });
    expect(clock.pendingTimers()).toBe(0);
  });

  it("rejects with RunnableFailed when a runnable fails, after stopping the others", async () => {
    const mgr = new Manager({ kubeConfig, registry: new Registry(), logger: noopLogger, qps: 7 });
    let otherStopped = false;
    mgr.add({
      needLeaderElection: false,
      run: (signal) =>
        new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => ((otherStopped = true), resolve()), {
            once: true,
          }),
        ),
    });
    mgr.add({ run: () => Promise.reject(new Error("broken")) });
    expect(mgr.clientset.restClient.rateLimiter?.qps).toBe(7);
    await expect(mgr.start(new AbortController().signal)).rejects.toMatchObject({
      reason: "RunnableFailed",
      cause: new Error("broken"),
    });
    expect(otherStopped).toBe(true);
    expect(() => mgr.add({ run: async () => undefined })).toThrow(ManagerError);
  });
});

describe("Manager wiring of controllers", () => {
  const kubeConfig = unreachableKubeConfig();

  it("gives a controller added its metrics, logger and clock unless the controller set them", async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const logger = new CapturingLogger();
    const mgr = new Manager({ kubeConfig, clock, registry, logger });
    let reconciledAt: number | undefined;
    const wired = new Controller({
      name: "wired",
      workers: 2,
      reconcile: () => void (reconciledAt = clock.now()),
    });
    const ownRegistry = new Registry();
    const ownLogger = new CapturingLogger();
    const own = new Controller({
      name: "own",
      logger: ownLogger,
      metrics: controllerMetricsProvider(new PrometheusMetricFactory({ registry: ownRegistry })),
      reconcile: () => undefined,
    });
    mgr.add(wired);
    mgr.add(own);
    expect(
      await sample(registry, "controller_runtime_max_concurrent_reconciles", {
        controller: "wired",
      }),
    ).toBe(2);
    expect(
      await sample(registry, "controller_runtime_max_concurrent_reconciles", { controller: "own" }),
    ).toBeUndefined();
    expect(
      await sample(ownRegistry, "controller_runtime_max_concurrent_reconciles", {
        controller: "own",
      }),
    ).toBe(1);
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    await mgr.elected();
    wired.enqueueAfter("ns/a", 1_000); // a delay on the manager's (fake) clock
    await clock.waitForTimers(1);
    await clock.advance(1_000);
    while (reconciledAt === undefined) await clock.advance(0);
    expect(reconciledAt).toBe(clock.now());
    const labels = { controller: "wired", result: "success" };
    while ((await sample(registry, "controller_runtime_reconcile_total", labels)) !== 1) {
      await clock.advance(0);
    }
    expect(
      await sample(registry, "workqueue_adds_total", { name: "wired", controller: "wired" }),
    ).toBe(1);
    stop.abort();
    await run;
    const started = (l: CapturingLogger, name: string) =>
      l.entries.some(
        (e) =>
          e.message === "controller: starting workers" &&
          (e.fields as { controller?: string }).controller === name,
      );
    expect(started(logger, "wired")).toBe(true);
    expect(started(ownLogger, "own")).toBe(true);
    expect(started(logger, "own")).toBe(false);
  });

  it("gives a controller whose queue already exists only its logger, and says so", async () => {
    const registry = new Registry();
    const logger = new CapturingLogger();
    const mgr = new Manager({ kubeConfig, registry, logger });
    const early = new Controller({ name: "early", reconcile: () => undefined });
    early.enqueue("ns/a"); // creates the queue with no metrics and the real clock
    mgr.add(early);
    expect(logger.entries.map((e) => e.message)).toEqual([
      "controller: added to a manager after its queue was created: the manager's metrics and clock do not apply",
    ]);
    expect(
      await sample(registry, "controller_runtime_max_concurrent_reconciles", {
        controller: "early",
      }),
    ).toBeUndefined();
  });

  it("fails /readyz, naming the informer, while a running controller waits for it to sync", async () => {
    const { informer, lw, run: runInformer, stop: stopInformer } = setupInformer([obj("ns/a")]);
    const release = lw.holdLists();
    const logger = new CapturingLogger();
    const mgr = new Manager({ kubeConfig, registry: new Registry(), logger, healthPort: 0 });
    const controller = new Controller({ name: "waiting", reconcile: () => undefined });
    controller.watch(informer);
    mgr.add(controller);
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    await mgr.elected();
    void runInformer();
    const readyz = async (): Promise<number> => {
      const answer = await fetch(`http://127.0.0.1:${mgr.healthPort}/readyz`);
      await answer.text();
      return answer.status;
    };
    expect(await readyz()).toBe(500);
    const failure = logger.entries.find((e) => e.message === "readyz check failed");
    expect(String((failure?.fields as { error?: unknown }).error)).toContain(
      "waiting: informer objs",
    );
    release();
    while ((await readyz()) !== 200) await new Promise((resolve) => setImmediate(resolve));
    stop.abort();
    await run;
    await stopInformer();
  });

  it("fails with RunnableFailed when a controller's informer never syncs within cacheSyncTimeoutMs", async () => {
    const { informer } = setupInformer(); // its factory was never added: it never runs
    const clock = new FakeClock();
    const mgr = new Manager({ kubeConfig, clock, registry: new Registry(), logger: noopLogger });
    const controller = new Controller({ name: "orphan", reconcile: () => undefined });
    controller.watch(informer);
    mgr.add(controller);
    const run = mgr.start(new AbortController().signal);
    run.catch(() => undefined);
    await mgr.elected();
    await clock.waitForTimers(1);
    await clock.advance(120_000);
    await expect(run).rejects.toMatchObject({
      reason: "RunnableFailed",
      cause: { reason: "CacheSyncTimeout", controller: "orphan", informers: ["objs"] },
    });
  });
});

describe("Manager stop", () => {
  const kubeConfig = unreachableKubeConfig();

  /** A factory whose caches never sync: they stop only when their start signal aborts. */
  function neverSyncingFactory(): InformerFactoryLike & { stopped: boolean } {
    let started: AbortSignal | undefined;
    const factory = {
      stopped: false,
      start: (signal: AbortSignal) => void (started = signal),
      waitForCacheSync: (signal: AbortSignal) =>
        new Promise<Map<string, boolean>>((resolve) =>
          signal.addEventListener("abort", () => resolve(new Map([["/v1/pods", false]]))),
        ),
      shutdown: () => {
        factory.stopped = started?.aborted ?? true;
        return Promise.resolve();
      },
    };
    return factory;
  }

  it("stops at once, without waiting for the grace period, when stopped before the caches synced", async () => {
    const clock = new FakeClock();
    const mgr = new Manager({ kubeConfig, clock, registry: new Registry(), logger: noopLogger });
    const factory = neverSyncingFactory();
    mgr.add(factory);
    let ran = false;
    mgr.add({ run: async () => void (ran = true) });
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    await clock.waitForTimers(0);
    stop.abort();
    await expect(run).resolves.toBeUndefined();
    expect(factory.stopped).toBe(true);
    expect(ran).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("a runnable that rejects with its signal's reason when stopped is a normal stop", async () => {
    const mgr = new Manager({ kubeConfig, registry: new Registry(), logger: noopLogger });
    mgr.add({
      needLeaderElection: false,
      run: (signal) =>
        new Promise<void>((_, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true }),
        ),
    });
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    await mgr.elected();
    stop.abort();
    await expect(run).resolves.toBeUndefined();
  });
});

describe("Manager endpoints", () => {
  it("serves /metrics, /healthz and /readyz from one server when both ports are the same", async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const port = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const registry = new Registry();
    const mgr = new Manager({
      kubeConfig: unreachableKubeConfig(),
      metricsPort: port,
      healthPort: port,
      registry,
      logger: noopLogger,
    });
    const stop = new AbortController();
    const run = mgr.start(stop.signal);
    await mgr.elected();
    expect(mgr.metricsPort).toBe(port);
    expect(mgr.healthPort).toBe(port);
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(metrics.headers.get("content-type")).toBe(registry.contentType);
    await metrics.text();
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    const head = await fetch(`http://127.0.0.1:${port}/healthz`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const post = await fetch(`http://127.0.0.1:${port}/healthz`, { method: "POST" });
    expect(post.status).toBe(405);
    await post.text();
    stop.abort();
    await run;
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});
