import { afterEach, describe, expect, it } from "vitest";
import {
  Controller,
  ControllerLifecycleError,
  type ReconcileResult,
  TerminalError,
  isTerminalError,
  type Clock,
  type MetricsProvider,
} from "kubekit";
import { FakeClock, realClock } from "../../../packages/kubekit/src/core/clock.js";
import { EVENT_LOOP_SLICE_MS } from "../../../packages/kubekit/src/core/event-loop-slice.js";
import { SeededRandom } from "../../support/seeded-random.js";
import { deferred, flush, obj } from "../cache/fixtures.js";
import {
  CapturingLogger,
  settle,
  setupInformer,
  stopInformers,
  waitUntil,
} from "../cache/shared-index-informer-harness.js";

/**
 * The Controller on a FakeClock, fed with `enqueue` (and, for the sync rule, a real informer
 * over an in-memory ListerWatcher): reconcile outcomes, rate-limited delays, terminal errors,
 * throwing reconciles, per-key exclusivity, shutdown with work in flight.
 */

type Outcome = ReconcileResult | void | Error;

interface Setup {
  readonly clock: FakeClock;
  readonly logger: CapturingLogger;
  readonly controller: Controller;
  /** Every reconcile call: key and the clock's time (ms since the clock's start). */
  readonly calls: { key: string; at: number }[];
  readonly stop: AbortController;
  start(): Promise<void>;
}

const runs: Promise<void>[] = [];
const stops: AbortController[] = [];

afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await Promise.allSettled(runs.splice(0));
  await stopInformers();
});

/** A controller whose reconcile answers with `outcome(key, callNumber)` (1-based per key). */
function setup(
  outcome: (key: string, n: number) => Outcome | Promise<Outcome> = () => undefined,
  workers = 1,
): Setup {
  const clock = new FakeClock();
  const start0 = clock.now();
  const logger = new CapturingLogger();
  const calls: { key: string; at: number }[] = [];
  const perKey = new Map<string, number>();
  const controller = new Controller({
    name: "test",
    workers,
    clock,
    logger,
    reconcile: async (key) => {
      calls.push({ key, at: clock.now() - start0 });
      const n = (perKey.get(key) ?? 0) + 1;
      perKey.set(key, n);
      const result = await outcome(key, n);
      if (result instanceof Error) throw result;
      return result;
    },
  });
  const stop = new AbortController();
  stops.push(stop);
  return {
    clock,
    logger,
    controller,
    calls,
    stop,
    start: () => {
      const run = controller.run(stop.signal);
      runs.push(run);
      return run;
    },
  };
}

/** Advances the clock by `ms` once the queue has armed its timer, then lets work run. */
async function advance(s: Setup, ms: number): Promise<void> {
  await s.clock.waitForTimers(1);
  s.clock.advance(ms);
  await settle();
}

describe("Controller outcomes", () => {
  it("reconciles an enqueued key once and forgets it on success", async () => {
    const s = setup();
    s.controller.enqueue("ns/a");
    s.controller.enqueue("ns/a");
    void s.start();
    await waitUntil(() => s.calls.length === 1, "the first reconcile");
    await settle();
    expect(s.calls).toEqual([{ key: "ns/a", at: 0 }]);
    expect(s.clock.pendingTimers()).toBe(0);
  });

  it("requeues after requeueAfterMs, and not before", async () => {
    const s = setup((_key, n) => (n === 1 ? { requeueAfterMs: 1_000 } : undefined));
    s.controller.enqueue("ns/a");
    void s.start();
    await waitUntil(() => s.calls.length === 1, "the first reconcile");
    await advance(s, 999);
    expect(s.calls).toHaveLength(1);
    await advance(s, 1);
    await waitUntil(() => s.calls.length === 2, "the requeued reconcile");
    expect(s.calls.map((c) => c.at)).toEqual([0, 1_000]);
  });

  it("retries a failing key with the rate limiter's delays: 5, 10, 20, 40 ms", async () => {
    const s = setup((_key, n) => (n <= 4 ? new Error(`boom ${n}`) : undefined));
    s.controller.enqueue("ns/a");
    void s.start();
    for (const [i, delay] of [5, 10, 20, 40].entries()) {
      await waitUntil(() => s.calls.length === i + 1, `reconcile #${i + 1}`);
      await advance(s, delay - 1);
      expect(s.calls).toHaveLength(i + 1);
      await advance(s, 1);
    }
    await waitUntil(() => s.calls.length === 5, "the successful reconcile");
    expect(s.calls.map((c) => c.at)).toEqual([0, 5, 15, 35, 75]);
    const errors = s.logger.entries.filter((e) => e.level === "error");
    expect(errors).toHaveLength(4);
    expect(errors[0]?.fields).toMatchObject({
      controller: "test",
      namespace: "ns",
      name: "a",
      reconcileID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      requeues: 0,
    });
    expect((errors[3]?.fields as { error: Error }).error.message).toBe("boom 4");
  });

  it("forgets the failure history after a success: the next failure waits 5 ms again", async () => {
    const s = setup((_key, n) => (n === 2 ? undefined : new Error(`boom ${n}`)));
    s.controller.enqueue("ns/a");
    void s.start();
    await waitUntil(() => s.calls.length === 1, "reconcile #1");
    await advance(s, 5);
    await waitUntil(() => s.calls.length === 2, "reconcile #2 (success)");
    s.controller.enqueue("ns/a");
    await waitUntil(() => s.calls.length === 3, "reconcile #3 (fails)");
    await advance(s, 5);
    await waitUntil(() => s.calls.length === 4, "reconcile #4 after 5 ms");
    expect(s.calls.map((c) => c.at)).toEqual([0, 5, 5, 10]);
  });

  it("requeue: true uses the rate limiter (5, then 10 ms)", async () => {
    const s = setup((_key, n) => (n <= 2 ? { requeue: true } : undefined));
    s.controller.enqueue("a");
    void s.start();
    await waitUntil(() => s.calls.length === 1, "reconcile #1");
    await advance(s, 5);
    await waitUntil(() => s.calls.length === 2, "reconcile #2");
    await advance(s, 9);
    expect(s.calls).toHaveLength(2);
    await advance(s, 1);
    await waitUntil(() => s.calls.length === 3, "reconcile #3");
    expect(s.calls.map((c) => c.at)).toEqual([0, 5, 15]);
    expect(s.logger.entries.filter((e) => e.level === "error")).toEqual([]);
  });

  it("requeueAfterMs resets the failure history (forget, then addAfter)", async () => {
    const outcomes: Outcome[] = [
      new Error("1"),
      new Error("2"),
      { requeueAfterMs: 100 },
      new Error("4"),
    ];
    const s = setup((_key, n) => outcomes[n - 1]);
    s.controller.enqueue("a");
    void s.start();
    await waitUntil(() => s.calls.length === 1, "reconcile #1");
    await advance(s, 5);
    await waitUntil(() => s.calls.length === 2, "reconcile #2");
    await advance(s, 10);
    await waitUntil(() => s.calls.length === 3, "reconcile #3");
    await advance(s, 100);
    await waitUntil(() => s.calls.length === 4, "reconcile #4");
    await advance(s, 5);
    await waitUntil(() => s.calls.length === 5, "reconcile #5, 5 ms after the fresh failure");
    expect(s.calls.map((c) => c.at)).toEqual([0, 5, 15, 115, 120]);
  });

  it("logs a TerminalError with the key and does not requeue it", async () => {
    const cause = new Error("spec is invalid");
    const s = setup(() => new TerminalError("cannot reconcile", { cause }));
    s.controller.enqueue("ns/bad");
    void s.start();
    await waitUntil(() => s.calls.length === 1, "the reconcile");
    await settle();
    expect(s.clock.pendingTimers()).toBe(0);
    s.clock.advance(1_000_000);
    await settle();
    expect(s.calls).toHaveLength(1);
    const [entry] = s.logger.entries.filter((e) => e.level === "error");
    expect(entry?.message).toMatch(/terminal/);
    expect(entry?.fields).toMatchObject({ controller: "test", namespace: "ns", name: "bad" });
  });

  it("treats an error wrapping a TerminalError (cause chain) as terminal", async () => {
    const wrapped = new Error("outer", { cause: new TerminalError("inner") });
    expect(isTerminalError(wrapped)).toBe(true);
    expect(isTerminalError(new Error("plain", { cause: new Error("x") }))).toBe(false);
    expect(isTerminalError("not an error")).toBe(false);
    const s = setup(() => wrapped);
    s.controller.enqueue("a");
    void s.start();
    await waitUntil(() => s.calls.length === 1, "the reconcile");
    await settle();
    expect(s.clock.pendingTimers()).toBe(0);
  });

  it("survives a reconcile that throws synchronously: the same worker goes on", async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const controller = new Controller({
      name: "sync-throw",
      clock,
      logger: new CapturingLogger(),
      reconcile: (key) => {
        seen.push(key);
        if (key === "bad") throw new Error("synchronous throw");
      },
    });
    controller.enqueue("bad");
    controller.enqueue("good");
    const stop = new AbortController();
    stops.push(stop);
    const run = controller.run(stop.signal);
    runs.push(run);
    await waitUntil(() => seen.length === 2, "both keys");
    await clock.waitForTimers(1);
    clock.advance(5);
    await waitUntil(() => seen.length === 3, "the retry of the bad key");
    expect(seen).toEqual(["bad", "good", "bad"]);
    stop.abort();
    await run;
  });
});

describe("Controller concurrency and shutdown", () => {
  it("never reconciles one key twice at once, and reconciles it again after an add in flight", async () => {
    const gates = new Map<string, ReturnType<typeof deferred<void>>>();
    const active = new Map<string, number>();
    let maxPerKey = 0;
    let maxTotal = 0;
    const s = setup(async (key) => {
      active.set(key, (active.get(key) ?? 0) + 1);
      maxPerKey = Math.max(maxPerKey, active.get(key) ?? 0);
      maxTotal = Math.max(
        maxTotal,
        [...active.values()].reduce((a, b) => a + b, 0),
      );
      const gate = deferred();
      gates.set(key, gate);
      await gate.promise;
      active.set(key, (active.get(key) ?? 1) - 1);
    }, 4);
    for (const k of ["a", "b", "c"]) s.controller.enqueue(k);
    void s.start();
    await waitUntil(() => s.calls.length === 3, "three keys in flight");
    // While "a" is in flight it is added three times: one more reconcile after it ends.
    for (let i = 0; i < 3; i++) s.controller.enqueue("a");
    await settle();
    expect(s.calls).toHaveLength(3);
    gates.get("a")?.resolve();
    await waitUntil(() => s.calls.length === 4, "a again");
    expect(s.calls[3]?.key).toBe("a");
    for (const k of ["a", "b", "c"]) gates.get(k)?.resolve();
    await settle();
    expect(s.calls).toHaveLength(4);
    expect(maxPerKey).toBe(1);
    expect(maxTotal).toBe(3);
  });

  it("randomized: 8 workers, 2000 random adds, never one key twice at once, no add lost", async () => {
    const random = new SeededRandom(20261124);
    const keys = Array.from({ length: 25 }, (_, i) => `ns/k${i}`);
    const active = new Set<string>();
    const lastStart = new Map<string, number>();
    const lastAdd = new Map<string, number>();
    let step = 0;
    let overlaps = 0;
    const controller = new Controller({
      name: "random",
      workers: 8,
      clock: new FakeClock(),
      logger: new CapturingLogger(),
      reconcile: async (key) => {
        if (active.has(key)) overlaps++;
        active.add(key);
        lastStart.set(key, ++step);
        for (let i = random.int(0, 4); i > 0; i--) await flush();
        active.delete(key);
      },
    });
    const stop = new AbortController();
    stops.push(stop);
    const run = controller.run(stop.signal);
    runs.push(run);
    for (let i = 0; i < 2_000; i++) {
      const key = keys[random.int(0, keys.length)] as string;
      lastAdd.set(key, ++step);
      controller.enqueue(key);
      if (random.next() < 0.3) await flush();
    }
    await waitUntil(
      () => active.size === 0 && keys.every((k) => (lastStart.get(k) ?? 0) > (lastAdd.get(k) ?? 0)),
      "every key reconciled after its last add",
    );
    expect(overlaps).toBe(0);
    stop.abort();
    await run;
  });

  it("on abort: takes no more keys, aborts in-flight reconciles' signal, waits for them, then resolves", async () => {
    const clock = new FakeClock();
    const started: string[] = [];
    const finish = deferred();
    let seenSignal: AbortSignal | undefined;
    const controller = new Controller({
      name: "shutdown",
      clock,
      logger: new CapturingLogger(),
      reconcile: async (key, signal) => {
        started.push(key);
        seenSignal = signal;
        await finish.promise;
      },
    });
    controller.enqueue("a");
    controller.enqueue("b");
    controller.enqueueAfter("later", 60_000);
    const stop = new AbortController();
    let resolved = false;
    const run = controller.run(stop.signal).then(() => {
      resolved = true;
    });
    await waitUntil(() => started.length === 1, "the first reconcile");
    expect(clock.pendingTimers()).toBe(1);
    stop.abort();
    await settle();
    expect(seenSignal?.aborted).toBe(true);
    expect(resolved).toBe(false);
    finish.resolve();
    await run;
    expect(started).toEqual(["a"]);
    // The queue is shut down: its delayed item's timer is gone and adds are ignored.
    expect(clock.pendingTimers()).toBe(0);
    controller.enqueue("c");
    controller.enqueueAfter("d", 10);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("leaves no real-clock timer behind once run resolves (delayed and backed-off keys)", async () => {
    // The real clock, counting the timers armed through it and not yet fired or cancelled.
    let live = 0;
    const countingClock: Clock = {
      now: () => realClock.now(),
      setTimer: (ms, callback) => {
        live++;
        let open = true;
        const close = (): void => {
          if (open) live--;
          open = false;
        };
        const handle = realClock.setTimer(ms, () => {
          close();
          callback();
        });
        return {
          cancel: () => {
            close();
            handle.cancel();
          },
        };
      },
      sleep: (ms, signal) => realClock.sleep(ms, signal),
    };
    const seen: string[] = [];
    const controller = new Controller({
      name: "real-clock",
      clock: countingClock,
      logger: new CapturingLogger(),
      reconcile: (key) => {
        seen.push(key);
        if (key === "failing") throw new Error("retry me");
        return { requeueAfterMs: 3_600_000 };
      },
    });
    controller.enqueueAfter("delayed", 3_600_000);
    controller.enqueue("failing");
    controller.enqueue("requeued");
    const stop = new AbortController();
    const run = controller.run(stop.signal);
    await waitUntil(() => seen.length >= 2, "both reconciles"); // "failing" is retried at once
    expect(live).toBeGreaterThan(0);
    stop.abort();
    await run;
    expect(live).toBe(0);
  });

  it("does not log a reconcile that rejects with the shutdown's abort reason as an error", async () => {
    const logger = new CapturingLogger();
    const controller = new Controller({
      name: "abortable",
      clock: new FakeClock(),
      logger,
      reconcile: (_key, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        }),
    });
    controller.enqueue("a");
    const stop = new AbortController();
    const run = controller.run(stop.signal);
    await settle();
    stop.abort();
    await run;
    expect(logger.entries.filter((e) => e.level === "error")).toEqual([]);
    expect(logger.entries.some((e) => e.level === "debug" && /aborted/.test(e.message))).toBe(true);
  });

  it("resolves at once when aborted before the caches sync, without reconciling", async () => {
    const { informer, lw, run } = setupInformer([obj("ns/a")]);
    const release = lw.holdLists();
    const s = setup();
    s.controller.watch(informer);
    void run();
    const controllerRun = s.start();
    await settle();
    s.stop.abort();
    await controllerRun;
    expect(s.calls).toEqual([]);
    release();
  });
});

describe("Controller sources and lifecycle", () => {
  it("waits for the watched informer to sync before the first reconcile, then sees every initial key", async () => {
    const { informer, lw, run } = setupInformer([obj("ns/a"), obj("ns/b")]);
    const release = lw.holdLists();
    const s = setup(undefined, 2);
    s.controller.watch(informer);
    s.controller.enqueue("manual");
    void s.start();
    void run();
    await settle();
    expect(s.calls).toEqual([]);
    release();
    await waitUntil(() => s.calls.length === 3, "the three keys");
    expect(s.calls.map((c) => c.key).sort()).toEqual(["manual", "ns/a", "ns/b"]);
    lw.update(obj("ns/a"));
    await waitUntil(() => s.calls.length === 4, "the update of ns/a");
    expect(s.calls[3]?.key).toBe("ns/a");
  });

  it("rejects a second run and watches after it has stopped", async () => {
    const s = setup();
    const first = s.start();
    await expect(s.controller.run(new AbortController().signal)).rejects.toMatchObject({
      name: "ControllerLifecycleError",
      reason: "AlreadyStarted",
    });
    s.stop.abort();
    await first;
    const { informer } = setupInformer();
    expect(() => s.controller.watch(informer)).toThrow(ControllerLifecycleError);
  });

  it("rejects with CacheSyncFailed when a watched informer stops before it synced", async () => {
    const { informer, lw, run, stop } = setupInformer([obj("ns/a")]);
    lw.holdLists();
    const s = setup();
    s.controller.watch(informer);
    void run();
    const controllerRun = s.start();
    await settle();
    await stop();
    await expect(controllerRun).rejects.toMatchObject({ reason: "CacheSyncFailed" });
  });

  it("rejects with CacheSyncTimeout naming the informer after cacheSyncTimeoutMs on its clock", async () => {
    const { informer } = setupInformer([obj("ns/a")]); // never run: it never syncs
    const clock = new FakeClock();
    const controller = new Controller({
      name: "stuck",
      clock,
      logger: new CapturingLogger(),
      cacheSyncTimeoutMs: 30_000,
      reconcile: () => undefined,
    });
    controller.watch(informer);
    const stop = new AbortController();
    stops.push(stop);
    let settled = false;
    const run = controller.run(stop.signal).finally(() => (settled = true));
    run.catch(() => undefined);
    await clock.waitForTimers(1);
    clock.advance(29_999);
    await settle();
    expect(settled).toBe(false);
    clock.advance(1);
    const error: unknown = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControllerLifecycleError);
    expect(error).toMatchObject({
      reason: "CacheSyncTimeout",
      controller: "stuck",
      informers: ["objs"],
    });
    expect((error as Error).message).toContain("objs");
    expect(clock.pendingTimers()).toBe(0);
  });

  it("waits 2 minutes for its caches by default, as controller-runtime", async () => {
    const { informer } = setupInformer();
    const clock = new FakeClock();
    const controller = new Controller({ name: "d", clock, reconcile: () => undefined });
    controller.watch(informer);
    const run = controller.run(new AbortController().signal);
    run.catch(() => undefined);
    await clock.waitForTimers(1);
    expect(clock.nextTimerAt()).toBe(clock.now() + 120_000);
    clock.advance(120_000);
    await expect(run).rejects.toMatchObject({ reason: "CacheSyncTimeout" });
  });

  it("refuses watchOwned without an owner group and kind (from JavaScript or a cast)", () => {
    const { informer } = setupInformer();
    const controller = new Controller({ name: "o", reconcile: () => undefined });
    const watchOwned = (owner: object): void =>
      controller.watchOwned(informer, owner as { group: string; kind: string });
    expect(() => watchOwned({})).toThrow(TypeError);
    expect(() => watchOwned({ group: "apps" })).toThrow(TypeError);
    expect(() => watchOwned({ group: "apps", kind: "" })).toThrow(TypeError);
    expect(() => watchOwned({ kind: "ReplicaSet" })).toThrow(TypeError);
    expect(() => watchOwned({ group: "", kind: "Pod" })).not.toThrow();
  });

  it("reports its queue's metrics under the controller's name", async () => {
    const names = new Set<string>();
    let adds = 0;
    const noop = { inc: () => undefined, dec: () => undefined, set: () => undefined };
    const metrics: MetricsProvider = {
      newDepthMetric: (name) => (names.add(name), noop),
      newAddsMetric: () => ({ inc: () => void adds++ }),
      newLatencyMetric: () => ({ observe: () => undefined }),
      newWorkDurationMetric: () => ({ observe: () => undefined }),
      newUnfinishedWorkSecondsMetric: () => noop,
      newLongestRunningProcessorSecondsMetric: () => noop,
      newRetriesMetric: () => noop,
    };
    const clock = new FakeClock();
    const controller = new Controller({ name: "measured", clock, metrics, reconcile: () => {} });
    controller.enqueue("a");
    controller.enqueue("b");
    expect([...names]).toEqual(["measured"]);
    expect(adds).toBe(2);
    const stop = new AbortController();
    stop.abort();
    await controller.run(stop.signal);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("yields to the event loop after a slice of a backlog of synchronous reconciles", async () => {
    const clock = new FakeClock();
    let reconciled = 0;
    const controller = new Controller({
      name: "backlog",
      clock,
      logger: new CapturingLogger(),
      reconcile: () => {
        reconciled++;
        clock.advance(1); // each reconcile takes 1 ms of the controller's clock
      },
    });
    for (let i = 0; i < 1000; i++) controller.enqueue(`k${i}`);
    let reconciledWhenTheLoopRan: number | undefined;
    setImmediate(() => {
      reconciledWhenTheLoopRan = reconciled;
    });
    const stop = new AbortController();
    stops.push(stop);
    runs.push(controller.run(stop.signal));
    await waitUntil(() => reconciled === 1000, "every key reconciled");
    expect(reconciledWhenTheLoopRan).toBeGreaterThan(0);
    expect(reconciledWhenTheLoopRan).toBeLessThanOrEqual(EVENT_LOOP_SLICE_MS + 1);
  });

  it("validates its options", () => {
    const reconcile = (): void => undefined;
    expect(() => new Controller({ name: "", reconcile })).toThrow(TypeError);
    expect(() => new Controller({ name: "x", reconcile, workers: 0 })).toThrow(RangeError);
    expect(() => new Controller({ name: "x", reconcile, workers: 1.5 })).toThrow(RangeError);
    expect(new Controller({ name: "x", reconcile }).workers).toBe(1);
    expect(() => new Controller({ name: "x", reconcile, cacheSyncTimeoutMs: 0 })).toThrow(
      RangeError,
    );
    expect(() => new Controller({ name: "x", reconcile, cacheSyncTimeoutMs: NaN })).toThrow(
      RangeError,
    );
  });
});
