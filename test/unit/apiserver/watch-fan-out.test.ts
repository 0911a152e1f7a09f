import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { LabelSelector, FieldSelector, type JsonObject } from "kubekit";
import { FakeClock } from "kubekit/testing";
import {
  objectFilter,
  type ListOptions,
} from "../../../packages/apiserver/src/endpoints/list-options.js";
import { ResourceRegistry } from "../../../packages/apiserver/src/registry/registry.js";
import type { ResourceEntry } from "../../../packages/apiserver/src/registry/registry.js";
import type { ServerContext } from "../../../packages/apiserver/src/server/server-context.js";
import { Storage, type StorageEvent } from "../../../packages/apiserver/src/storage/storage.js";
import { EventFrames, watchFrame } from "../../../packages/apiserver/src/watch/event-frames.js";
import {
  WatchFanOut,
  type FanOutWatcher,
} from "../../../packages/apiserver/src/watch/watch-fan-out.js";
import { WatchRegistry } from "../../../packages/apiserver/src/watch/watch-registry.js";
import {
  WatchStream,
  type WatchStreamOptions,
} from "../../../packages/apiserver/src/watch/watch-stream.js";

/**
 * The watch fan-out: one storage subscription dispatching by resource and namespace, frames
 * encoded once per change and shared, and each watch's frames written once per event-loop
 * turn, in order, within its backlog bounds.
 */

const CONFIGMAPS = "/configmaps";

function configMap(namespace: string, name: string, labels?: Record<string, string>): JsonObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
  };
}

/** Resolves after the current event-loop turn's `setImmediate` callbacks (the fan-out's flush) ran. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A watcher that records the keys of the changes it is offered. */
function recorder(resource: string, namespace: string): FanOutWatcher & { keys: string[] } {
  const keys: string[] = [];
  return {
    resource,
    namespace,
    keys,
    onStorageEvent: (event: StorageEvent) => keys.push(event.key),
    flush: () => undefined,
  };
}

/** A stand-in ServerResponse recording its writes; `backlog` is its writableLength. */
class FakeResponse {
  readonly writes: Buffer[] = [];
  ended: Buffer | undefined;
  backlog = 0;
  readonly socket = { destroy: (): void => undefined };

  get writableLength(): number {
    return this.backlog;
  }
  get text(): string {
    return Buffer.concat(this.writes).toString("utf8");
  }
  writeHead(): this {
    return this;
  }
  flushHeaders(): void {}
  write(data: Buffer): boolean {
    this.writes.push(data);
    return true;
  }
  end(data?: Buffer): void {
    this.ended = data ?? Buffer.alloc(0);
  }
  destroy(): void {}
  on(): this {
    return this;
  }
}

interface Harness {
  readonly ctx: ServerContext;
  readonly registry: WatchRegistry;
  readonly entry: ResourceEntry;
  watch(options?: Partial<WatchStreamOptions>): FakeResponse;
}

function harness(maxWatchBacklogBytes = 1024 * 1024): Harness {
  const resources = new ResourceRegistry();
  const ctx = {
    storage: new Storage(100),
    registry: resources,
    clock: new FakeClock(),
    behaviour: { bookmarkIntervalMs: 60_000, maxWatchBacklogBytes },
  } as unknown as ServerContext;
  const registry = new WatchRegistry(64 * 1024 * 1024);
  const entry = resources.lookup("", "v1", "configmaps") as ResourceEntry;
  return {
    ctx,
    registry,
    entry,
    watch(options = {}) {
      const res = new FakeResponse();
      const stream = new WatchStream(
        ctx,
        entry,
        res as unknown as ServerResponse,
        {
          format: { kind: "json" },
          namespace: "",
          selector: undefined,
          allowBookmarks: false,
          ...options,
        },
        registry,
      );
      registry.add(stream);
      stream.open(3_600_000);
      stream.follow();
      return res;
    },
  };
}

/** The frames of a response as `TYPE name`. */
function events(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const frame = JSON.parse(line) as { type: string; object: { metadata: { name?: string } } };
      return `${frame.type} ${frame.object.metadata.name ?? ""}`;
    });
}

describe("WatchFanOut", () => {
  it("offers a change only to the watches of its resource: every-namespace ones and its namespace's", () => {
    const storage = new Storage(100);
    const fanOut = new WatchFanOut();
    const all = recorder(CONFIGMAPS, "");
    const inA = recorder(CONFIGMAPS, "a");
    const inB = recorder(CONFIGMAPS, "b");
    const secrets = recorder("/secrets", "");
    for (const w of [all, inA, inB, secrets]) fanOut.follow(storage, w);
    storage.commit(CONFIGMAPS, "a/one", configMap("a", "one"));
    storage.commit(CONFIGMAPS, "b/two", configMap("b", "two"));
    storage.commit(CONFIGMAPS, "c/three", configMap("c", "three"));
    expect(all.keys).toEqual(["a/one", "b/two", "c/three"]);
    expect(inA.keys).toEqual(["a/one"]);
    expect(inB.keys).toEqual(["b/two"]);
    expect(secrets.keys).toEqual([]);
  });

  it("holds one storage subscription while any watch follows, none after the last leaves", () => {
    const storage = new Storage(100);
    let subscriptions = 0;
    const subscribe = storage.subscribe.bind(storage);
    storage.subscribe = (listener) => {
      subscriptions++;
      const unsubscribe = subscribe(listener);
      return () => {
        subscriptions--;
        unsubscribe();
      };
    };
    const fanOut = new WatchFanOut();
    const a = recorder(CONFIGMAPS, "");
    const b = recorder(CONFIGMAPS, "ns");
    const stopA = fanOut.follow(storage, a);
    const stopB = fanOut.follow(storage, b);
    expect([subscriptions, fanOut.size]).toEqual([1, 2]);
    stopA();
    stopA(); // a second call changes nothing
    expect([subscriptions, fanOut.size]).toEqual([1, 1]);
    storage.commit(CONFIGMAPS, "ns/x", configMap("ns", "x"));
    expect([a.keys, b.keys]).toEqual([[], ["ns/x"]]);
    stopB();
    expect([subscriptions, fanOut.size]).toEqual([0, 0]);
  });

  it("a watch that ends while a change is delivered does not stop the delivery to the others", () => {
    const storage = new Storage(100);
    const fanOut = new WatchFanOut();
    const later = recorder(CONFIGMAPS, "ns");
    let stop = (): void => undefined;
    const quitter: FanOutWatcher = {
      resource: CONFIGMAPS,
      namespace: "",
      onStorageEvent: () => stop(),
      flush: () => undefined,
    };
    stop = fanOut.follow(storage, quitter);
    fanOut.follow(storage, later);
    storage.commit(CONFIGMAPS, "ns/x", configMap("ns", "x"));
    expect(later.keys).toEqual(["ns/x"]);
    expect(fanOut.size).toBe(1);
  });

  it("flushes every queued watch once, after the current turn", async () => {
    const fanOut = new WatchFanOut();
    let flushes = 0;
    const w: FanOutWatcher = {
      resource: CONFIGMAPS,
      namespace: "",
      onStorageEvent: () => undefined,
      flush: () => flushes++,
    };
    fanOut.scheduleFlush(w);
    fanOut.scheduleFlush(w);
    expect(flushes).toBe(0);
    await nextTurn();
    expect(flushes).toBe(1);
  });
});

describe("EventFrames", () => {
  it("makes each frame once and hands the same bytes to every asker", () => {
    const storage = new Storage(100);
    const event = storage.commit(CONFIGMAPS, "ns/x", configMap("ns", "x"));
    const frames = new EventFrames(event);
    let made = 0;
    const make = (): Buffer => {
      made++;
      return watchFrame("ADDED", event.objectJson);
    };
    const first = frames.frame("ADDED json", make);
    expect(frames.frame("ADDED json", make)).toBe(first);
    expect(made).toBe(1);
    expect(JSON.parse(first.toString("utf8"))).toEqual({ type: "ADDED", object: event.object });
    expect(first.toString("utf8").endsWith("}\n")).toBe(true);
  });

  it("the departed object is the previous state at the change's revision", () => {
    const storage = new Storage(100);
    storage.commit(CONFIGMAPS, "ns/x", configMap("ns", "x", { app: "a" }));
    const event = storage.commit(CONFIGMAPS, "ns/x", configMap("ns", "x", { app: "b" }));
    const departed = new EventFrames(event).departed;
    expect(departed["metadata"]).toMatchObject({
      labels: { app: "a" },
      resourceVersion: String(event.rv),
    });
  });

  it("text and bytes make the same frame", () => {
    const text = JSON.stringify({ a: "é\u2028" });
    expect(watchFrame("MODIFIED", text)).toEqual(watchFrame("MODIFIED", Buffer.from(text)));
  });
});

describe("WatchStream writes", () => {
  it("changes committed in one turn reach a watch in one write, in order, after the turn", async () => {
    const h = harness();
    const res = h.watch();
    for (const name of ["a", "b", "c"])
      h.ctx.storage.commit(CONFIGMAPS, `ns/${name}`, configMap("ns", name));
    h.ctx.storage.commit(CONFIGMAPS, "ns/a", null);
    expect(res.writes).toHaveLength(0);
    await nextTurn();
    expect(res.writes).toHaveLength(1);
    expect(events(res.text)).toEqual(["ADDED a", "ADDED b", "ADDED c", "DELETED a"]);
  });

  it("watches of the same format share one frame; a namespaced watch sees its namespace only", async () => {
    const h = harness();
    const one = h.watch();
    const two = h.watch();
    const inOther = h.watch({ namespace: "other" });
    h.ctx.storage.commit(CONFIGMAPS, "ns/a", configMap("ns", "a"));
    await nextTurn();
    expect(one.writes[0]).toBe(two.writes[0]);
    expect(events(one.text)).toEqual(["ADDED a"]);
    expect(inOther.writes).toHaveLength(0);
  });

  it("selector transitions: entering is ADDED, leaving is DELETED with the previous state", async () => {
    const h = harness();
    const opts = {
      labelSelector: LabelSelector.parse("app=web"),
      fieldSelector: FieldSelector.everything(),
    } as unknown as ListOptions;
    const selector = objectFilter(h.entry, "", opts);
    const res = h.watch({ selector });
    const storage = h.ctx.storage;
    storage.commit(CONFIGMAPS, "ns/x", configMap("ns", "x", { app: "db" }));
    storage.commit(CONFIGMAPS, "ns/x", configMap("ns", "x", { app: "web" }));
    storage.commit(CONFIGMAPS, "ns/x", configMap("ns", "x", { app: "web", v: "2" }));
    const left = storage.commit(CONFIGMAPS, "ns/x", configMap("ns", "x", { app: "db" }));
    await nextTurn();
    expect(events(res.text)).toEqual(["ADDED x", "MODIFIED x", "DELETED x"]);
    const last = JSON.parse(res.text.trim().split("\n").at(-1) as string) as {
      object: { metadata: { labels: unknown; resourceVersion: string } };
    };
    expect(last.object.metadata).toMatchObject({
      labels: { app: "web", v: "2" },
      resourceVersion: String(left.rv),
    });
  });

  it("initial events are written from the stored bytes, only for objects the selector matches", async () => {
    const h = harness();
    const storage = h.ctx.storage;
    storage.commit(CONFIGMAPS, "ns/a", configMap("ns", "a", { app: "web" }));
    storage.commit(CONFIGMAPS, "ns/b", configMap("ns", "b", { app: "db" }));
    const opts = {
      labelSelector: LabelSelector.parse("app=web"),
      fieldSelector: FieldSelector.everything(),
    } as unknown as ListOptions;
    const res = h.watch({ selector: objectFilter(h.entry, "", opts) });
    const stream = [...h.registry.streams][0] as WatchStream;
    for (const key of ["ns/a", "ns/b"])
      stream.sendStored(storage.getJson(CONFIGMAPS, key) as Buffer);
    await nextTurn();
    expect(events(res.text)).toEqual(["ADDED a"]);
    const stored = (storage.getJson(CONFIGMAPS, "ns/a") as Buffer).toString("utf8");
    expect(res.text).toBe(`{"type":"ADDED","object":${stored}}\n`);
  });

  it("end() writes the queued frames before ending the body", () => {
    const h = harness();
    const res = h.watch();
    h.ctx.storage.commit(CONFIGMAPS, "ns/a", configMap("ns", "a"));
    const stream = [...h.registry.streams][0] as WatchStream;
    stream.end();
    expect(events(res.text)).toEqual(["ADDED a"]);
    expect(res.ended).toBeDefined();
    expect(h.registry.fanOut.size).toBe(0);
  });

  it("a backlog past maxWatchBacklogBytes drops the watch with an ERROR, without its queued frames", async () => {
    const h = harness(4096);
    const res = h.watch();
    res.backlog = 4000;
    h.ctx.storage.commit(CONFIGMAPS, "ns/a", configMap("ns", "a"));
    h.ctx.storage.commit(CONFIGMAPS, "ns/b", configMap("ns", "b"));
    await nextTurn();
    expect(res.writes).toHaveLength(0);
    expect(res.ended?.toString("utf8")).toContain('"type":"ERROR"');
    expect(res.ended?.toString("utf8")).toContain("not reading events fast enough");
    expect(h.registry.streams.size).toBe(0);
  });
});
