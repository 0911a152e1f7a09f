import { describe, expect, it } from "vitest";
import { ItemExponentialFailureRateLimiter, PriorityQueue } from "kubekit";
import { FakeClock } from "../../../packages/kubekit/src/core/clock.js";
import { flush, isSettled } from "./support.js";

/** Takes every ready item (and marks it done), in the order handed out. */
async function drain(queue: PriorityQueue<string>): Promise<string[]> {
  const out: string[] = [];
  while (queue.len() > 0) {
    const [item, shutdown] = await queue.get();
    if (shutdown) break;
    out.push(item);
    queue.done(item);
  }
  return out;
}

function newQueue(clock = new FakeClock()): PriorityQueue<string> {
  return new PriorityQueue<string>({ clock });
}

describe("PriorityQueue", () => {
  it("hands out the highest priority first, in order of readiness within a priority", async () => {
    const q = newQueue();
    q.addWithOptions({ priority: -100 }, "low-1", "low-2");
    q.add("mid-1");
    q.addWithOptions({ priority: 10 }, "high");
    q.add("mid-2");
    expect(q.len()).toBe(5);
    expect(await drain(q)).toEqual(["high", "mid-1", "mid-2", "low-1", "low-2"]);
  });

  it("de-duplicates: a second add raises the priority (then counts as newly ready), never lowers it", async () => {
    const q = newQueue();
    q.add("a");
    q.add("b");
    q.addWithOptions({ priority: -100 }, "a"); // lower: ignored
    expect(q.len()).toBe(2);
    q.addWithOptions({ priority: -100 }, "c");
    q.add("c"); // raised to 0, ready after b
    expect(q.len()).toBe(3);
    expect(await drain(q)).toEqual(["a", "b", "c"]);
  });

  it("getWithPriority tells the item's priority", async () => {
    const q = newQueue();
    q.addWithOptions({ priority: 7 }, "x");
    expect(await q.getWithPriority()).toEqual(["x", 7, false]);
    q.shutDown();
    q.done("x");
    expect(await q.getWithPriority()).toEqual([undefined, 0, true]);
  });

  it("adds after a delay on its clock; the earlier ready time wins; a plain add makes it ready at once", async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.addAfter("a", 100);
    q.addAfter("a", 50);
    q.addAfter("b", 200);
    q.addWithOptions({ afterMs: 300, priority: 5 }, "c");
    expect(q.len()).toBe(0);
    clock.advance(50);
    expect(await drain(q)).toEqual(["a"]);
    q.add("c"); // ready now, keeps its raised priority 5
    expect(await q.getWithPriority()).toEqual(["c", 5, false]);
    q.done("c");
    clock.advance(250);
    expect(await drain(q)).toEqual(["b"]);
    // c was made ready: its old delay fires nothing.
    clock.advance(1_000);
    expect(q.len()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("addRateLimited waits the limiter's delay; with afterMs too, the shorter one", async () => {
    const clock = new FakeClock();
    const q = new PriorityQueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter<string>(10, 1_000),
    });
    q.addRateLimited("a"); // 10 ms
    q.addRateLimited("a"); // 20 ms, the earlier time (10) is kept
    expect(q.numRequeues("a")).toBe(2);
    q.addWithOptions({ rateLimited: true, afterMs: 5 }, "b"); // min(5, 10)
    clock.advance(5);
    expect(await drain(q)).toEqual(["b"]);
    clock.advance(5);
    expect(await drain(q)).toEqual(["a"]);
    q.forget("a");
    expect(q.numRequeues("a")).toBe(0);
  });

  it("never hands an item to two workers: an add while processed is queued on done, at the highest priority asked", async () => {
    const q = newQueue();
    q.add("a");
    const [item] = await q.get();
    expect(item).toBe("a");
    q.addWithOptions({ priority: -100 }, "a");
    q.addWithOptions({ priority: 3 }, "a");
    q.add("b");
    expect(q.len()).toBe(1);
    expect(await q.getWithPriority()).toEqual(["b", 0, false]);
    q.done("b");
    expect(q.len()).toBe(0);
    q.done("a");
    expect(q.len()).toBe(1);
    expect(await q.getWithPriority()).toEqual(["a", 3, false]);
    q.done("a");
    q.done("a"); // not processed: no-op
    expect(q.len()).toBe(0);
  });

  it("an add while processed with a delay is queued after the delay once done", async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    q.add("a");
    await q.get();
    q.addAfter("a", 100);
    q.done("a");
    expect(q.len()).toBe(0);
    clock.advance(100);
    expect(await drain(q)).toEqual(["a"]);
  });

  it("serves blocked gets in order; an aborted get takes nothing", async () => {
    const q = newQueue();
    const aborted = new AbortController();
    const first = q.get(aborted.signal);
    const second = q.get();
    aborted.abort(new Error("gone"));
    await expect(first).rejects.toThrow("gone");
    q.addWithOptions({ priority: -5 }, "x");
    expect(await second).toEqual(["x", false]);
    await expect(q.get(aborted.signal)).rejects.toThrow("gone");
  });

  it("shutDown: adds ignored, ready items still handed out, waiting ones dropped, timers cancelled", async () => {
    const clock = new FakeClock();
    const q = newQueue(clock);
    const blocked = q.get();
    q.add("ready");
    expect(await blocked).toEqual(["ready", false]);
    q.add("queued");
    q.addAfter("later", 10);
    const drained = q.shutDownWithDrain();
    expect(q.shuttingDown()).toBe(true);
    q.add("ignored");
    expect(clock.pendingTimers()).toBe(0);
    expect(await q.get()).toEqual(["queued", false]);
    q.done("queued");
    expect(await isSettled(drained)).toBe(false);
    q.done("ready");
    await flush();
    expect(await isSettled(drained)).toBe(true);
    expect(await q.get()).toEqual([undefined, true]);
    clock.advance(10);
    expect(q.len()).toBe(0);
  });

  it("a get blocked at shutdown resolves as shut down", async () => {
    const q = newQueue();
    const blocked = q.getWithPriority();
    q.shutDown();
    expect(await blocked).toEqual([undefined, 0, true]);
  });
});
