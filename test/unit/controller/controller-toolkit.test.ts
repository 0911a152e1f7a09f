import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import {
  Controller,
  ControllerLifecycleError,
  LOW_PRIORITY,
  PrometheusMetricFactory,
  type ReconcileContext,
  type ReconcileResult,
  type Source,
  channelSource,
  controllerMetricsProvider,
  enqueueForObject,
  enqueueFromMap,
  funcSource,
  labelSelectorPredicate,
} from "kubekit";
import { FakeClock } from "../../../packages/kubekit/src/core/clock.js";
import { CapturingLogger, settle, waitUntil } from "../cache/shared-index-informer-harness.js";

/**
 * The controller toolkit on a FakeClock: per-reconcile ID and logger, reconcile timeout,
 * panics, sources (channel, func, custom syncing), and the priority queue option.
 */

type Reconcile = (
  key: string,
  signal: AbortSignal,
  context: ReconcileContext,
) => ReconcileResult | void | Promise<ReconcileResult | void>;

const stops: AbortController[] = [];
const runs: Promise<void>[] = [];

afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await Promise.allSettled(runs.splice(0));
});

function setup(
  reconcile: Reconcile,
  options: { reconcileTimeoutMs?: number; priorityQueue?: boolean } = {},
) {
  const clock = new FakeClock();
  const logger = new CapturingLogger();
  const registry = new Registry();
  const controller = new Controller({
    name: "t",
    clock,
    logger,
    metrics: controllerMetricsProvider(new PrometheusMetricFactory({ registry })),
    reconcile,
    ...options,
  });
  const stop = new AbortController();
  stops.push(stop);
  const start = (): Promise<void> => {
    const run = controller.run(stop.signal);
    runs.push(run.catch(() => undefined));
    return run;
  };
  /** The value of a `controller_runtime_*` counter of controller "t". */
  const counter = async (name: string): Promise<number> => {
    const metric = registry.getSingleMetric(name);
    const values = (await metric?.get())?.values ?? [];
    return values.find((v) => v.labels["controller"] === "t")?.value ?? NaN;
  };
  return { clock, logger, controller, stop, start, counter };
}

describe("per-reconcile context", () => {
  it("gives each reconcile a new UUID and a logger with controller, namespace, name and reconcileID", async () => {
    const contexts: ReconcileContext[] = [];
    const s = setup((_key, _signal, context) => {
      contexts.push(context);
      context.logger.info("working", { step: 1 });
      return contexts.length === 1 ? { requeue: true } : undefined;
    });
    s.controller.enqueue("ns/web");
    s.controller.enqueue("cluster-thing");
    void s.start();
    await waitUntil(() => contexts.length === 2, "two reconciles");
    await s.clock.waitForTimers(1);
    s.clock.advance(5);
    await waitUntil(() => contexts.length === 3, "the requeued reconcile");
    const [first, second, third] = contexts;
    expect(first).toMatchObject({ controller: "t", namespace: "ns", name: "web", priority: 0 });
    expect(second).toMatchObject({ namespace: "", name: "cluster-thing" });
    expect(new Set(contexts.map((c) => c.reconcileID)).size).toBe(3);
    expect(third?.reconcileID).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const working = s.logger.entries.filter((e) => e.message === "working");
    expect(working[0]?.fields).toEqual({
      controller: "t",
      namespace: "ns",
      name: "web",
      reconcileID: first?.reconcileID,
      step: 1,
    });
  });

  it("runs on the leader only unless needLeaderElection is false", () => {
    expect(setup(() => undefined).controller.needLeaderElection).toBe(true);
    const everyReplica = new Controller({
      name: "x",
      reconcile: () => undefined,
      needLeaderElection: false,
    });
    expect(everyReplica.needLeaderElection).toBe(false);
  });

  it("keeps today's two-argument reconcilers working", async () => {
    const seen: string[] = [];
    const s = setup((key: string) => {
      seen.push(key);
    });
    s.controller.enqueue("ns/a");
    void s.start();
    await waitUntil(() => seen.length === 1, "the reconcile");
    expect(seen).toEqual(["ns/a"]);
  });
});

describe("reconcileTimeoutMs", () => {
  it("aborts the reconcile's signal with a TimeoutError, retries with backoff and counts the timeout", async () => {
    const reasons: unknown[] = [];
    let calls = 0;
    const s = setup(
      async (_key, signal) => {
        calls++;
        if (calls > 1) return;
        await new Promise<void>((_resolve, reject) =>
          signal.addEventListener("abort", () => {
            reasons.push(signal.reason);
            reject(signal.reason as Error);
          }),
        );
      },
      { reconcileTimeoutMs: 1_000 },
    );
    s.controller.enqueue("ns/slow");
    void s.start();
    await waitUntil(() => calls === 1, "the first reconcile");
    await s.clock.waitForTimers(1);
    s.clock.advance(999);
    await settle();
    expect(reasons).toEqual([]);
    s.clock.advance(1);
    await waitUntil(() => reasons.length === 1, "the timeout");
    expect((reasons[0] as DOMException).name).toBe("TimeoutError");
    // Retried with the rate limiter's first delay, 5 ms.
    await waitUntil(
      () => s.logger.entries.some((e) => e.message.includes("requeued with backoff")),
      "the failure's requeue",
    );
    s.clock.advance(4);
    await settle();
    expect(calls).toBe(1);
    s.clock.advance(1);
    await waitUntil(() => calls === 2, "the retry");
    expect(await s.counter("controller_runtime_reconcile_timeouts_total")).toBe(1);
    expect(await s.counter("controller_runtime_reconcile_errors_total")).toBe(1);
  });

  it("counts no timeout for a reconcile that finishes in time, and leaves no timer behind", async () => {
    let calls = 0;
    const s = setup(
      () => {
        calls++;
      },
      { reconcileTimeoutMs: 1_000 },
    );
    s.controller.enqueue("ns/fast");
    const run = s.start();
    await waitUntil(() => calls === 1, "the reconcile");
    await settle();
    s.clock.advance(5_000);
    await settle();
    expect(calls).toBe(1);
    expect(await s.counter("controller_runtime_reconcile_timeouts_total")).toBe(0);
    s.stop.abort();
    await run;
    expect(s.clock.pendingTimers()).toBe(0);
  });

  it("refuses a reconcileTimeoutMs that is not positive", () => {
    expect(() => setup(() => undefined, { reconcileTimeoutMs: 0 })).toThrow(RangeError);
  });
});

describe("panics", () => {
  it("counts a TypeError or a thrown non-Error as a panic, an ordinary Error not; all are retried", async () => {
    const throws: Record<string, () => never> = {
      "ns/type-error": () => {
        const missing: { x?: { y: number } } = {};
        return (missing.x as { y: number }).y as never;
      },
      "ns/string": () => {
        throw "boom";
      },
      "ns/error": () => {
        throw new Error("an API call failed");
      },
    };
    const calls = new Map<string, number>();
    const s = setup((key) => {
      calls.set(key, (calls.get(key) ?? 0) + 1);
      if ((calls.get(key) ?? 0) === 1) throws[key]?.();
    });
    for (const key of Object.keys(throws)) s.controller.enqueue(key);
    void s.start();
    await waitUntil(() => calls.size === 3, "three reconciles");
    await settle();
    expect(await s.counter("controller_runtime_reconcile_panics_total")).toBe(2);
    expect(await s.counter("controller_runtime_reconcile_errors_total")).toBe(3);
    const panics = s.logger.entries.filter((e) => e.message.includes("panic"));
    expect(
      panics.map((e) => (e.fields as Record<string, unknown> | undefined)?.["name"]).sort(),
    ).toEqual(["string", "type-error"]);
    await s.clock.waitForTimers(1);
    s.clock.advance(5);
    await waitUntil(() => [...calls.values()].every((n) => n === 2), "the retries");
  });

  it("recovers and counts what a source's predicate or handler throws, and goes on", async () => {
    const seen: string[] = [];
    const s = setup((key) => {
      seen.push(key);
    });
    const items = [{ metadata: { name: "boom" } }, { metadata: { name: "ok", namespace: "ns" } }];
    s.controller.watchSource(
      channelSource(
        items,
        enqueueFromMap((obj) => {
          if (obj.metadata?.name === "boom") throw new Error("mapper failed");
          return [`ns/${obj.metadata?.name ?? ""}`];
        }),
      ),
    );
    void s.start();
    await waitUntil(() => seen.length === 1, "the good item");
    expect(seen).toEqual(["ns/ok"]);
    expect(await s.counter("controller_runtime_reconcile_panics_total")).toBe(1);
    const entry = s.logger.entries.find((e) => e.message.includes("panic in a source"));
    expect(entry?.fields).toMatchObject({ controller: "t", source: "channel", event: "generic" });
  });
});

/** An async iterable whose items are pushed by the test; ends on `close`. */
function channel<T>() {
  const buffered: T[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  let returned = false;
  const iterable: AsyncIterable<T> = {
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<T>> => {
        while (buffered.length === 0 && !closed) await new Promise<void>((r) => (wake = r));
        const item = buffered.shift();
        return item === undefined ? { done: true, value: undefined } : { done: false, value: item };
      },
      return: async (): Promise<IteratorResult<T>> => {
        returned = true;
        return { done: true, value: undefined };
      },
    }),
  };
  return {
    iterable,
    push(item: T) {
      buffered.push(item);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    get returned() {
      return returned;
    },
  };
}

describe("sources", () => {
  it("channelSource: items go through the predicates and the handler until the controller stops", async () => {
    const seen: string[] = [];
    const s = setup((key) => {
      seen.push(key);
    });
    const ch = channel<{
      metadata: { name: string; namespace: string; labels?: Record<string, string> };
    }>();
    s.controller.watchSource(
      channelSource(ch.iterable, enqueueForObject(), {
        name: "external",
        predicates: [labelSelectorPredicate("app=web")],
      }),
    );
    const run = s.start();
    ch.push({ metadata: { name: "a", namespace: "ns", labels: { app: "web" } } });
    ch.push({ metadata: { name: "b", namespace: "ns", labels: { app: "db" } } });
    ch.push({ metadata: { name: "c", namespace: "ns", labels: { app: "web" } } });
    await waitUntil(() => seen.length === 2, "two reconciles");
    expect(seen).toEqual(["ns/a", "ns/c"]);
    s.stop.abort();
    await run;
    expect(ch.returned).toBe(true);
  });

  it("funcSource: started by run with the queue; its keys are reconciled; stopped with the controller", async () => {
    const seen: string[] = [];
    const s = setup((key) => {
      seen.push(key);
    });
    let stopped = false;
    s.controller.watchSource(
      funcSource("ticker", (queue, signal) => {
        queue.add("ns/tick");
        queue.add("ns/later", { afterMs: 100 });
        signal.addEventListener("abort", () => (stopped = true));
      }),
    );
    expect(seen).toEqual([]);
    const run = s.start();
    await waitUntil(() => seen.length === 1, "the first key");
    await s.clock.waitForTimers(1);
    s.clock.advance(100);
    await waitUntil(() => seen.length === 2, "the delayed key");
    expect(seen).toEqual(["ns/tick", "ns/later"]);
    expect(stopped).toBe(false);
    s.stop.abort();
    await run;
    expect(stopped).toBe(true);
  });

  it("a source that fails to start rejects run with SourceStartFailed naming it", async () => {
    const s = setup(() => undefined);
    const cause = new Error("no connection");
    s.controller.watchSource(funcSource("webhook", () => Promise.reject(cause)));
    const error = await s.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControllerLifecycleError);
    expect(error).toMatchObject({ reason: "SourceStartFailed", informers: ["webhook"], cause });
  });

  it("waits for a syncing source before the workers start", async () => {
    let synced = false;
    const syncing: Source = {
      name: "slow-cache",
      start: (queue) => queue.add("ns/a"),
      hasSynced: () => synced,
    };
    const seen: string[] = [];
    const s = setup((key) => {
      seen.push(key);
    });
    s.controller.watchSource(syncing);
    void s.start();
    await settle();
    expect(seen).toEqual([]);
    synced = true;
    await waitUntil(() => seen.length === 1, "the reconcile after the sync");
  });

  it("times out waiting for a syncing source, naming it", async () => {
    const syncing: Source = { name: "slow-cache", start: () => undefined };
    const never = setup(() => undefined);
    never.controller.watchSource({
      ...syncing,
      hasSynced: () => false,
      // Resolves false only when the controller gives up (its signal aborts).
      waitForSync: (signal) =>
        new Promise<boolean>((resolve) =>
          signal.addEventListener("abort", () => resolve(false), { once: true }),
        ),
    });
    const run = never.start().catch((e: unknown) => e);
    await never.clock.waitForTimers(1);
    never.clock.advance(120_000);
    expect(await run).toMatchObject({ reason: "CacheSyncTimeout", informers: ["slow-cache"] });
  });

  it("a source added while running is started at once; one added after the stop is refused", async () => {
    const seen: string[] = [];
    const s = setup((key) => {
      seen.push(key);
    });
    const run = s.start();
    await waitUntil(
      () => s.logger.entries.some((e) => e.message.includes("starting workers")),
      "start",
    );
    s.controller.watchSource(funcSource("late", (queue) => queue.add("ns/late")));
    await waitUntil(() => seen.length === 1, "the late source's key");
    s.stop.abort();
    await run;
    expect(() => s.controller.watchSource(funcSource("after", () => undefined))).toThrow(
      ControllerLifecycleError,
    );
    expect(() => s.controller.watchSource({} as Source)).toThrow(TypeError);
  });
});

describe("priorityQueue option", () => {
  it("reconciles user changes before low-priority initial objects, and keeps the priority on requeue", async () => {
    const seen: [string, number][] = [];
    const s = setup(
      (key, _signal, context) => {
        seen.push([key, context.priority]);
        return key === "ns/old-2" && seen.length < 5 ? { requeue: true } : undefined;
      },
      { priorityQueue: true },
    );
    s.controller.watchSource(
      funcSource("restart", (queue) => {
        queue.add("ns/old-1", { priority: LOW_PRIORITY });
        queue.add("ns/old-2", { priority: LOW_PRIORITY });
        queue.add("ns/user-change");
      }),
    );
    void s.start();
    await waitUntil(() => seen.length === 3, "three reconciles");
    expect(seen).toEqual([
      ["ns/user-change", 0],
      ["ns/old-1", LOW_PRIORITY],
      ["ns/old-2", LOW_PRIORITY],
    ]);
    await s.clock.waitForTimers(1);
    s.clock.advance(5);
    await waitUntil(() => seen.length === 4, "the requeue");
    expect(seen[3]).toEqual(["ns/old-2", LOW_PRIORITY]);
  });
});
