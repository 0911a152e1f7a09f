import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { DelayingQueue } from "kubekit";
import { SeededRandom } from "../../support/seeded-random.js";
import { wasCollected } from "./support.js";
import type { ChildScriptResult } from "../../support/child-script.js";
import { runChildScript } from "../../support/child-script.js";

/** Every item currently queued, taken and marked done, in order. */
async function drainQueued<T>(q: DelayingQueue<T>): Promise<T[]> {
  const out: T[] = [];
  while (q.len() > 0) {
    const [item, shutdown] = await q.get();
    if (shutdown) break;
    out.push(item);
    q.done(item);
  }
  return out;
}

describe("DelayingQueue.addAfter", () => {
  it("adds at once for a delay of 0, a negative delay or NaN", () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("zero", 0);
    q.addAfter("negative", -5);
    q.addAfter("nan", NaN);
    expect(q.len()).toBe(3);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("adds an item once its delay has passed on the clock", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("a", 50);
    expect(q.len()).toBe(0);
    clock.advance(49);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    expect(await q.get()).toEqual(["a", false]);
  });

  it("wakes a blocked get when the item becomes ready", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    const got = q.get();
    q.addAfter("a", 10);
    clock.advance(10);
    expect(await got).toEqual(["a", false]);
  });

  it("keeps the EARLIER ready time of an item scheduled twice, and adds it once", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("a", 100);
    q.addAfter("a", 50);
    q.addAfter("a", 200);
    clock.advance(50);
    expect(await drainQueued(q)).toEqual(["a"]);
    clock.advance(1000);
    expect(q.len()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("adds waiting items in ready-time order, ties in the order scheduled", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("late", 30);
    q.addAfter("early", 10);
    q.addAfter("tie-1", 20);
    q.addAfter("tie-2", 20);
    q.addAfter("late", 5); // moves ahead of everything
    clock.advance(30);
    expect(await drainQueued(q)).toEqual(["late", "early", "tie-1", "tie-2"]);
  });

  it("adds only what is ready and re-arms for the rest", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("a", 10);
    q.addAfter("b", 30);
    clock.advance(20);
    expect(await drainQueued(q)).toEqual(["a"]);
    expect(clock.nextTimerAt()).toBe(clock.now() + 10);
    clock.advance(10);
    expect(await drainQueued(q)).toEqual(["b"]);
  });

  it("arms a single timer, for the earliest ready time", () => {
    const clock = new FakeClock();
    const start = clock.now();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("a", 100);
    q.addAfter("b", 300);
    q.addAfter("c", 200);
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.nextTimerAt()).toBe(start + 100);
    q.addAfter("d", 40);
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.nextTimerAt()).toBe(start + 40);
  });

  it("does not de-duplicate a waiting item against the queue: it is added again when ready", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("a", 10);
    q.add("a");
    expect(await drainQueued(q)).toEqual(["a"]);
    clock.advance(10);
    expect(await drainQueued(q)).toEqual(["a"]);
  });

  it("releases every item at its due time under random schedules", async () => {
    const random = new SeededRandom(10);
    const clock = new FakeClock();
    const start = clock.now();
    const q = new DelayingQueue<number>({ clock });
    const due = new Map<number, number>();
    for (let i = 0; i < 2000; i++) {
      const item = random.int(0, 300);
      const at = clock.now() + random.int(1, 500);
      due.set(item, Math.min(due.get(item) ?? Infinity, at));
      q.addAfter(item, at - clock.now());
      if (random.chance(0.05)) {
        clock.advance(random.int(0, 20));
        for (const got of await drainQueued(q)) {
          expect(due.get(got)).toBeLessThanOrEqual(clock.now());
          due.delete(got);
        }
      }
    }
    while (due.size > 0) {
      clock.advance(1);
      for (const got of await drainQueued(q)) {
        expect(due.get(got)).toBe(clock.now());
        due.delete(got);
      }
      expect(clock.now() - start).toBeLessThan(10_000);
    }
    expect(clock.pendingTimers()).toBe(0);
  });

  it("keeps no reference to an item once it was added and done", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<object>({ clock });
    const ref = await (async () => {
      const item = { big: new Array(1000).fill(1) };
      q.addAfter(item, 10);
      clock.advance(10);
      const [got] = await q.get();
      if (got) q.done(got);
      return new WeakRef(item);
    })();
    expect(await wasCollected(ref)).toBe(true);
  });
});

describe("DelayingQueue shutdown", () => {
  it("cancels its timer and drops waiting items on shutDown; later addAfters are ignored", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("a", 10);
    expect(clock.pendingTimers()).toBe(1);
    q.shutDown();
    expect(clock.pendingTimers()).toBe(0);
    q.addAfter("b", 10);
    q.addAfter("c", 0);
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(100);
    expect(q.len()).toBe(0);
    expect(await q.get()).toEqual([undefined, true]);
  });

  it("cancels its timer on shutDownWithDrain too", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("a", 10);
    await q.shutDownWithDrain();
    expect(clock.pendingTimers()).toBe(0);
  });

  const runOnRealClock = (script: string): ChildScriptResult =>
    runChildScript("packages/kubekit/src/workqueue/delaying-queue.ts", ["DelayingQueue"], script);

  it("keeps the process alive while a running queue has waiting items", () => {
    const { status, stdout } = runOnRealClock(`
      const q = new DelayingQueue();
      q.addAfter("a", 200);
      const [item] = await q.get();
      console.log("got", item);
      q.done(item);
      q.shutDown();`);
    expect(stdout).toBe("got a\n");
    expect(status).toBe(0);
  });

  it("lets the process exit once the queue is shut down, items still waiting", () => {
    const started = Date.now();
    const { status, stdout } = runOnRealClock(`
      const q = new DelayingQueue();
      q.addAfter("a", 600000);
      q.addAfter("b", 300000);
      q.shutDown();
      console.log("stopped");`);
    expect(stdout).toBe("stopped\n");
    expect(status).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
