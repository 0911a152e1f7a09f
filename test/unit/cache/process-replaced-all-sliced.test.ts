import { describe, expect, it } from "vitest";
import { createIndexer, type CacheIndexer, NAMESPACE_INDEX } from "kubekit";
import { processReplacedAllSliced } from "../../../packages/kubekit/src/cache/process-deltas.js";
import { FakeClock } from "kubekit/testing";
import { EventLoopSlice } from "../../../packages/kubekit/src/core/event-loop-slice.js";
import type { CooperativeSlice } from "../../../packages/kubekit/src/core/event-loop-slice.js";
import { Recorder, flush, obj, show } from "./fixtures.js";
import type { Obj } from "./fixtures.js";

/** What a lister reads: size, resourceVersion, both namespaces' index entries, one key. */
function snapshot(indexer: CacheIndexer<Obj>): string {
  return [
    indexer.list().length,
    indexer.lastSyncResourceVersion,
    indexer.byIndex(NAMESPACE_INDEX, "old").length,
    indexer.byIndex(NAMESPACE_INDEX, "new").length,
    show(indexer.getByKey("old/keep") ?? obj("-")),
  ].join(" ");
}

/** A cache of 300 objects in namespace `old` (old/keep among them) at resourceVersion 10. */
function oldCache(): CacheIndexer<Obj> {
  const indexer = createIndexer<Obj>();
  indexer.replace(
    [obj("old/keep", "1"), ...Array.from({ length: 299 }, (_, i) => obj(`old/o${i}`, "1"))],
    "10",
  );
  return indexer;
}

/** A relist of 2,000 objects in namespace `new` plus old/keep, at resourceVersion 20. */
const relist = {
  objects: [obj("old/keep", "2"), ...Array.from({ length: 2000 }, (_, i) => obj(`new/n${i}`, "2"))],
  resourceVersion: "20",
};
const OLD_STATE = "300 10 300 0 old/keep@1";
const NEW_STATE = "2001 20 1 2000 old/keep@2";

/** A slice due at every pause, whose yields run `onYield` and can be counted. */
class EveryPause implements CooperativeSlice {
  yields = 0;
  constructor(readonly onYield: () => void) {}
  get due(): boolean {
    return true;
  }
  async yield(): Promise<void> {
    this.yields++;
    this.onYield();
    await flush();
  }
}

describe("processReplacedAllSliced", () => {
  it("yields while it builds, listers see the old complete state until one swap, then the new", async () => {
    const indexer = oldCache();
    const recorder = new Recorder();
    const seen = new Set<string>();
    let notifiedDuringYields = 0;
    const slice = new EveryPause(() => {
      seen.add(snapshot(indexer));
      notifiedDuringYields += recorder.events.length;
    });
    expect(snapshot(indexer)).toBe(OLD_STATE);
    await processReplacedAllSliced(recorder, indexer, relist, false, slice);

    // Not one step: the lookups and the build of 2,001 objects paused many times.
    expect(slice.yields).toBeGreaterThanOrEqual(10);
    // Every read while it was yielded saw the old content, whole; no handler was called.
    expect([...seen]).toEqual([OLD_STATE]);
    expect(notifiedDuringYields).toBe(0);
    expect(snapshot(indexer)).toBe(NEW_STATE);
    // Deletions first, then the listed objects in list order, as processDeltas.
    expect(recorder.events.slice(0, 2)).toEqual(["delete ~old/o0@1", "delete ~old/o1@1"]);
    expect(recorder.events[299]).toBe("update old/keep@1 -> old/keep@2");
    expect(recorder.events[300]).toBe("add new/n0@2");
    expect(recorder.events.at(-1)).toBe("add new/n1999@2");
    expect(recorder.events).toHaveLength(2300);
  });

  it("yields to the event loop on the injected clock (EventLoopSlice on a FakeClock)", async () => {
    const clock = new FakeClock(0);
    // Each key lookup takes 0.1 ms of the fake clock: a slice is used up every 50 objects.
    const indexer = createIndexer<Obj>({
      indexers: {
        [NAMESPACE_INDEX]: (o: Obj) => {
          clock.advance(0.1);
          return [o.metadata.namespace ?? ""];
        },
      },
    });
    indexer.replace([obj("old/keep", "1")], "10");
    const recorder = new Recorder();
    const reads: string[] = [];
    let done = false;
    const read = (): void => {
      if (done) return;
      reads.push(`${indexer.list().length} ${recorder.events.length}`);
      setImmediate(read);
    };
    setImmediate(read);
    await processReplacedAllSliced(recorder, indexer, relist, false, new EventLoopSlice(clock));
    done = true;
    // Other macrotasks ran while the relist was being built, and saw the old cache.
    expect(reads.length).toBeGreaterThanOrEqual(5);
    expect(new Set(reads)).toEqual(new Set(["1 0"]));
    expect(indexer.list()).toHaveLength(2001);
    expect(recorder.events).toHaveLength(2001);
  });

  it("an abort while yielded abandons the relist: cache unchanged, no notification", async () => {
    const indexer = oldCache();
    const recorder = new Recorder();
    const controller = new AbortController();
    const reason = new Error("stopped");
    const slice = new EveryPause(() => {
      if (slice.yields === 3) controller.abort(reason);
    });
    await expect(
      processReplacedAllSliced(recorder, indexer, relist, false, slice, controller.signal),
    ).rejects.toBe(reason);
    expect(slice.yields).toBe(3);
    expect(snapshot(indexer)).toBe(OLD_STATE);
    expect(recorder.events).toEqual([]);
  });

  it("an index added during the build is filled at the swap", async () => {
    const indexer = oldCache();
    const recorder = new Recorder();
    const slice = new EveryPause(() => {
      if (slice.yields === 2) {
        indexer.addIndexers({ byRv: (o: Obj) => [o.metadata.resourceVersion ?? ""] });
      }
    });
    await processReplacedAllSliced(recorder, indexer, relist, false, slice);
    expect(snapshot(indexer)).toBe(NEW_STATE);
    expect(indexer.byIndex("byRv", "2")).toHaveLength(2001);
    expect(indexer.byIndex("byRv", "1")).toEqual([]);
  });
});
