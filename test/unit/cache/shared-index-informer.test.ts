import { afterEach, describe, expect, it } from "vitest";
import { Lister, type ResourceEventHandler, DeletedFinalStateUnknown } from "kubekit";
import { deepFreeze } from "../../../packages/kubekit/src/cache/mutation-detector.js";
import {
  InformerLifecycleError,
  SharedIndexInformer,
  stripManagedFields,
} from "../../../packages/kubekit/src/cache/shared-index-informer.js";
import { FakeClock } from "kubekit/testing";
import type { Obj } from "./fixtures.js";
import { deferred, obj, show, track } from "./fixtures.js";
import {
  CapturingLogger,
  FakeListerWatcher,
  RecordingHandler,
  settle,
  waitUntil,
  setupInformer,
  stopInformers,
} from "./shared-index-informer-harness.js";

afterEach(stopInformers);

type QueueKind = "in-order" | "delta-fifo";

const setup = setupInformer;

function labelled(key: string, labels: Record<string, string>): Obj {
  const o = obj(key);
  return { ...o, metadata: { ...o.metadata, labels } };
}

function keyOf(o: Obj): string {
  return show(o).split("@")[0] ?? "";
}

/**
 * Replays a handler's raw notifications onto a map and checks they form a consistent stream:
 * no add of a key it holds, every update's old object is the one it holds, every delete is
 * of a key it holds. Returns the resulting state.
 */
function replay(handler: RecordingHandler): Map<string, Obj> {
  const state = new Map<string, Obj>();
  for (const { type, args } of handler.raw) {
    if (type === "add") {
      const o = args[0] as Obj;
      expect(state.has(keyOf(o)), `add of held key ${keyOf(o)}`).toBe(false);
      state.set(keyOf(o), o);
    } else if (type === "update") {
      const [oldObj, newObj] = args as [Obj, Obj];
      expect(state.get(keyOf(oldObj)), `update of ${keyOf(oldObj)}`).toBe(oldObj);
      state.set(keyOf(newObj), newObj);
    } else {
      const o = args[0] as Obj | DeletedFinalStateUnknown<Obj>;
      const key = o instanceof DeletedFinalStateUnknown ? o.key : keyOf(o);
      expect(state.has(key), `delete of ${key}`).toBe(true);
      state.delete(key);
    }
  }
  return state;
}

describe.each<QueueKind>(["in-order", "delta-fifo"])("SharedIndexInformer (%s queue)", (queue) => {
  it("delivers the initial list as initial adds, then watch events in order", async () => {
    const { lw, informer, run } = setup([obj("ns/a"), obj("ns/b")], { queue });
    const h = new RecordingHandler();
    const reg = informer.addEventHandler(h);
    expect(informer.hasSynced()).toBe(false);
    expect(reg.hasSynced()).toBe(false);
    void run();
    expect(informer.isStarted).toBe(true);
    expect(await reg.waitForSync()).toBe(true);
    expect(informer.hasSynced()).toBe(true);
    expect(h.events).toEqual(["add ns/a@101 initial", "add ns/b@102 initial"]);

    await lw.watchOpened();
    lw.update(obj("ns/a"));
    lw.create(obj("ns/c"));
    lw.delete("ns/b");
    await waitUntil(() => h.events.length === 5, "the watch events");
    expect(h.events.slice(2)).toEqual([
      "update ns/a@101 -> ns/a@103",
      "add ns/c@104",
      "delete ns/b@105",
    ]);
    expect(informer.indexer.list().map(show).sort()).toEqual(["ns/a@103", "ns/c@104"]);
    expect(informer.lastSyncResourceVersion).toBe("105");
  });

  it("moves the cache's resourceVersion with every processed event and notifies waiters", async () => {
    const { lw, informer, run } = setup([obj("ns/a"), obj("ns/b")], { queue });
    const atLeast = (rv: number) => (cached: string) => cached !== "" && Number(cached) >= rv;
    void run();
    expect(await informer.waitForCacheResourceVersion(atLeast(102))).toBe(true);
    await lw.watchOpened();
    const observed: string[] = [];
    const seen = (target: string) =>
      informer.waitForCacheResourceVersion(atLeast(Number(target))).then((ok) => {
        observed.push(`${target}:${ok}:${informer.indexer.lastSyncResourceVersion}`);
        return informer.indexer.getByKey("ns/a");
      });
    const updated = lw.update(obj("ns/a"));
    expect(await seen(updated.metadata.resourceVersion ?? "")).toEqual(updated);
    const created = lw.create(obj("ns/c"));
    await seen(created.metadata.resourceVersion ?? "");
    const deleted = lw.delete("ns/b");
    await seen(deleted.metadata.resourceVersion ?? "");
    expect(observed).toEqual(["103:true:103", "104:true:104", "105:true:105"]);
    await expect(
      informer.waitForCacheResourceVersion(() => {
        throw new Error("bad check");
      }),
    ).rejects.toThrow("bad check");
    const aborted = new AbortController();
    const pending = informer.waitForCacheResourceVersion(atLeast(999), aborted.signal);
    aborted.abort();
    expect(await pending).toBe(false);
  });

  it("updates the cache before the handler is called", async () => {
    const { lw, informer, run } = setup([obj("ns/a")], { queue });
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => {
        const cached = informer.indexer.getByKey(keyOf(o));
        seen.push(`add ${show(o)} cached=${cached ? show(cached) : "-"}`);
      },
      onUpdate: (_old, o) => {
        const cached = informer.indexer.getByKey(keyOf(o));
        seen.push(`update ${show(o)} cached=${cached ? show(cached) : "-"}`);
      },
      onDelete: (o) => {
        const key = o instanceof DeletedFinalStateUnknown ? o.key : keyOf(o);
        seen.push(`delete ${key} cached=${informer.indexer.getByKey(key) ? "yes" : "-"}`);
      },
    });
    void run();
    await informer.waitForSync();
    await lw.watchOpened();
    lw.update(obj("ns/a"));
    await waitUntil(() => seen.length === 2, "the update");
    lw.delete("ns/a");
    await waitUntil(() => seen.length === 3, "the delete");
    expect(seen).toEqual([
      "add ns/a@101 cached=ns/a@101",
      "update ns/a@102 cached=ns/a@102",
      "delete ns/a cached=-",
    ]);
  });

  it("keeps a slow handler from blocking another handler or the cache; its backlog drains", async () => {
    const { lw, informer, run } = setup([obj("ns/first")], { queue });
    const release = deferred();
    const slow = new RecordingHandler();
    slow.gate = release.promise;
    const fast = new RecordingHandler();
    const slowReg = informer.addEventHandler(slow);
    const fastReg = informer.addEventHandler(fast);
    void run();
    expect(await fastReg.waitForSync()).toBe(true);
    await lw.watchOpened();
    for (let i = 0; i < 50; i++) lw.create(obj(`ns/o${i}`));

    await waitUntil(() => fast.events.length === 51, "the fast handler to get everything");
    expect(informer.indexer.listKeys()).toHaveLength(51);
    expect(slow.events).toEqual([]);
    expect(slowReg.backlog).toBe(50); // the first add is in progress, not buffered
    expect(fastReg.backlog).toBe(0);
    expect(slowReg.hasSynced()).toBe(false);
    expect(fastReg.hasSynced()).toBe(true);

    release.resolve();
    await waitUntil(() => slow.events.length === 51, "the slow handler to drain");
    expect(slow.events).toEqual(fast.events);
    expect(slowReg.backlog).toBe(0);
    expect(slowReg.hasSynced()).toBe(true);
    expect(slow.maxInFlight).toBe(1);
  });

  it("awaits a handler's promise before delivering its next notification", async () => {
    const { lw, informer, run } = setup([], { queue });
    const log: string[] = [];
    const gates = [deferred(), deferred()];
    let calls = 0;
    informer.addEventHandler({
      onAdd: async (o) => {
        const gate = gates[calls++];
        log.push(`start ${show(o)}`);
        await gate?.promise;
        log.push(`end ${show(o)}`);
      },
    });
    void run();
    await informer.waitForSync();
    await lw.watchOpened();
    lw.create(obj("ns/a"));
    lw.create(obj("ns/b"));
    await waitUntil(() => log.length === 1, "the first call");
    await settle();
    expect(log).toEqual(["start ns/a@101"]);
    gates[0]?.resolve();
    await waitUntil(() => log.length === 3, "the second call");
    expect(log).toEqual(["start ns/a@101", "end ns/a@101", "start ns/b@102"]);
    gates[1]?.resolve();
    await waitUntil(() => log.length === 4, "the second call to end");
  });

  it("replays the cache to a late handler before any later event", async () => {
    const { lw, informer, run } = setup([obj("ns/a"), obj("ns/b")], { queue });
    void run();
    await informer.waitForSync();
    await lw.watchOpened();
    lw.update(obj("ns/a"));
    lw.create(obj("ns/c"));
    lw.delete("ns/b");
    // The events sit in the watch stream: the cache still holds a@101 and b@102.
    const late = new RecordingHandler();
    const reg = informer.addEventHandler(late);
    expect(reg.hasSynced()).toBe(false);
    await waitUntil(() => late.events.length === 5, "the replay and the events");
    expect(late.events).toEqual([
      "add ns/a@101 initial",
      "add ns/b@102 initial",
      "update ns/a@101 -> ns/a@103",
      "add ns/c@104",
      "delete ns/b@105",
    ]);
    expect(await reg.waitForSync()).toBe(true);
  });

  it("gives a handler added mid-stream a gapless, duplicate-free view", async () => {
    const initial = Array.from({ length: 20 }, (_, i) => obj(`ns/o${i}`));
    const { lw, informer, run } = setup(initial, { queue });
    const late = new RecordingHandler();
    let updates = 0;
    let lateAdded = false;
    informer.addEventHandler({
      onUpdate: () => {
        // Registered from inside another handler, at an arbitrary point of the stream.
        if (++updates === 37) {
          lateAdded = true;
          informer.addEventHandler(late);
        }
      },
    });
    void run();
    await informer.waitForSync();
    await lw.watchOpened();
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 20; i++) {
        if ((i + round) % 7 === 0 && lw.objects.has(`ns/o${i}`)) lw.delete(`ns/o${i}`);
        else if (lw.objects.has(`ns/o${i}`)) lw.update(obj(`ns/o${i}`));
        else lw.create(obj(`ns/o${i}`));
      }
    }
    await waitUntil(() => lateAdded, "the late handler to be added");
    // Everything before this sentinel reached the late handler once it sees the sentinel.
    lw.create(obj("ns/sentinel"));
    await waitUntil(() => late.events.some((e) => e.startsWith("add ns/sentinel")), "the sentinel");
    const view = replay(late);
    const cached = new Map(informer.indexer.list().map((o) => [keyOf(o), o]));
    expect([...view.keys()].sort()).toEqual([...cached.keys()].sort());
    for (const [key, o] of cached) expect(view.get(key)).toBe(o);
    expect(late.raw[0]).toMatchObject({ type: "add", args: [expect.anything(), true] });
    expect(late.raw.some((n) => n.type !== "add")).toBe(true);
  });

  it("delivers to a handler only until it is removed", async () => {
    const { lw, informer, run } = setup([obj("ns/a")], { queue });
    const kept = new RecordingHandler();
    const removed = new RecordingHandler();
    informer.addEventHandler(kept);
    const reg = informer.addEventHandler(removed);
    void run();
    await informer.waitForSync();
    await lw.watchOpened();
    await waitUntil(() => removed.events.length === 1, "the initial add");
    reg.remove();
    reg.remove();
    informer.removeEventHandler(reg);
    lw.create(obj("ns/b"));
    await waitUntil(() => kept.events.length === 2, "the kept handler");
    await settle();
    expect(removed.events).toEqual(["add ns/a@101 initial"]);
  });
});

describe("SharedIndexInformer handlers", () => {
  it("drops the backlog of a removed handler; the call in progress finishes", async () => {
    const { lw, informer, run } = setup([]);
    const release = deferred();
    const slow = new RecordingHandler();
    slow.gate = release.promise;
    const reg = informer.addEventHandler(slow);
    void run();
    await informer.waitForSync();
    await lw.watchOpened();
    for (let i = 0; i < 5; i++) lw.create(obj(`ns/o${i}`));
    await waitUntil(() => reg.backlog === 4, "the backlog");
    reg.remove();
    expect(reg.backlog).toBe(0);
    release.resolve();
    await settle();
    expect(slow.events).toEqual(["add ns/o0@101"]);
  });

  it("logs a handler that throws or rejects and goes on", async () => {
    const { lw, logger, informer, run } = setup([obj("ns/a"), obj("ns/b")]);
    const seen: string[] = [];
    const reg = informer.addEventHandler({
      onAdd: (o) => {
        seen.push(show(o));
        if (o.metadata.name === "a") throw new Error("sync boom");
      },
      onUpdate: async (_old, o) => {
        seen.push(`update ${show(o)}`);
        throw new Error("async boom");
      },
    });
    void run();
    expect(await reg.waitForSync()).toBe(true);
    await lw.watchOpened();
    lw.update(obj("ns/a"));
    lw.create(obj("ns/c"));
    await waitUntil(() => seen.length === 4, "the events after the failures");
    expect(seen).toEqual(["ns/a@101", "ns/b@102", "update ns/a@103", "ns/c@104"]);
    const errors = logger.entries.filter((e) => e.level === "error");
    expect(errors.map((e) => e.message)).toEqual([
      "objs: event handler failed on add",
      "objs: event handler failed on update",
    ]);
    expect((errors[1]?.fields as { error: Error }).error.message).toBe("async boom");
  });

  it("lets handlers implement only some callbacks", async () => {
    const { lw, informer, run } = setup([obj("ns/a")]);
    const deletes: string[] = [];
    const handler: ResourceEventHandler<Obj> = {
      onDelete: (o) => void deletes.push(o instanceof DeletedFinalStateUnknown ? o.key : show(o)),
    };
    const reg = informer.addEventHandler(handler);
    void run();
    expect(await reg.waitForSync()).toBe(true);
    await lw.watchOpened();
    lw.update(obj("ns/a"));
    lw.delete("ns/a");
    await waitUntil(() => deletes.length === 1, "the delete");
    expect(deletes).toEqual(["ns/a@103"]);
  });

  it("rejects a registration of another informer", () => {
    const a = setup().informer;
    const b = setup().informer;
    const reg = b.addEventHandler({});
    expect(() => a.removeEventHandler(reg)).toThrow(TypeError);
  });

  it("reports per-handler sync: informer synced AND the handler's initial adds processed", async () => {
    const { informer, run } = setup([obj("ns/a"), obj("ns/b")]);
    const release = deferred();
    const slow = new RecordingHandler();
    slow.gate = release.promise;
    const slowReg = informer.addEventHandler(slow);
    const fastReg = informer.addEventHandler({});
    expect(slowReg.hasSynced()).toBe(false);
    void run();
    expect(await informer.waitForSync()).toBe(true);
    expect(await fastReg.waitForSync()).toBe(true);
    expect(slowReg.hasSynced()).toBe(false);
    const synced = slowReg.waitForSync();
    const state = track(synced);
    await settle();
    expect(state.settled).toBe(false);
    release.resolve();
    expect(await synced).toBe(true);
    expect(slow.events).toEqual(["add ns/a@101 initial", "add ns/b@102 initial"]);
  });

  it("resolves waitForSync false when its signal aborts or the handler is removed", async () => {
    const { informer } = setup([obj("ns/a")]);
    const reg = informer.addEventHandler({});
    const controller = new AbortController();
    const aborted = reg.waitForSync(controller.signal);
    controller.abort();
    expect(await aborted).toBe(false);
    const removed = reg.waitForSync();
    reg.remove();
    expect(await removed).toBe(false);
    expect(await informer.waitForSync(AbortSignal.abort())).toBe(false);
  });
});

describe("SharedIndexInformer lifecycle", () => {
  it("runs once; a second run rejects with a typed error", async () => {
    const { informer, run, controller } = setup();
    const first = run();
    await expect(informer.run(controller.signal)).rejects.toMatchObject({
      name: "InformerLifecycleError",
      reason: "AlreadyStarted",
      informer: "objs",
    });
    controller.abort();
    await first;
    expect(informer.isStopped).toBe(true);
  });

  it("resolves run only after a handler call in progress has finished", async () => {
    const { lw, informer, run, controller } = setup([obj("ns/a")]);
    const release = deferred();
    const slow = new RecordingHandler();
    slow.gate = release.promise;
    informer.addEventHandler(slow);
    const done = track(run());
    await informer.waitForSync();
    await lw.watchOpened();
    controller.abort();
    await settle();
    expect(done.settled).toBe(false);
    expect(informer.isStopped).toBe(false);
    release.resolve();
    await waitUntil(() => done.settled, "run to resolve");
    expect(informer.isStopped).toBe(true);
    expect(lw.openWatches()).toEqual([]);
  });

  it("while stopping refuses handlers but still accepts indices", async () => {
    const { lw, informer, run, controller } = setup([obj("ns/a")]);
    const release = deferred();
    const slow = new RecordingHandler();
    slow.gate = release.promise;
    informer.addEventHandler(slow);
    expect(informer.isStarted).toBe(false);
    const done = track(run());
    expect(informer.isStarted).toBe(true);
    await informer.waitForSync();
    await lw.watchOpened();
    controller.abort();
    await settle();
    expect(done.settled).toBe(false);
    expect(informer.isStarted).toBe(true);
    expect(informer.isStopped).toBe(false);
    expect(() => informer.addEventHandler({})).toThrow(
      expect.objectContaining({ reason: "Stopped" }),
    );
    informer.addIndexers({ byName: () => ["x"] });
    expect(informer.indexer.byIndex("byName", "x")).toHaveLength(1);
    release.resolve();
    await waitUntil(() => done.settled, "run to resolve");
    expect(() => informer.addIndexers({ other: () => [] })).toThrow(
      expect.objectContaining({ reason: "Stopped" }),
    );
  });

  it("refuses configuration after run and handlers after stop", async () => {
    const { informer, run, stop } = setup();
    void run();
    expect(() => informer.setTransform((o) => o)).toThrow(InformerLifecycleError);
    expect(() => informer.setWatchErrorHandler(() => undefined)).toThrow(InformerLifecycleError);
    expect(await informer.waitForSync()).toBe(true);
    await stop();
    let caught: unknown;
    try {
      informer.addEventHandler({});
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InformerLifecycleError);
    expect((caught as InformerLifecycleError).reason).toBe("Stopped");
    expect(() => informer.addIndexers({ x: () => [] })).toThrow(InformerLifecycleError);
    expect(await informer.waitForSync()).toBe(true);
  });

  it("resolves waitForSync false when the informer stops before syncing", async () => {
    const informer = new SharedIndexInformer<Obj>({
      listerWatcher: {
        list: (_options, signal) =>
          new Promise((_resolve, reject) =>
            signal?.addEventListener("abort", () => reject(signal.reason), { once: true }),
          ),
        watch: () => {
          throw new Error("not reached");
        },
      },
      clock: new FakeClock(),
      logger: new CapturingLogger(),
    });
    const controller = new AbortController();
    const done = informer.run(controller.signal);
    const synced = informer.waitForSync();
    const reg = informer.addEventHandler({});
    const regSynced = reg.waitForSync();
    controller.abort();
    await done;
    expect(await synced).toBe(false);
    expect(await regSynced).toBe(false);
  });

  it("rejects invalid options", () => {
    const lw = new FakeListerWatcher();
    expect(() => new SharedIndexInformer<Obj>({ listerWatcher: lw, resyncPeriodMs: -1 })).toThrow(
      RangeError,
    );
    expect(
      () =>
        new SharedIndexInformer<Obj>({
          listerWatcher: lw,
          queue: "lifo" as unknown as "in-order",
        }),
    ).toThrow(RangeError);
    const informer = new SharedIndexInformer<Obj>({ listerWatcher: lw });
    expect(() => informer.addEventHandler({}, { resyncPeriodMs: Number.NaN })).toThrow(RangeError);
  });

  it("reports list/watch errors to the watch error handler", async () => {
    const { lw, informer, run } = setup([obj("ns/a")]);
    const errors: unknown[] = [];
    informer.setWatchErrorHandler((err) => errors.push(err));
    void run();
    await informer.waitForSync();
    await lw.watchOpened();
    lw.failWatches();
    await waitUntil(() => errors.length === 1, "the error");
    expect(errors[0]).toMatchObject({ name: "StatusError" });
  });
});

describe("SharedIndexInformer indexers, transform and mutation detection", () => {
  it("always has the namespace index, plus the extra ones, also added while running", async () => {
    const { lw, informer, run } = setup([labelled("ns1/a", { app: "web" }), obj("ns2/b")], {
      indexers: { app: (o) => (o.metadata.labels?.["app"] ? [o.metadata.labels["app"]] : []) },
    });
    void run();
    await informer.waitForSync();
    expect(informer.indexer.byIndex("namespace", "ns1").map(show)).toEqual(["ns1/a@101"]);
    expect(informer.indexer.byIndex("app", "web").map(show)).toEqual(["ns1/a@101"]);
    informer.addIndexers({ name: (o) => [o.metadata.name ?? ""] });
    expect(informer.indexer.byIndex("name", "b").map(show)).toEqual(["ns2/b@102"]);
    await lw.watchOpened();
    lw.create(obj("ns2/c"));
    await waitUntil(() => informer.indexer.byIndex("name", "c").length === 1, "the new object");
  });

  it("applies the transform before caching and before handlers", async () => {
    const withFields = {
      metadata: {
        namespace: "ns",
        name: "a",
        managedFields: [{ manager: "kubectl" }],
      },
    } as unknown as Obj;
    const { lw, informer, run } = setup([withFields]);
    informer.setTransform(stripManagedFields);
    const seen: Obj[] = [];
    informer.addEventHandler({ onAdd: (o) => void seen.push(o) });
    void run();
    await informer.waitForSync();
    await waitUntil(() => seen.length === 1, "the add");
    expect(seen[0]?.metadata).not.toHaveProperty("managedFields");
    expect(informer.indexer.getByKey("ns/a")).toBe(seen[0]);
    // The ListerWatcher's own object was not modified.
    expect(lw.objects.get("ns/a")?.metadata).toHaveProperty("managedFields");
  });

  it("uses the transform option, counting each relist and watch object once", async () => {
    let calls = 0;
    const { lw, informer, run } = setup([obj("ns/a")], {
      transform: (o) => {
        calls++;
        return { ...o, transformed: (o.transformed ?? 0) + 1 };
      },
    });
    void run();
    await informer.waitForSync();
    await lw.watchOpened();
    lw.create(obj("ns/b"));
    await waitUntil(() => informer.indexer.listKeys().length === 2, "the add");
    expect(informer.indexer.list().map(show).sort()).toEqual(["ns/a@101+t1", "ns/b@102+t1"]);
    expect(calls).toBe(2);
  });

  it("deep-freezes cached objects with detectMutations, so mutating them throws", async () => {
    const { informer, run } = setup([labelled("ns/a", { app: "web" })], {
      detectMutations: true,
    });
    const handed: Obj[] = [];
    informer.addEventHandler({ onAdd: (o) => void handed.push(o) });
    void run();
    await informer.waitForSync();
    await waitUntil(() => handed.length === 1, "the add");
    const lister = new Lister(informer.indexer, { group: "", resource: "pods" });
    const listed = lister.namespace("ns").get("a") as {
      metadata: { labels: Record<string, string> };
    };
    expect(() => {
      listed.metadata.labels["app"] = "db";
    }).toThrow(TypeError);
    expect(() => {
      (handed[0] as { metadata: { name: string } }).metadata.name = "x";
    }).toThrow(TypeError);
    expect(listed.metadata.labels["app"]).toBe("web");
  });

  it("hands out mutable objects without detectMutations", async () => {
    const { informer, run } = setup([labelled("ns/a", { app: "web" })]);
    void run();
    await informer.waitForSync();
    const cached = informer.indexer.getByKey("ns/a");
    expect(Object.isFrozen(cached)).toBe(false);
  });
});

describe("stripManagedFields", () => {
  it("drops metadata.managedFields without mutating its argument", () => {
    const input = deepFreeze({
      kind: "Pod",
      metadata: { name: "a", managedFields: [{ manager: "m" }], labels: { x: "y" } },
      spec: { nodeName: "n" },
    });
    const out = stripManagedFields(input);
    expect(out).toEqual({
      kind: "Pod",
      metadata: { name: "a", labels: { x: "y" } },
      spec: { nodeName: "n" },
    });
    expect(out.spec).toBe(input.spec);
    expect(input.metadata.managedFields).toHaveLength(1);
    expect(stripManagedFields(out)).toBe(out);
  });

  it("passes through what has nothing to strip", () => {
    const noMeta = { kind: "X" };
    expect(stripManagedFields(noMeta)).toBe(noMeta);
    expect(stripManagedFields(null)).toBe(null);
    expect(stripManagedFields("s")).toBe("s");
    const arr = [1];
    expect(stripManagedFields(arr)).toBe(arr);
  });
});

describe("deepFreeze", () => {
  it("freezes nested objects and arrays in place and returns its argument", () => {
    const shared = { v: 1 };
    const value = { a: [{ b: 1 }, shared], c: { d: { e: "f" } }, again: shared };
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a[0])).toBe(true);
    expect(Object.isFrozen(value.c.d)).toBe(true);
    expect(Object.isFrozen(shared)).toBe(true);
    expect(() => {
      (value.a as unknown[]).push(3);
    }).toThrow(TypeError);
    expect(deepFreeze(5)).toBe(5);
  });

  it("freezes the children of an already shallow-frozen object", () => {
    const value = Object.freeze({ inner: { x: 1 } });
    deepFreeze(value);
    expect(Object.isFrozen(value.inner)).toBe(true);
  });
});
