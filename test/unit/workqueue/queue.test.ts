import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { Queue } from "kubekit";
import { isSettled, wasCollected } from "./support.js";

/** Gets an item that must be there. */
async function take<T>(q: Queue<T>): Promise<T> {
  const [item, shutdown] = await q.get();
  if (shutdown) throw new Error("queue unexpectedly shut down");
  return item;
}

describe("Queue: marking and de-duplication", () => {
  it("hands items out in the order they were queued, each once however often it was added", async () => {
    const q = new Queue<string>();
    q.add("a");
    q.add("b");
    q.add("a");
    q.add("c");
    q.add("b");
    expect(q.len()).toBe(3);
    expect([await take(q), await take(q), await take(q)]).toEqual(["a", "b", "c"]);
    expect(q.len()).toBe(0);
  });

  it("counts only queued items in len(), not those being processed", async () => {
    const q = new Queue<string>();
    q.add("a");
    q.add("b");
    await take(q);
    expect(q.len()).toBe(1);
  });

  it("queues an item added while it is processed once more, only after done", async () => {
    const q = new Queue<string>();
    q.add("a");
    const a = await take(q);
    q.add("a");
    q.add("a");
    q.add("a");
    expect(q.len()).toBe(0);
    q.done(a);
    expect(q.len()).toBe(1);
    expect(await take(q)).toBe("a");
    q.done("a");
    expect(q.len()).toBe(0);
  });

  it("never hands an item to a second worker while the first processes it", async () => {
    const q = new Queue<string>();
    const first = q.get();
    const second = q.get();
    q.add("a");
    expect(await first).toEqual(["a", false]);
    q.add("a");
    expect(await isSettled(second)).toBe(false);
    expect(q.len()).toBe(0);
    q.done("a");
    expect(await second).toEqual(["a", false]);
  });

  it("keeps a re-added item's place in line", async () => {
    const q = new Queue<string>();
    q.add("a");
    q.add("b");
    q.add("a");
    expect([await take(q), await take(q)]).toEqual(["a", "b"]);
  });

  it("ignores done for an item that is not being processed (no duplicate is queued)", async () => {
    const q = new Queue<string>();
    q.done("never-added");
    q.add("a");
    q.done("a"); // queued, not processing
    expect(q.len()).toBe(1);
    expect(await take(q)).toBe("a");
    q.done("a");
    q.done("a");
    expect(q.len()).toBe(0);
    q.add("a");
    expect(q.len()).toBe(1);
  });

  it("tells waiting items from processed ones after hand-outs from the line and to blocked gets", async () => {
    const q = new Queue<string>();
    // Handed straight to a blocked get, then re-added while processed.
    const blocked = q.get();
    q.add("a");
    expect(await blocked).toEqual(["a", false]);
    q.add("b");
    q.add("c");
    expect(await take(q)).toBe("b");
    q.add("a"); // processed: queued again on done
    q.add("b"); // processed: queued again on done
    q.done("c"); // waiting: ignored
    q.add("c"); // waiting: ignored
    expect(q.len()).toBe(1);
    q.done("b");
    q.done("a");
    expect(q.len()).toBe(3);
    // The re-queued items went behind the one waiting, in the order of their done.
    expect([await take(q), await take(q), await take(q)]).toEqual(["c", "b", "a"]);
    q.done("b"); // processed, not re-added: forgotten
    q.add("b");
    q.done("b"); // waiting again: ignored
    q.done("c");
    q.done("a");
    expect(q.len()).toBe(1);
    expect(await take(q)).toBe("b");
    q.done("b");
    expect(q.len()).toBe(0);
    expect(await isSettled(q.get())).toBe(false);
  });

  it("compares items with SameValueZero: values by value, objects by identity", async () => {
    const q = new Queue<unknown>();
    q.add(0);
    q.add(-0);
    q.add(NaN);
    q.add(NaN);
    q.add("1");
    q.add(1);
    const o1 = { k: "x" };
    const o2 = { k: "x" };
    q.add(o1);
    q.add(o2);
    q.add(o1);
    expect(q.len()).toBe(6);
    const got: unknown[] = [];
    while (q.len() > 0) got.push(await take(q));
    expect(got).toEqual([0, NaN, "1", 1, o1, o2]);
    expect(got[4]).toBe(o1);
    expect(got[5]).toBe(o2);
  });

  it("serves blocked gets in the order they were made", async () => {
    const q = new Queue<string>();
    const gets = [q.get(), q.get(), q.get()];
    q.add("a");
    q.add("b");
    q.add("c");
    expect(await Promise.all(gets)).toEqual([
      ["a", false],
      ["b", false],
      ["c", false],
    ]);
  });

  it("keeps order across the buffer's growth and shrinking", async () => {
    const q = new Queue<number>();
    let next = 0;
    let expected = 0;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 1000; i++) q.add(next++);
      for (let i = 0; i < 900; i++) {
        const item = await take(q);
        expect(item).toBe(expected++);
        q.done(item);
      }
    }
    while (q.len() > 0) expect(await take(q)).toBe(expected++);
    expect(expected).toBe(next);
  });
});

describe("Queue: shutdown", () => {
  it("hands out queued items after shutDown, then [undefined, true], and ignores adds", async () => {
    const q = new Queue<string>();
    q.add("a");
    q.add("b");
    q.shutDown();
    expect(q.shuttingDown()).toBe(true);
    q.add("c");
    expect(q.len()).toBe(2);
    expect(await q.get()).toEqual(["a", false]);
    expect(await q.get()).toEqual(["b", false]);
    expect(await q.get()).toEqual([undefined, true]);
    expect(await q.get()).toEqual([undefined, true]);
  });

  it("wakes every blocked get with [undefined, true]", async () => {
    const q = new Queue<string>();
    const gets = [q.get(), q.get()];
    expect(await isSettled(gets[0] as Promise<unknown>)).toBe(false);
    q.shutDown();
    expect(await Promise.all(gets)).toEqual([
      [undefined, true],
      [undefined, true],
    ]);
  });

  it("still requeues, after shutDown, an item that was added again while processed", async () => {
    const q = new Queue<string>();
    q.add("a");
    await take(q);
    q.add("a");
    q.shutDown();
    expect(await q.get()).toEqual([undefined, true]);
    q.done("a");
    expect(await q.get()).toEqual(["a", false]);
    q.done("a");
    expect(await q.get()).toEqual([undefined, true]);
  });

  it("shutDownWithDrain resolves once every handed-out item is done", async () => {
    const q = new Queue<string>();
    q.add("a");
    q.add("b");
    q.add("c");
    await take(q);
    await take(q);
    const drained = q.shutDownWithDrain();
    expect(q.shuttingDown()).toBe(true);
    q.done("a");
    expect(await isSettled(drained)).toBe(false);
    q.done("b");
    expect(await isSettled(drained)).toBe(true);
    // Queued items are still handed out after the drain.
    expect(await q.get()).toEqual(["c", false]);
  });

  it("shutDownWithDrain resolves at once when nothing is being processed", async () => {
    const q = new Queue<string>();
    q.add("queued");
    expect(await isSettled(q.shutDownWithDrain())).toBe(true);
  });

  it("shutDownWithDrain with an item dirtied during processing: the item is handed out again", async () => {
    const q = new Queue<string>();
    q.add("foo");
    const foo = await take(q);
    q.add("foo");
    const drained = q.shutDownWithDrain();
    expect(await q.get()).toEqual([undefined, true]);
    q.done(foo);
    expect(await q.get()).toEqual(["foo", false]);
    q.done("foo");
    expect(await q.get()).toEqual([undefined, true]);
    expect(await isSettled(drained)).toBe(true);
  });

  it("a later shutDown ends a shutDownWithDrain that is still waiting", async () => {
    const q = new Queue<string>();
    q.add("a");
    await take(q);
    const drained = q.shutDownWithDrain();
    expect(await isSettled(drained)).toBe(false);
    q.shutDown();
    expect(await isSettled(drained)).toBe(true);
  });
});

describe("Queue: get with an AbortSignal", () => {
  it("rejects with the signal's reason when aborted while waiting, and loses no item", async () => {
    const q = new Queue<string>();
    const ac = new AbortController();
    const waiting = q.get(ac.signal);
    const reason = new Error("stop");
    ac.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    q.add("a");
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(["a", false]);
  });

  it("rejects at once for an aborted signal and takes nothing", async () => {
    const q = new Queue<string>();
    q.add("a");
    const reason = new Error("already");
    await expect(q.get(AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(["a", false]);
  });

  it("an aborted getter leaves the line: the next one gets the item", async () => {
    const q = new Queue<string>();
    const acs = [new AbortController(), new AbortController(), new AbortController()];
    const gets = acs.map((ac) => q.get(ac.signal));
    acs[1]?.abort();
    acs[0]?.abort();
    await expect(gets[0]).rejects.toBeDefined();
    await expect(gets[1]).rejects.toBeDefined();
    q.add("a");
    expect(await gets[2]).toEqual(["a", false]);
  });

  it("leaves no listener on the signal once a get is served or the queue shuts down", async () => {
    const q = new Queue<number>();
    const ac = new AbortController();
    for (let i = 0; i < 50; i++) {
      const got = q.get(ac.signal);
      q.add(i);
      expect(await got).toEqual([i, false]);
      q.done(i);
    }
    const waiting = q.get(ac.signal);
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(1);
    q.shutDown();
    expect(await waiting).toEqual([undefined, true]);
    expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
  });

  it("an abort after the item was handed over changes nothing", async () => {
    const q = new Queue<string>();
    const ac = new AbortController();
    const got = q.get(ac.signal);
    q.add("a");
    ac.abort();
    expect(await got).toEqual(["a", false]);
    q.done("a");
    expect(q.len()).toBe(0);
  });
});

describe("Queue: references", () => {
  it("keeps no reference to a done item", async () => {
    const q = new Queue<object>();
    const ref = await (async () => {
      const item = { big: new Array(1000).fill(1) };
      q.add(item);
      q.add(item);
      const got = await take(q);
      q.add(got); // dirty while processing: requeued on done
      q.done(got);
      q.done(await take(q));
      return new WeakRef(item);
    })();
    expect(q.len()).toBe(0);
    expect(await wasCollected(ref)).toBe(true);
  });
});
