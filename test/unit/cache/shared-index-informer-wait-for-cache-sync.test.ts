import { afterEach, describe, expect, it } from "vitest";
import { SharedIndexInformer, waitForCacheSync } from "kubekit";
import { FakeClock } from "kubekit/testing";
import type { Obj } from "./fixtures.js";
import { obj, track } from "./fixtures.js";
import { CapturingLogger, FakeListerWatcher, settle } from "./shared-index-informer-harness.js";

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function informerOver(lw: FakeListerWatcher) {
  const informer = new SharedIndexInformer<Obj>({
    listerWatcher: lw,
    clock: new FakeClock(),
    logger: new CapturingLogger(),
  });
  const controller = new AbortController();
  let done: Promise<void> | undefined;
  cleanups.push(async () => {
    controller.abort();
    await done;
  });
  return {
    informer,
    controller,
    start: () => {
      done = informer.run(controller.signal);
      return done;
    },
  };
}

/** A ListerWatcher whose lists wait until `release()` (or the abort of their signal). */
function heldListerWatcher(initial: readonly Obj[]) {
  const lw = new FakeListerWatcher(initial);
  const release = lw.holdLists();
  return { lw, release };
}

describe("waitForCacheSync", () => {
  it("resolves true once every informer has synced, event-driven", async () => {
    const a = heldListerWatcher([obj("ns/a")]);
    const b = heldListerWatcher([obj("ns/b")]);
    const ia = informerOver(a.lw);
    const ib = informerOver(b.lw);
    void ia.start();
    void ib.start();
    const synced = waitForCacheSync(new AbortController().signal, ia.informer, ib.informer);
    const state = track(synced);
    a.release();
    await settle();
    expect(ia.informer.hasSynced()).toBe(true);
    expect(state.settled).toBe(false);
    b.release();
    expect(await synced).toBe(true);
  });

  it("waits for handler registrations too", async () => {
    const { informer, start } = informerOver(new FakeListerWatcher([obj("ns/a")]));
    let finish: () => void = () => undefined;
    const reg = informer.addEventHandler({
      onAdd: () =>
        new Promise<void>((resolve) => {
          finish = resolve;
        }),
    });
    void start();
    const synced = waitForCacheSync(new AbortController().signal, informer, reg);
    const state = track(synced);
    await settle();
    expect(informer.hasSynced()).toBe(true);
    expect(state.settled).toBe(false);
    finish();
    expect(await synced).toBe(true);
  });

  it("resolves false when the signal aborts first", async () => {
    const held = heldListerWatcher([]);
    const { start, informer } = informerOver(held.lw);
    void start();
    const controller = new AbortController();
    const synced = waitForCacheSync(controller.signal, informer);
    controller.abort();
    expect(await synced).toBe(false);
    expect(await waitForCacheSync(AbortSignal.abort(), informer)).toBe(false);
  });

  it("resolves false when an informer stops before syncing", async () => {
    const held = heldListerWatcher([]);
    const { start, informer, controller } = informerOver(held.lw);
    const done = start();
    const synced = waitForCacheSync(new AbortController().signal, informer);
    controller.abort();
    await done;
    expect(await synced).toBe(false);
  });

  it("resolves true at once when everything has synced, even with an aborted signal", async () => {
    expect(await waitForCacheSync(AbortSignal.abort())).toBe(true);
    expect(await waitForCacheSync(AbortSignal.abort(), { hasSynced: () => true })).toBe(true);
  });

  it("polls sources that only have hasSynced()", async () => {
    let synced = false;
    let checks = 0;
    const source = {
      hasSynced: () => {
        checks++;
        return synced;
      },
    };
    const result = waitForCacheSync(new AbortController().signal, source);
    const state = track(result);
    await settle();
    expect(state.settled).toBe(false);
    synced = true;
    expect(await result).toBe(true);
    expect(checks).toBeGreaterThanOrEqual(3);
  });
});
