import { describe, expect, it } from "vitest";
import {
  type Delta,
  type Deltas,
  createIndexer,
  QUEUE_CLOSED,
  RealFIFO,
  DeletedFinalStateUnknown,
} from "kubekit";
import { deferred, flush, obj, show } from "./fixtures.js";
import type { Obj } from "./fixtures.js";
import { drain, informerQueueContract } from "./informer-queue-contract.js";

informerQueueContract("RealFIFO", (options = {}) => ({
  indexer: createIndexer<Obj>(),
  queue: new RealFIFO<Obj>(options),
}));

function summary(d: Delta<Obj>): string {
  switch (d.type) {
    case "ReplacedAll":
      return `ReplacedAll@${d.object.resourceVersion} [${d.object.objects.map(show).join(", ")}]`;
    case "SyncAll":
      return "SyncAll";
    case "Bookmark":
      return `Bookmark@${d.object.resourceVersion}`;
    default:
      return `${d.type} ${show(d.object)}`;
  }
}

async function popAll(fifo: RealFIFO<Obj>): Promise<string[]> {
  const out: string[] = [];
  while (fifo.length > 0) {
    const deltas = await fifo.pop(() => undefined);
    if (deltas === QUEUE_CLOSED) break;
    expect(deltas).toHaveLength(1);
    out.push(...deltas.map(summary));
  }
  return out;
}

describe("RealFIFO entries", () => {
  it("queues one entry per event in arrival order, merging and dropping nothing", async () => {
    const fifo = new RealFIFO<Obj>();
    fifo.add(obj("ns/a", "1"));
    fifo.add(obj("ns/b", "1"));
    fifo.update(obj("ns/a", "2"));
    fifo.delete(obj("ns/a", "3"));
    fifo.delete(obj("ns/a", "3"));
    fifo.delete(obj("ns/never-seen"));
    fifo.delete(new DeletedFinalStateUnknown("ns/b", obj("ns/b", "1")));
    expect(fifo.length).toBe(7);
    expect(await popAll(fifo)).toEqual([
      "Added ns/a@1",
      "Added ns/b@1",
      "Updated ns/a@2",
      "Deleted ns/a@3",
      "Deleted ns/a@3",
      "Deleted ns/never-seen@1",
      "Deleted ~ns/b@1",
    ]);
  });

  it("replace queues one ReplacedAll entry with a copy of the list and its resourceVersion", async () => {
    const fifo = new RealFIFO<Obj>();
    const list = [obj("ns/a"), obj("ns/b")];
    fifo.replace(list, "42");
    list.push(obj("ns/late"));
    expect(fifo.length).toBe(1);
    expect(await popAll(fifo)).toEqual(["ReplacedAll@42 [ns/a@1, ns/b@1]"]);
  });

  it("resync queues one SyncAll entry and bookmark one Bookmark entry", async () => {
    const fifo = new RealFIFO<Obj>();
    fifo.add(obj("ns/a"));
    fifo.resync();
    fifo.bookmark("77");
    expect(await popAll(fifo)).toEqual(["Added ns/a@1", "SyncAll", "Bookmark@77"]);
  });

  it("transforms relisted objects, but not tombstones", async () => {
    let calls = 0;
    const fifo = new RealFIFO<Obj>({ transform: (o) => ({ ...o, transformed: ++calls }) });
    fifo.replace([obj("ns/a"), obj("ns/b")], "1");
    fifo.delete(new DeletedFinalStateUnknown("ns/c", obj("ns/c")));
    expect(calls).toBe(2);
    expect(await popAll(fifo)).toEqual(["ReplacedAll@1 [ns/a@1+t1, ns/b@1+t2]", "Deleted ~ns/c@1"]);
  });

  it("uses the key function only to validate objects", () => {
    interface Row {
      readonly id?: string;
    }
    const fifo = new RealFIFO<Row>({
      keyFunc: (r) => {
        if (r.id === undefined) throw new Error("row without id");
        return r.id;
      },
    });
    fifo.add({ id: "x" });
    expect(() => fifo.add({})).toThrow("row without id");
    expect(() => fifo.replace([{ id: "y" }, {}], "1")).toThrow("row without id");
    expect(fifo.length).toBe(1);
  });

  it("releases popped entries and keeps order across many pushes and pops", async () => {
    const fifo = new RealFIFO<Obj>();
    const popped: string[] = [];
    const record = (deltas: Deltas<Obj>): void => {
      for (const d of deltas) popped.push(summary(d));
    };
    let next = 0;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 1500; i++) fifo.add(obj(`ns/o${next++}`));
      for (let i = 0; i < 1000; i++) await fifo.pop(record);
    }
    expect(fifo.length).toBe(5 * 1500 - 5 * 1000);
    while (fifo.length > 0) await fifo.pop(record);
    expect(popped).toHaveLength(7500);
    expect(popped[0]).toBe("Added ns/o0@1");
    expect(popped[7499]).toBe("Added ns/o7499@1");
    expect(popped.every((p, i) => p === `Added ns/o${i}@1`)).toBe(true);
  });
});

describe("RealFIFO hasSynced", () => {
  it("turns true only after the handler of the initial ReplacedAll has run", async () => {
    const fifo = new RealFIFO<Obj>();
    fifo.replace([obj("ns/a"), obj("ns/b")], "1");
    let syncedDuring: boolean | undefined;
    let initial: boolean | undefined;
    await fifo.pop((_deltas, isInInitialList) => {
      initial = isInInitialList;
      syncedDuring = fifo.hasSynced();
    });
    expect(initial).toBe(true);
    expect(syncedDuring).toBe(false);
    expect(fifo.hasSynced()).toBe(true);
  });

  it("still counts the initial entry when its processing fails", async () => {
    const fifo = new RealFIFO<Obj>();
    fifo.replace([obj("ns/a")], "1");
    await expect(
      fifo.pop(() => {
        throw new Error("handler failed");
      }),
    ).rejects.toThrow("handler failed");
    expect(fifo.hasSynced()).toBe(true);
  });

  it("counts every entry queued before the first replace as initial", async () => {
    const fifo = new RealFIFO<Obj>();
    fifo.resync();
    fifo.bookmark("3");
    expect(fifo.hasSynced()).toBe(false);
    fifo.replace([obj("ns/a")], "5");
    fifo.add(obj("ns/b"));
    const initial: boolean[] = [];
    const synced: boolean[] = [];
    while (fifo.length > 0) {
      await fifo.pop((_d, isInInitialList) => {
        initial.push(isInInitialList);
      });
      synced.push(fifo.hasSynced());
    }
    expect(initial).toEqual([true, true, true, false]);
    expect(synced).toEqual([false, false, true, true]);
  });

  it("end to end: a slow async handler of the initial list delays hasSynced", async () => {
    const indexer = createIndexer<Obj>();
    const fifo = new RealFIFO<Obj>();
    fifo.replace([obj("ns/a")], "1");
    const handlerDone = deferred();
    const popping = fifo.pop(async (deltas, initial) => {
      for (const d of deltas) {
        if (d.type === "ReplacedAll") indexer.replace(d.object.objects, d.object.resourceVersion);
      }
      expect(initial).toBe(true);
      await handlerDone.promise;
    });
    await flush();
    expect(indexer.listKeys()).toEqual(["ns/a"]);
    expect(fifo.hasSynced()).toBe(false);
    handlerDone.resolve();
    await popping;
    expect(fifo.hasSynced()).toBe(true);
  });
});

describe("RealFIFO with processDeltas", () => {
  it("resync and bookmark reach the cache and the handler", async () => {
    const indexer = createIndexer<Obj>();
    const fifo = new RealFIFO<Obj>();
    fifo.replace([obj("ns/a"), obj("ns/b")], "10");
    fifo.bookmark("15");
    fifo.resync();
    const recorder = await drain({ queue: fifo, indexer });
    expect(indexer.lastSyncResourceVersion).toBe("15");
    expect(recorder.events).toEqual([
      "add ns/a@1 initial",
      "add ns/b@1 initial",
      "update ns/a@1 -> ns/a@1",
      "update ns/b@1 -> ns/b@1",
    ]);
  });

  it("intermediate states are delivered in order, never merged", async () => {
    const indexer = createIndexer<Obj>();
    const fifo = new RealFIFO<Obj>();
    fifo.add(obj("ns/a", "1"));
    fifo.add(obj("ns/b", "1"));
    fifo.delete(obj("ns/a", "1"));
    fifo.add(obj("ns/a", "2"));
    const recorder = await drain({ queue: fifo, indexer });
    expect(recorder.events).toEqual(["add ns/a@1", "add ns/b@1", "delete ns/a@1", "add ns/a@2"]);
  });
});
