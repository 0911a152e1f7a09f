import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import {
  EVENT_LOOP_SLICE_MS,
  EventLoopSlice,
  yieldToEventLoop,
} from "../../../packages/kubekit/src/core/event-loop-slice.js";

describe("EventLoopSlice", () => {
  it("is due once the slice has run on the clock, and starts a new one after yielding", async () => {
    const clock = new FakeClock(0);
    const slice = new EventLoopSlice(clock);
    expect(slice.due).toBe(false);
    clock.advance(EVENT_LOOP_SLICE_MS - 1);
    expect(slice.due).toBe(false);
    clock.advance(1);
    expect(slice.due).toBe(true);
    await slice.yield();
    expect(slice.due).toBe(false);
    clock.advance(EVENT_LOOP_SLICE_MS);
    slice.restart();
    expect(slice.due).toBe(false);
  });

  it("lets the event loop run (an immediate queued before) before resuming", async () => {
    const order: string[] = [];
    setImmediate(() => order.push("event loop"));
    await Promise.resolve();
    order.push("microtask");
    await yieldToEventLoop();
    order.push("resumed");
    expect(order).toEqual(["microtask", "event loop", "resumed"]);
  });
});
