import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { ItemExponentialFailureRateLimiter, RateLimitingQueue } from "kubekit";

describe("RateLimitingQueue", () => {
  it("adds after the limiter's delay, counts requeues and forgets", () => {
    const clock = new FakeClock();
    const start = clock.now();
    const q = new RateLimitingQueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter<string>(1, 1000),
    });
    q.addRateLimited("one");
    expect(clock.nextTimerAt()).toBe(start + 1);
    q.addRateLimited("one");
    // Still waiting once, at the earlier ready time.
    expect(clock.nextTimerAt()).toBe(start + 1);
    expect(q.numRequeues("one")).toBe(2);
    q.addRateLimited("two");
    expect(q.numRequeues("two")).toBe(1);
    q.forget("one");
    expect(q.numRequeues("one")).toBe(0);
    q.addRateLimited("one");
    expect(q.numRequeues("one")).toBe(1);
    clock.advance(1);
    expect(q.len()).toBe(2);
  });

  it("uses defaultControllerRateLimiter on the queue's clock by default (5 ms, 10 ms, ...)", async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock });
    q.addRateLimited("a");
    clock.advance(4);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    const [item] = await q.get();
    expect(item).toBe("a");
    q.done("a");
    q.addRateLimited("a");
    clock.advance(9);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    expect(q.numRequeues("a")).toBe(2);
  });

  it("has the delaying queue's addAfter", () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock });
    q.addAfter("a", 30);
    clock.advance(30);
    expect(q.len()).toBe(1);
    expect(q.numRequeues("a")).toBe(0);
  });

  it("after shutDown the limiter still counts the failure but the item is dropped", () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue<string>({ clock });
    q.shutDown();
    q.addRateLimited("a");
    expect(q.numRequeues("a")).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
    expect(q.len()).toBe(0);
  });
});
