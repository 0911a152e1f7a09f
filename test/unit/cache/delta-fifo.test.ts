import { describe, expect, it } from "vitest";
import {
  DeltaFIFO,
  type KnownObjects,
  type Deltas,
  createIndexer,
  QUEUE_CLOSED,
  DeletedFinalStateUnknown,
} from "kubekit";
import { obj, show } from "./fixtures.js";
import type { Obj } from "./fixtures.js";
import { drain, informerQueueContract } from "./informer-queue-contract.js";

informerQueueContract("DeltaFIFO", (options = {}) => {
  const indexer = createIndexer<Obj>();
  return { indexer, queue: new DeltaFIFO<Obj>({ knownObjects: indexer, ...options }) };
});

/** `Added ns/a@1`, `Deleted ~ns/a@1`, ... */
function summary(deltas: Deltas<Obj>): string[] {
  return deltas.map((d) => {
    switch (d.type) {
      case "ReplacedAll":
      case "SyncAll":
      case "Bookmark":
        return d.type;
      default:
        return `${d.type} ${show(d.object)}`;
    }
  });
}

/** Pops every key without side effects, returning each key's deltas. */
async function popAll(fifo: DeltaFIFO<Obj>): Promise<string[][]> {
  const out: string[][] = [];
  while (fifo.length > 0) {
    const deltas = await fifo.pop(() => undefined);
    if (deltas === QUEUE_CLOSED) break;
    out.push(summary(deltas));
  }
  return out;
}

/** A fixed set of known objects, standing in for the informer's indexer. */
function known(...objects: Obj[]): KnownObjects<Obj> {
  const store = createIndexer<Obj>();
  for (const o of objects) store.add(o);
  return store;
}

describe("DeltaFIFO queueing", () => {
  it("keeps one queue entry per key, ordered by first enqueue, with all its deltas", async () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.add(obj("ns/a", "1"));
    fifo.add(obj("ns/b", "1"));
    fifo.update(obj("ns/a", "2"));
    fifo.update(obj("ns/a", "3"));
    expect(fifo.length).toBe(2);
    expect(fifo.listKeys()).toEqual(["ns/a", "ns/b"]);
    expect(fifo.list().map(show)).toEqual(["ns/a@3", "ns/b@1"]);
    expect(summary(fifo.getByKey("ns/a") ?? [])).toEqual([
      "Added ns/a@1",
      "Updated ns/a@2",
      "Updated ns/a@3",
    ]);
    expect(fifo.getByKey("ns/zzz")).toBeUndefined();
    expect(await popAll(fifo)).toEqual([
      ["Added ns/a@1", "Updated ns/a@2", "Updated ns/a@3"],
      ["Added ns/b@1"],
    ]);
  });

  it("a key popped and queued again goes to the back", async () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.add(obj("ns/a", "1"));
    fifo.add(obj("ns/b", "1"));
    await fifo.pop(() => undefined);
    fifo.update(obj("ns/a", "2"));
    expect(fifo.listKeys()).toEqual(["ns/b", "ns/a"]);
  });

  it("getByKey returns a copy", () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.add(obj("ns/a"));
    const copy = fifo.getByKey("ns/a") as unknown as unknown[];
    copy.length = 0;
    expect(fifo.getByKey("ns/a")).toHaveLength(1);
  });

  it("pop hands over the whole Deltas of one key and resolves with it", async () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.add(obj("ns/a", "1"));
    fifo.update(obj("ns/a", "2"));
    let given: Deltas<Obj> | undefined;
    const result = await fifo.pop((deltas) => {
      given = deltas;
    });
    expect(result).toBe(given);
    expect(summary(given ?? [])).toEqual(["Added ns/a@1", "Updated ns/a@2"]);
    expect(fifo.length).toBe(0);
  });

  it("collapses two consecutive deletions, keeping the older one", () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.add(obj("ns/a", "1"));
    fifo.delete(obj("ns/a", "2"));
    fifo.delete(obj("ns/a", "3"));
    expect(summary(fifo.getByKey("ns/a") ?? [])).toEqual(["Added ns/a@1", "Deleted ns/a@2"]);
  });

  it("a tombstone followed by a real deletion keeps the real one", () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.add(obj("ns/a", "1"));
    fifo.delete(new DeletedFinalStateUnknown("ns/a", obj("ns/a", "1")));
    fifo.delete(obj("ns/a", "2"));
    expect(summary(fifo.getByKey("ns/a") ?? [])).toEqual(["Added ns/a@1", "Deleted ns/a@2"]);
  });

  it("a real deletion followed by a tombstone keeps the real one", () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.add(obj("ns/a", "1"));
    fifo.delete(obj("ns/a", "2"));
    fifo.delete(new DeletedFinalStateUnknown("ns/a", obj("ns/a", "1")));
    expect(summary(fifo.getByKey("ns/a") ?? [])).toEqual(["Added ns/a@1", "Deleted ns/a@2"]);
  });

  it("compares only the last two deltas: separated deletions and repeated adds stay", () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.add(obj("ns/a", "1"));
    fifo.delete(obj("ns/a", "2"));
    fifo.add(obj("ns/a", "3"));
    fifo.delete(obj("ns/a", "4"));
    fifo.add(obj("ns/b", "1"));
    fifo.add(obj("ns/b", "1"));
    expect(summary(fifo.getByKey("ns/a") ?? [])).toEqual([
      "Added ns/a@1",
      "Deleted ns/a@2",
      "Added ns/a@3",
      "Deleted ns/a@4",
    ]);
    expect(summary(fifo.getByKey("ns/b") ?? [])).toEqual(["Added ns/b@1", "Added ns/b@1"]);
  });
});

describe("DeltaFIFO.delete", () => {
  it("drops a deletion of a key neither known nor queued", () => {
    const fifo = new DeltaFIFO<Obj>({ knownObjects: known(obj("ns/known")) });
    fifo.delete(obj("ns/unknown"));
    expect(fifo.length).toBe(0);
    expect(fifo.hasSynced()).toBe(true);
  });

  it("queues a deletion of a known key that is not queued", () => {
    const fifo = new DeltaFIFO<Obj>({ knownObjects: known(obj("ns/known", "1")) });
    fifo.delete(obj("ns/known", "2"));
    expect(summary(fifo.getByKey("ns/known") ?? [])).toEqual(["Deleted ns/known@2"]);
  });

  it("queues a deletion of a queued key that is not known", () => {
    const fifo = new DeltaFIFO<Obj>({ knownObjects: known() });
    fifo.add(obj("ns/a", "1"));
    fifo.delete(obj("ns/a", "2"));
    expect(summary(fifo.getByKey("ns/a") ?? [])).toEqual(["Added ns/a@1", "Deleted ns/a@2"]);
  });

  it("without knownObjects, only deletions of queued keys are kept", () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.delete(obj("ns/a"));
    expect(fifo.length).toBe(0);
    fifo.add(obj("ns/b"));
    fifo.delete(obj("ns/b"));
    expect(summary(fifo.getByKey("ns/b") ?? [])).toEqual(["Added ns/b@1", "Deleted ns/b@1"]);
  });
});

describe("DeltaFIFO.replace", () => {
  it("queues Replaced for every listed object (Sync when emitDeltaTypeReplaced is false)", async () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.replace([obj("ns/a"), obj("ns/b")], "5");
    expect(await popAll(fifo)).toEqual([["Replaced ns/a@1"], ["Replaced ns/b@1"]]);
    const legacy = new DeltaFIFO<Obj>({ emitDeltaTypeReplaced: false });
    legacy.replace([obj("ns/a")], "5");
    expect(await popAll(legacy)).toEqual([["Sync ns/a@1"]]);
  });

  it("tombstones queued keys missing from the list with their newest queued object", () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.add(obj("ns/a", "1"));
    fifo.update(obj("ns/a", "2"));
    fifo.add(obj("ns/b", "1"));
    fifo.replace([obj("ns/b", "3")], "9");
    expect(summary(fifo.getByKey("ns/a") ?? [])).toEqual([
      "Added ns/a@1",
      "Updated ns/a@2",
      "Deleted ~ns/a@2",
    ]);
    expect(summary(fifo.getByKey("ns/b") ?? [])).toEqual(["Added ns/b@1", "Replaced ns/b@3"]);
  });

  it("a queued tombstone gives its object to the new tombstone and the two collapse", () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.add(obj("ns/a", "1"));
    fifo.delete(new DeletedFinalStateUnknown("ns/a", obj("ns/a", "1")));
    fifo.replace([], "9");
    const deltas = fifo.getByKey("ns/a") ?? [];
    expect(summary(deltas)).toEqual(["Added ns/a@1", "Deleted ~ns/a@1"]);
    const last = deltas[1]?.object;
    expect(last).toBeInstanceOf(DeletedFinalStateUnknown);
    // The object, not a tombstone inside a tombstone.
    expect((last as DeletedFinalStateUnknown<Obj>).obj).not.toBeInstanceOf(
      DeletedFinalStateUnknown,
    );
  });

  it("a queued real deletion absorbs the relist's tombstone", () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.add(obj("ns/a", "1"));
    fifo.delete(obj("ns/a", "2"));
    fifo.replace([], "9");
    expect(summary(fifo.getByKey("ns/a") ?? [])).toEqual(["Added ns/a@1", "Deleted ns/a@2"]);
  });

  it("tombstones known keys missing from the list and not queued, with the known object", () => {
    const fifo = new DeltaFIFO<Obj>({
      knownObjects: known(obj("ns/keep", "1"), obj("ns/gone", "4"), obj("ns/busy", "1")),
    });
    fifo.update(obj("ns/busy", "2"));
    fifo.replace([obj("ns/keep", "2")], "9");
    expect(fifo.listKeys()).toEqual(["ns/busy", "ns/keep", "ns/gone"]);
    expect(summary(fifo.getByKey("ns/gone") ?? [])).toEqual(["Deleted ~ns/gone@4"]);
    expect(summary(fifo.getByKey("ns/keep") ?? [])).toEqual(["Replaced ns/keep@2"]);
    // The queued key got exactly one tombstone, with its newest queued object.
    expect(summary(fifo.getByKey("ns/busy") ?? [])).toEqual([
      "Updated ns/busy@2",
      "Deleted ~ns/busy@2",
    ]);
  });

  it("a known key whose object vanished still gets a tombstone without object", () => {
    const knownObjects: KnownObjects<Obj> = {
      listKeys: () => ["ns/ghost"],
      getByKey: () => undefined,
    };
    const fifo = new DeltaFIFO<Obj>({ knownObjects });
    fifo.replace([], "1");
    const deltas = fifo.getByKey("ns/ghost") ?? [];
    expect(summary(deltas)).toEqual(["Deleted ~ns/ghost@-"]);
  });

  it("the first replace counts listed keys plus queued deletions for hasSynced", async () => {
    const fifo = new DeltaFIFO<Obj>({ knownObjects: known(obj("ns/old")) });
    fifo.replace([obj("ns/a"), obj("ns/b")], "1");
    expect(fifo.length).toBe(3);
    const synced: boolean[] = [];
    const initial: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      expect(fifo.hasSynced()).toBe(false);
      await fifo.pop((_deltas, isInInitialList) => {
        initial.push(isInInitialList);
        synced.push(fifo.hasSynced());
      });
    }
    expect(initial).toEqual([true, true, true]);
    // The count drops before processing: synced already while the last initial item runs.
    expect(synced).toEqual([false, false, true]);
    expect(fifo.hasSynced()).toBe(true);
  });

  it("items queued after the first replace are not part of the initial population", async () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.replace([obj("ns/a")], "1");
    fifo.add(obj("ns/b"));
    const initial: boolean[] = [];
    while (fifo.length > 0) {
      await fifo.pop((_d, isInInitialList) => {
        initial.push(isInInitialList);
      });
    }
    expect(initial).toEqual([true, false]);
  });

  it("transforms listed objects but not tombstones", () => {
    let calls = 0;
    const fifo = new DeltaFIFO<Obj>({
      knownObjects: known(obj("ns/gone")),
      transform: (o) => ({ ...o, transformed: ++calls }),
    });
    fifo.replace([obj("ns/a")], "1");
    expect(calls).toBe(1);
    expect(fifo.list().map(show)).toEqual(["ns/a@1+t1", "~ns/gone@1"]);
  });
});

describe("DeltaFIFO.resync", () => {
  it("queues Sync with the known object for every known key with nothing queued", async () => {
    const fifo = new DeltaFIFO<Obj>({
      knownObjects: known(obj("ns/a", "1"), obj("ns/b", "1"), obj("ns/c", "1")),
    });
    fifo.update(obj("ns/b", "2"));
    fifo.resync();
    expect(await popAll(fifo)).toEqual([["Updated ns/b@2"], ["Sync ns/a@1"], ["Sync ns/c@1"]]);
  });

  it("does not re-apply the transform to Sync objects", () => {
    let calls = 0;
    const fifo = new DeltaFIFO<Obj>({
      knownObjects: known(obj("ns/a")),
      transform: (o) => ({ ...o, transformed: ++calls }),
    });
    fifo.resync();
    expect(calls).toBe(0);
    expect(fifo.list().map(show)).toEqual(["ns/a@1"]);
  });

  it("does nothing without knownObjects and does not mark the queue populated", () => {
    const fifo = new DeltaFIFO<Obj>();
    fifo.resync();
    expect(fifo.length).toBe(0);
    expect(fifo.hasSynced()).toBe(false);
  });

  it("end to end: resync re-delivers cached objects as updates, skipping pending keys", async () => {
    const indexer = createIndexer<Obj>();
    const fifo = new DeltaFIFO<Obj>({ knownObjects: indexer });
    fifo.replace([obj("ns/a", "1"), obj("ns/b", "1")], "1");
    await drain({ queue: fifo, indexer });
    fifo.update(obj("ns/a", "2"));
    fifo.resync();
    const recorder = await drain({ queue: fifo, indexer });
    expect(recorder.events).toEqual(["update ns/a@1 -> ns/a@2", "update ns/b@1 -> ns/b@1"]);
  });
});
