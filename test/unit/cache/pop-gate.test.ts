import { describe, expect, it } from "vitest";
import { PopGate } from "../../../packages/kubekit/src/cache/pop-gate.js";
import { flush, track } from "./fixtures.js";

describe("PopGate", () => {
  it("grants at once when free and ready, and holds until released", async () => {
    const gate = new PopGate();
    await gate.acquire(() => true);
    const second = track(gate.acquire(() => true));
    await flush();
    expect(second.settled).toBe(false);
    gate.release();
    await flush();
    expect(second.settled).toBe(true);
  });

  it("waits for readiness, re-checked on notify", async () => {
    const gate = new PopGate();
    let ready = false;
    const waiting = track(gate.acquire(() => ready));
    gate.notify();
    await flush();
    expect(waiting.settled).toBe(false);
    ready = true;
    gate.notify();
    await flush();
    expect(waiting.settled).toBe(true);
  });

  it("serves waiters in arrival order", async () => {
    const gate = new PopGate();
    await gate.acquire(() => true);
    const order: number[] = [];
    const a = gate.acquire(() => true).then(() => order.push(1));
    const b = gate.acquire(() => true).then(() => order.push(2));
    gate.release();
    await a;
    gate.release();
    await b;
    expect(order).toEqual([1, 2]);
  });

  it("an aborted waiter leaves the queue of waiters and never holds the gate", async () => {
    const gate = new PopGate();
    let ready = false;
    const controller = new AbortController();
    const aborted = gate.acquire(() => ready, controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(aborted).rejects.toThrow("cancelled");
    ready = true;
    gate.notify();
    // The gate is still free: a new acquisition is granted immediately.
    await expect(gate.acquire(() => true)).resolves.toBeUndefined();
  });
});
