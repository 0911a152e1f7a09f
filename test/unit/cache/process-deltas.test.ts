import { describe, expect, it } from "vitest";
import {
  type Delta,
  createIndexer,
  type CacheIndexer,
  IndexerError,
  type IndexFunc,
  DeletedFinalStateUnknown,
} from "kubekit";
import { processDeltas } from "../../../packages/kubekit/src/cache/process-deltas.js";
import type { DeltaHandler } from "../../../packages/kubekit/src/cache/process-deltas.js";
import { Recorder, obj, show } from "./fixtures.js";
import type { Obj } from "./fixtures.js";

function setup(...cached: Obj[]): {
  indexer: CacheIndexer<Obj>;
  recorder: Recorder;
} {
  const indexer = createIndexer<Obj>();
  for (const o of cached) indexer.add(o);
  return { indexer, recorder: new Recorder() };
}

describe("processDeltas: object deltas", () => {
  it("decides add vs update by cache presence, whatever the delta type", () => {
    const { indexer, recorder } = setup(obj("ns/cached", "1"));
    const deltas: Delta<Obj>[] = [
      { type: "Added", object: obj("ns/cached", "2") },
      { type: "Replaced", object: obj("ns/new", "1") },
      { type: "Sync", object: obj("ns/new", "1") },
      { type: "Updated", object: obj("ns/other", "1") },
    ];
    processDeltas(recorder, indexer, deltas, false);
    expect(recorder.events).toEqual([
      "update ns/cached@1 -> ns/cached@2",
      "add ns/new@1",
      "update ns/new@1 -> ns/new@1",
      "add ns/other@1",
    ]);
    expect(indexer.list().map(show).sort()).toEqual(["ns/cached@2", "ns/new@1", "ns/other@1"]);
  });

  it("moves the cache's resourceVersion with each processed object, but not with a resync of the cached object", () => {
    const cached = obj("ns/a", "7");
    const { indexer, recorder } = setup(cached);
    indexer.bookmark("20");
    processDeltas(recorder, indexer, [{ type: "Sync", object: cached }], false);
    expect(indexer.lastSyncResourceVersion).toBe("20");
    expect(recorder.events).toEqual(["update ns/a@7 -> ns/a@7"]);
    processDeltas(recorder, indexer, [{ type: "Updated", object: obj("ns/a", "21") }], false);
    expect(indexer.lastSyncResourceVersion).toBe("21");
    processDeltas(recorder, indexer, [{ type: "Deleted", object: obj("ns/a", "22") }], false);
    expect(indexer.lastSyncResourceVersion).toBe("22");
    processDeltas(recorder, indexer, [{ type: "Sync", object: obj("ns/b", "23") }], false);
    expect(indexer.lastSyncResourceVersion).toBe("23");
  });

  it("passes isInInitialList to onAdd", () => {
    const { indexer, recorder } = setup();
    processDeltas(recorder, indexer, [{ type: "Replaced", object: obj("ns/a") }], true);
    expect(recorder.events).toEqual(["add ns/a@1 initial"]);
  });

  it("deletes without an existence check, passing tombstones through", () => {
    const { indexer, recorder } = setup(obj("ns/a", "1"));
    const tombstone = new DeletedFinalStateUnknown("ns/a", obj("ns/a", "1"));
    processDeltas(
      recorder,
      indexer,
      [
        { type: "Deleted", object: tombstone },
        { type: "Deleted", object: obj("ns/never", "1") },
      ],
      false,
    );
    expect(recorder.events).toEqual(["delete ~ns/a@1", "delete ns/never@1"]);
    expect(indexer.listKeys()).toEqual([]);
  });

  it("updates the cache before every notification", () => {
    const indexer = createIndexer<Obj>();
    const seen: string[] = [];
    const handler: DeltaHandler<Obj> = {
      onAdd: (o) => seen.push(`add sees ${show(indexer.get(o) ?? obj("none"))}`),
      onUpdate: (_old, o) => seen.push(`update sees ${show(indexer.get(o) ?? obj("none"))}`),
      onDelete: (o) => seen.push(`delete sees ${indexer.get(o) === undefined ? "nothing" : "it"}`),
    };
    processDeltas(
      handler,
      indexer,
      [
        { type: "Added", object: obj("ns/a", "1") },
        { type: "Updated", object: obj("ns/a", "2") },
        { type: "Deleted", object: obj("ns/a", "2") },
      ],
      false,
    );
    expect(seen).toEqual(["add sees ns/a@1", "update sees ns/a@2", "delete sees nothing"]);
  });

  it("stops at a failing cache write, before its notification, keeping earlier deltas applied", () => {
    const picky: IndexFunc<Obj> = (o) => {
      if (o.spec?.node === "boom") throw new Error("bad node");
      return [o.spec?.node ?? ""];
    };
    const indexer = createIndexer<Obj>({ indexers: { node: picky } });
    const recorder = new Recorder();
    expect(() =>
      processDeltas(
        recorder,
        indexer,
        [
          { type: "Added", object: obj("ns/a", "1") },
          { type: "Updated", object: obj("ns/a", "2", { node: "boom" }) },
          { type: "Updated", object: obj("ns/a", "3") },
        ],
        false,
      ),
    ).toThrow(IndexerError);
    expect(recorder.events).toEqual(["add ns/a@1"]);
    expect(indexer.list().map(show)).toEqual(["ns/a@1"]);
  });
});

describe("processDeltas: ReplacedAll", () => {
  it("replaces the cache first, then deletes, then updates/adds in list order", () => {
    const { indexer } = setup(
      obj("ns/a", "1"),
      obj("ns/gone1", "3"),
      obj("ns/b", "1"),
      obj("ns/gone2", "4"),
    );
    const log: string[] = [];
    const handler: DeltaHandler<Obj> = {
      onAdd: (o, initial) =>
        log.push(`add ${show(o)}${initial ? " initial" : ""} (cache ${indexer.listKeys().length})`),
      onUpdate: (old, o) =>
        log.push(`update ${show(old)} -> ${show(o)} (cache ${indexer.listKeys().length})`),
      onDelete: (o) =>
        log.push(`delete ${show(o)} (cached: ${indexer.get(o) === undefined ? "no" : "yes"})`),
    };
    processDeltas(
      handler,
      indexer,
      [
        {
          type: "ReplacedAll",
          object: {
            resourceVersion: "50",
            objects: [obj("ns/c", "1"), obj("ns/b", "2"), obj("ns/a", "1")],
          },
        },
      ],
      true,
    );
    expect(log).toEqual([
      "delete ~ns/gone1@3 (cached: no)",
      "delete ~ns/gone2@4 (cached: no)",
      "add ns/c@1 initial (cache 3)",
      "update ns/b@1 -> ns/b@2 (cache 3)",
      "update ns/a@1 -> ns/a@1 (cache 3)",
    ]);
    expect(indexer.lastSyncResourceVersion).toBe("50");
    expect(indexer.list().map(show).sort()).toEqual(["ns/a@1", "ns/b@2", "ns/c@1"]);
  });

  it("an empty list deletes everything", () => {
    const { indexer, recorder } = setup(obj("ns/a"), obj("b"));
    processDeltas(
      recorder,
      indexer,
      [{ type: "ReplacedAll", object: { resourceVersion: "9", objects: [] } }],
      false,
    );
    expect(recorder.events.sort()).toEqual(["delete ~b@1", "delete ~ns/a@1"]);
    expect(indexer.listKeys()).toEqual([]);
  });

  it("rebuilds the indices with the new content", () => {
    const { indexer, recorder } = setup(obj("ns1/a"), obj("ns2/b"));
    processDeltas(
      recorder,
      indexer,
      [{ type: "ReplacedAll", object: { resourceVersion: "9", objects: [obj("ns3/c")] } }],
      false,
    );
    expect(indexer.listIndexFuncValues("namespace")).toEqual(["ns3"]);
  });

  it("a failing replace notifies nobody and leaves the cache as it was", () => {
    const { indexer, recorder } = setup(obj("ns/a"));
    expect(() =>
      processDeltas(
        recorder,
        indexer,
        [{ type: "ReplacedAll", object: { resourceVersion: "9", objects: [{ metadata: {} }] } }],
        false,
      ),
    ).toThrow();
    expect(recorder.events).toEqual([]);
    expect(indexer.listKeys()).toEqual(["ns/a"]);
  });
});

describe("processDeltas: SyncAll and Bookmark", () => {
  it("SyncAll re-delivers every cached object as an update to itself", () => {
    const { indexer, recorder } = setup(obj("ns/a"), obj("ns/b"));
    processDeltas(recorder, indexer, [{ type: "SyncAll", object: {} }], false);
    expect(recorder.events.sort()).toEqual(["update ns/a@1 -> ns/a@1", "update ns/b@1 -> ns/b@1"]);
    expect(indexer.listKeys()).toHaveLength(2);
  });

  it("Bookmark records the resourceVersion and notifies nobody", () => {
    const { indexer, recorder } = setup(obj("ns/a"));
    processDeltas(
      recorder,
      indexer,
      [{ type: "Bookmark", object: { resourceVersion: "88" } }],
      false,
    );
    expect(indexer.lastSyncResourceVersion).toBe("88");
    expect(recorder.events).toEqual([]);
  });
});
