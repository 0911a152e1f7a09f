import { afterEach, describe, expect, it } from "vitest";
import { DeletedFinalStateUnknown } from "kubekit";
import type { Obj } from "./fixtures.js";
import { obj } from "./fixtures.js";
import {
  RecordingHandler,
  settle,
  waitUntil,
  setupInformer,
  stopInformers,
} from "./shared-index-informer-harness.js";

afterEach(stopInformers);

type QueueKind = "in-order" | "delta-fifo";

const setup = setupInformer;

/** The resync notifications a handler got: updates whose old and new object are the same. */
function resyncs(h: RecordingHandler): number {
  return h.raw.filter((n) => n.type === "update" && n.args[0] === n.args[1]).length;
}

describe("SharedIndexInformer resync periods", () => {
  it("raises handler periods to 1 s; before run a smaller period lowers the check period", () => {
    const { informer } = setup([], { resyncPeriodMs: 10_000 });
    const byDefault = informer.addEventHandler({});
    const never = informer.addEventHandler({}, { resyncPeriodMs: 0 });
    expect(byDefault.resyncPeriodMs).toBe(10_000);
    expect(informer.resyncCheckPeriodMs).toBe(10_000);

    const fast = informer.addEventHandler({}, { resyncPeriodMs: 100 });
    expect(fast.resyncPeriodMs).toBe(1_000);
    expect(informer.resyncCheckPeriodMs).toBe(1_000);
    expect(byDefault.resyncPeriodMs).toBe(10_000);
    expect(never.resyncPeriodMs).toBe(0);

    const slower = informer.addEventHandler({}, { resyncPeriodMs: 5_000 });
    expect(slower.resyncPeriodMs).toBe(5_000);
    expect(informer.resyncCheckPeriodMs).toBe(1_000);
  });

  it("after run, raises a smaller handler period to the check period", async () => {
    const { informer, run, logger } = setup([], { resyncPeriodMs: 10_000 });
    run();
    await informer.waitForSync();
    const reg = informer.addEventHandler({}, { resyncPeriodMs: 2_000 });
    expect(reg.resyncPeriodMs).toBe(10_000);
    expect(informer.resyncCheckPeriodMs).toBe(10_000);
    expect(logger.entries.some((e) => e.message.includes("resync check period"))).toBe(true);
  });

  it("never resyncs when the informer's period is 0, whatever handlers ask", async () => {
    const { lw, clock, informer, run } = setup([obj("ns/a")]);
    const h = new RecordingHandler();
    const reg = informer.addEventHandler(h, { resyncPeriodMs: 5_000 });
    expect(reg.resyncPeriodMs).toBe(0);
    expect(informer.resyncCheckPeriodMs).toBe(0);
    run();
    await reg.waitForSync();
    await lw.watchOpened();
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(60_000);
    await settle();
    expect(h.events).toEqual(["add ns/a@101 initial"]);
  });
});

describe.each<QueueKind>(["in-order", "delta-fifo"])("SharedIndexInformer resync (%s)", (queue) => {
  it("re-delivers the cache only to the handlers that are due", async () => {
    const { lw, clock, informer, run } = setup([obj("ns/a"), obj("ns/b")], {
      queue,
      resyncPeriodMs: 10_000,
    });
    const every10 = new RecordingHandler();
    const every30 = new RecordingHandler();
    const never = new RecordingHandler();
    informer.addEventHandler(every10);
    informer.addEventHandler(every30, { resyncPeriodMs: 30_000 });
    informer.addEventHandler(never, { resyncPeriodMs: 0 });
    run();
    await informer.waitForSync();
    await lw.watchOpened();

    clock.advance(10_000);
    await waitUntil(() => resyncs(every10) === 2, "the first resync");
    expect(every10.events.slice(2)).toEqual([
      "update ns/a@101 -> ns/a@101",
      "update ns/b@102 -> ns/b@102",
    ]);
    clock.advance(10_000);
    await waitUntil(() => resyncs(every10) === 4, "the second resync");
    await settle();
    expect(resyncs(every30)).toBe(0);

    clock.advance(10_000);
    await waitUntil(() => resyncs(every30) === 2, "the 30 s resync");
    await waitUntil(() => resyncs(every10) === 6, "the third resync");
    await settle();
    expect(never.events).toEqual(["add ns/a@101 initial", "add ns/b@102 initial"]);
  });

  it("resyncs a handler that lowered the check period at its own pace", async () => {
    const { lw, clock, informer, run } = setup([obj("ns/a")], { queue, resyncPeriodMs: 10_000 });
    const slow = new RecordingHandler();
    const fast = new RecordingHandler();
    informer.addEventHandler(slow);
    informer.addEventHandler(fast, { resyncPeriodMs: 1_500 });
    run();
    await informer.waitForSync();
    await lw.watchOpened();
    for (let t = 1_500; t <= 9_000; t += 1_500) {
      clock.advance(1_500);
      await waitUntil(() => resyncs(fast) === t / 1_500, `the resync at ${t} ms`);
    }
    await settle();
    expect(resyncs(slow)).toBe(0);
    clock.advance(1_500); // 10.5 s: the first check at or after 10 s
    await waitUntil(() => resyncs(slow) === 1, "the slow handler's resync");
    expect(resyncs(fast)).toBe(7);
  });

  it("turns a deletion missed by the watch into a tombstone on relist", async () => {
    const { lw, clock, informer, errors, run } = setup([obj("ns/a"), obj("ns/b")], { queue });
    const h = new RecordingHandler();
    informer.addEventHandler(h);
    run();
    await informer.waitForSync();
    await lw.watchOpened();
    lw.deleteSilently("ns/b");
    lw.create(obj("ns/c")); // reaches the watch...
    lw.failWatches(); // ...which then expires: relist after a backoff
    await waitUntil(() => errors.length === 1, "the watch error");
    clock.advance(1_600); // the longest first backoff (800 ms with jitter 1.0)
    await lw.watchOpened(2);
    await waitUntil(() => h.raw.some((n) => n.type === "delete"), "the tombstone");
    const deletion = h.raw.find((n) => n.type === "delete")?.args[0];
    expect(deletion).toBeInstanceOf(DeletedFinalStateUnknown);
    const tombstone = deletion as DeletedFinalStateUnknown<Obj>;
    expect(tombstone.key).toBe("ns/b");
    expect(tombstone.obj?.metadata.resourceVersion).toBe("102");
    expect(informer.indexer.listKeys().sort()).toEqual(["ns/a", "ns/c"]);
    expect(h.events.slice(0, 3)).toEqual([
      "add ns/a@101 initial",
      "add ns/b@102 initial",
      "add ns/c@104",
    ]);
    expect(lw.lists).toHaveLength(2);
  });

  it("sends relisted unchanged objects only to handlers flagged at the last resync check", async () => {
    const { lw, clock, informer, errors, run } = setup([obj("ns/a"), obj("ns/b")], {
      queue,
      resyncPeriodMs: 10_000,
    });
    const resyncing = new RecordingHandler();
    const notResyncing = new RecordingHandler();
    informer.addEventHandler(resyncing);
    informer.addEventHandler(notResyncing, { resyncPeriodMs: 0 });
    run();
    await informer.waitForSync();
    await lw.watchOpened();
    clock.advance(10_000);
    await waitUntil(() => resyncs(resyncing) === 2, "the resync");

    lw.deleteSilently("ns/b");
    lw.failWatches();
    await waitUntil(() => errors.length === 1, "the watch error");
    clock.advance(1_600);
    await lw.watchOpened(2);
    await waitUntil(
      () => notResyncing.raw.some((n) => n.type === "delete"),
      "the tombstone to reach the non-resyncing handler",
    );
    await waitUntil(() => resyncing.events.length === 6, "the relist to reach the resyncing one");
    const relist =
      queue === "in-order"
        ? ["delete ~ns/b@102", "update ns/a@101 -> ns/a@101"]
        : ["update ns/a@101 -> ns/a@101", "delete ~ns/b@102"];
    expect(resyncing.events.slice(4)).toEqual(relist);
    await settle();
    expect(notResyncing.events).toEqual([
      "add ns/a@101 initial",
      "add ns/b@102 initial",
      "delete ~ns/b@102",
    ]);
  });
});
