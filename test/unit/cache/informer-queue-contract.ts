// The contract both informer queues (DeltaFIFO and RealFIFO) satisfy, run by each queue's
// test file. Where the queues legitimately differ (ordering of relist notifications, when
// HasSynced flips, how entries are grouped) the cases compare what an informer would end up
// with: the cache content and the multiset of notifications from processDeltas.
import { describe, expect, it } from "vitest";
import {
  ObjectKeyError,
  type CacheIndexer,
  QUEUE_CLOSED,
  type InformerQueue,
  type TransformFunc,
  type Deltas,
} from "kubekit";
import { processDeltas } from "../../../packages/kubekit/src/cache/process-deltas.js";
import { Recorder, deferred, flush, obj, show, track } from "./fixtures.js";
import type { Obj } from "./fixtures.js";

/** A queue wired as an informer wires it, with the cache it feeds. */
export interface QueueUnderTest {
  readonly queue: InformerQueue<Obj>;
  readonly indexer: CacheIndexer<Obj>;
}

export type MakeQueue = (options?: { transform?: TransformFunc<Obj> }) => QueueUnderTest;

/** Pops everything queued through processDeltas, as an informer does. */
export async function drain(
  { queue, indexer }: QueueUnderTest,
  recorder: Recorder = new Recorder(),
): Promise<Recorder> {
  while (queue.length > 0) {
    await queue.pop((deltas, initial) => processDeltas(recorder, indexer, deltas, initial));
  }
  return recorder;
}

function cacheContent(indexer: CacheIndexer<Obj>): string[] {
  return indexer.list().map(show).sort();
}

export function informerQueueContract(name: string, make: MakeQueue): void {
  describe(`${name}: InformerQueue contract`, () => {
    it("pop waits while the queue is empty and delivers what is added next", async () => {
      const { queue } = make();
      const seen: string[] = [];
      const popped = queue.pop((deltas) => {
        seen.push(...deltas.map((d) => d.type));
      });
      const state = track(popped);
      await flush();
      expect(state.settled).toBe(false);
      expect(seen).toEqual([]);
      queue.add(obj("ns/a"));
      const result = await popped;
      expect(seen).toEqual(["Added"]);
      expect(result).not.toBe(QUEUE_CLOSED);
      expect((result as Deltas<Obj>).map((d) => d.type)).toEqual(["Added"]);
      expect(queue.length).toBe(0);
    });

    it("close wakes waiting pops with QUEUE_CLOSED, and later pops get it at once", async () => {
      const { queue } = make();
      const process = (): void => {
        throw new Error("must not be called");
      };
      const first = queue.pop(process);
      const second = queue.pop(process);
      await flush();
      expect(queue.closed).toBe(false);
      queue.close();
      queue.close();
      expect(queue.closed).toBe(true);
      await expect(first).resolves.toBe(QUEUE_CLOSED);
      await expect(second).resolves.toBe(QUEUE_CLOSED);
      await expect(queue.pop(process)).resolves.toBe(QUEUE_CLOSED);
    });

    it("items queued before close are still delivered, then QUEUE_CLOSED", async () => {
      const q = make();
      q.queue.add(obj("ns/a"));
      q.queue.add(obj("ns/b"));
      q.queue.close();
      const recorder = await drain(q);
      expect(recorder.events).toEqual(["add ns/a@1", "add ns/b@1"]);
      await expect(q.queue.pop(() => undefined)).resolves.toBe(QUEUE_CLOSED);
    });

    it("awaits an async process before delivering the next item", async () => {
      const { queue } = make();
      queue.add(obj("ns/a"));
      queue.add(obj("ns/b"));
      const gate = deferred();
      const log: string[] = [];
      const first = queue.pop(async (deltas) => {
        log.push(`start ${deltas.length}`);
        await gate.promise;
        log.push("end a");
      });
      const second = queue.pop(() => {
        log.push("b");
      });
      await flush();
      expect(log).toEqual(["start 1"]);
      expect(queue.length).toBe(1);
      const secondState = track(second);
      await flush();
      expect(secondState.settled).toBe(false);
      gate.resolve();
      await Promise.all([first, second]);
      expect(log).toEqual(["start 1", "end a", "b"]);
    });

    it("a rejecting or throwing process rejects pop, consumes the item, and frees the queue", async () => {
      const q = make();
      q.queue.add(obj("ns/a"));
      q.queue.add(obj("ns/b"));
      q.queue.add(obj("ns/c"));
      const boom = new Error("handler failed");
      await expect(
        q.queue.pop(async () => {
          await flush();
          throw boom;
        }),
      ).rejects.toBe(boom);
      await expect(
        q.queue.pop(() => {
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(q.queue.length).toBe(1);
      const recorder = await drain(q);
      expect(recorder.events).toEqual(["add ns/c@1"]);
    });

    it("an aborted pop rejects with the signal's reason and consumes nothing", async () => {
      const q = make();
      const controller = new AbortController();
      const waiting = q.queue.pop(() => {
        throw new Error("must not be called");
      }, controller.signal);
      await flush();
      const reason = new Error("stop");
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      q.queue.add(obj("ns/a"));
      await expect(
        q.queue.pop(() => undefined, AbortSignal.abort(new Error("already"))),
      ).rejects.toThrow("already");
      expect(q.queue.length).toBe(1);
      const recorder = await drain(q);
      expect(recorder.events).toEqual(["add ns/a@1"]);
    });

    it("hasSynced is false at first and true right after an add that precedes any relist", () => {
      const a = make();
      expect(a.queue.hasSynced()).toBe(false);
      a.queue.add(obj("ns/a"));
      expect(a.queue.hasSynced()).toBe(true);
      const b = make();
      b.queue.update(obj("ns/a"));
      expect(b.queue.hasSynced()).toBe(true);
      const c = make();
      c.queue.delete(obj("ns/a"));
      expect(c.queue.hasSynced()).toBe(true);
    });

    it("the first relist: initial items are flagged and hasSynced waits for all of them", async () => {
      const q = make();
      q.queue.replace([obj("ns/a"), obj("ns/b")], "10");
      expect(q.queue.hasSynced()).toBe(false);
      const recorder = await drain(q);
      expect(q.queue.hasSynced()).toBe(true);
      expect(recorder.events.sort()).toEqual(["add ns/a@1 initial", "add ns/b@1 initial"]);
      q.queue.add(obj("ns/c"));
      q.queue.replace([obj("ns/a"), obj("ns/b"), obj("ns/c")], "11");
      expect(q.queue.hasSynced()).toBe(true);
      await drain(q, recorder);
      expect(recorder.events).toContain("add ns/c@1");
      expect(recorder.events.filter((e) => e.endsWith("initial"))).toHaveLength(2);
    });

    it("an empty first relist leaves the queue synced once drained", async () => {
      const q = make();
      q.queue.replace([], "1");
      await drain(q);
      expect(q.queue.hasSynced()).toBe(true);
      expect(q.indexer.listKeys()).toEqual([]);
    });

    it("a relist yields updates for kept objects, adds for new ones and tombstones for gone ones", async () => {
      const q = make();
      q.queue.replace([obj("ns/a", "1"), obj("ns/b", "1"), obj("ns/c", "1")], "10");
      await drain(q);
      q.queue.replace([obj("ns/a", "2"), obj("ns/b", "1"), obj("ns/d", "1")], "20");
      const recorder = await drain(q);
      expect(recorder.events.sort()).toEqual([
        "add ns/d@1",
        "delete ~ns/c@1",
        "update ns/a@1 -> ns/a@2",
        "update ns/b@1 -> ns/b@1",
      ]);
      expect(cacheContent(q.indexer)).toEqual(["ns/a@2", "ns/b@1", "ns/d@1"]);
    });

    it("a relist deletes objects whose events are still queued, with their newest state", async () => {
      const q = make();
      q.queue.replace([obj("ns/a", "1")], "10");
      await drain(q);
      q.queue.add(obj("ns/b", "5"));
      q.queue.update(obj("ns/a", "2"));
      q.queue.replace([], "20");
      const recorder = await drain(q);
      expect(recorder.events.sort()).toEqual([
        "add ns/b@5",
        "delete ~ns/a@2",
        "delete ~ns/b@5",
        "update ns/a@1 -> ns/a@2",
      ]);
      expect(q.indexer.listKeys()).toEqual([]);
    });

    it("a delete of a cached object is delivered with its last state", async () => {
      const q = make();
      q.queue.add(obj("ns/a", "1"));
      await drain(q);
      q.queue.delete(obj("ns/a", "2"));
      const recorder = await drain(q);
      expect(recorder.events).toEqual(["delete ns/a@2"]);
      expect(q.indexer.listKeys()).toEqual([]);
    });

    it("delivers changes to different keys in arrival order", async () => {
      const q = make();
      q.queue.add(obj("ns/c"));
      q.queue.add(obj("ns/a"));
      q.queue.add(obj("b"));
      const recorder = await drain(q);
      expect(recorder.events).toEqual(["add ns/c@1", "add ns/a@1", "add b@1"]);
    });

    it("length is the backlog", async () => {
      const q = make();
      expect(q.queue.length).toBe(0);
      q.queue.add(obj("ns/a"));
      q.queue.add(obj("ns/b"));
      expect(q.queue.length).toBe(2);
      await q.queue.pop(() => undefined);
      expect(q.queue.length).toBe(1);
    });

    it("transforms added, updated, deleted and relisted objects once, never tombstones", async () => {
      let calls = 0;
      const transform: TransformFunc<Obj> = (o) => ({ ...o, transformed: ++calls });
      const q = make({ transform });
      q.queue.add(obj("ns/a", "1"));
      q.queue.add(obj("ns/gone", "1"));
      await drain(q);
      q.queue.update(obj("ns/a", "2"));
      q.queue.replace([obj("ns/a", "3")], "10");
      const recorder = await drain(q);
      expect(calls).toBe(4);
      expect(cacheContent(q.indexer)).toEqual(["ns/a@3+t4"]);
      expect(recorder.events).toContain("delete ~ns/gone@1");
      q.queue.delete(obj("ns/a", "4"));
      await drain(q, recorder);
      expect(calls).toBe(5);
      expect(recorder.events).toContain("delete ns/a@4+t5");
    });

    it("a key error is thrown to the writer and queues nothing", () => {
      const q = make();
      expect(() => q.queue.add({ metadata: {} })).toThrow(ObjectKeyError);
      expect(() => q.queue.update({ metadata: { namespace: "ns" } })).toThrow(ObjectKeyError);
      expect(() => q.queue.replace([obj("ns/a"), { metadata: {} }], "1")).toThrow(ObjectKeyError);
      expect(q.queue.length).toBe(0);
      expect(q.queue.hasSynced()).toBe(false);
    });

    it("a transform error is thrown to the writer and queues nothing", () => {
      const q = make({
        transform: (o) => {
          if (o.metadata.name === "bad") throw new Error("cannot transform");
          return o;
        },
      });
      expect(() => q.queue.add(obj("ns/bad"))).toThrow("cannot transform");
      expect(() => q.queue.replace([obj("ns/a"), obj("ns/bad")], "1")).toThrow("cannot transform");
      expect(q.queue.length).toBe(0);
      expect(q.queue.hasSynced()).toBe(false);
    });
  });
}
