import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { TokenBucket } from "kubekit";

/** Lets promise continuations (the code after `await clock.sleep`) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe("TokenBucket construction", () => {
  it("rejects a zero or NaN qps and a burst below 1 or fractional", () => {
    expect(() => new TokenBucket(0, 10)).toThrow(RangeError);
    expect(() => new TokenBucket(Number.NaN, 10)).toThrow(RangeError);
    expect(() => new TokenBucket(5, 0)).toThrow(RangeError);
    expect(() => new TokenBucket(5, 1.5)).toThrow(RangeError);
  });

  it("treats a negative or infinite qps as unlimited, whatever the burst", () => {
    const clock = new FakeClock(0);
    for (const bucket of [new TokenBucket(-1, 0, clock), new TokenBucket(Infinity, 0, clock)]) {
      expect(bucket.limited).toBe(false);
      for (let i = 0; i < 1000; i++) expect(bucket.tryAccept()).toBe(true);
      expect(bucket.reserve()).toBe(0);
    }
  });
});

describe("TokenBucket burst and refill", () => {
  it("allows a burst at once, then refuses until a token refills", () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(5, 3, clock);
    expect([bucket.tryAccept(), bucket.tryAccept(), bucket.tryAccept()]).toEqual([
      true,
      true,
      true,
    ]);
    expect(bucket.tryAccept()).toBe(false);
    clock.advance(199);
    expect(bucket.tryAccept()).toBe(false);
    clock.advance(1);
    expect(bucket.tryAccept()).toBe(true);
    expect(bucket.tryAccept()).toBe(false);
  });

  it("never holds more than burst tokens after a long idle period", () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(10, 2, clock);
    clock.advance(60_000);
    expect(bucket.tryAccept()).toBe(true);
    expect(bucket.tryAccept()).toBe(true);
    expect(bucket.tryAccept()).toBe(false);
  });

  it("reserve() spaces successive callers 1/qps apart once the burst is used", () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(2, 2, clock);
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([
      0, 0, 500, 1000,
    ]);
    clock.advance(1000);
    // Both reserved tokens were consumed by now; the next waits a full interval.
    expect(bucket.reserve()).toBe(500);
  });

  it("adds nothing when the clock goes backwards", () => {
    const clock = new FakeClock(10_000);
    const bucket = new TokenBucket(1, 1, clock);
    expect(bucket.tryAccept()).toBe(true);
    clock.setTime(0);
    expect(bucket.tryAccept()).toBe(false);
    clock.setTime(999);
    expect(bucket.tryAccept()).toBe(false);
    clock.setTime(1000);
    expect(bucket.tryAccept()).toBe(true);
  });
});

describe("TokenBucket.wait", () => {
  it("resolves at once with 0 while tokens remain", async () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(1, 2, clock);
    await expect(bucket.wait()).resolves.toBe(0);
    await expect(bucket.wait()).resolves.toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("waits on the clock, in call order, and reports the time waited", async () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(4, 1, clock);
    await bucket.wait();
    const done: number[] = [];
    const second = bucket.wait().then((ms) => done.push(ms));
    const third = bucket.wait().then((ms) => done.push(ms));
    await settle();
    expect(done).toEqual([]);
    clock.advance(249);
    await settle();
    expect(done).toEqual([]);
    clock.advance(1);
    await second;
    expect(done).toEqual([250]);
    clock.advance(250);
    await third;
    expect(done).toEqual([250, 500]);
  });

  it("is immediate for an unlimited bucket", async () => {
    const bucket = new TokenBucket(-5, 0, new FakeClock(0));
    for (let i = 0; i < 50; i++) await expect(bucket.wait()).resolves.toBe(0);
  });

  it("rejects with the reason of an already aborted signal without taking a token", async () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(1, 1, clock);
    const reason = new Error("stop");
    await expect(bucket.wait(AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(bucket.tryAccept()).toBe(true);
  });

  it("rejects on abort during the wait and gives the token back", async () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(1, 1, clock);
    expect(bucket.tryAccept()).toBe(true);
    const controller = new AbortController();
    const waiting = bucket.wait(controller.signal);
    await clock.waitForTimers(1);
    clock.advance(400);
    const reason = new Error("cancelled");
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(clock.pendingTimers()).toBe(0);
    // The cancelled reservation no longer delays others: the token is ready at 1000 ms.
    clock.advance(600);
    expect(bucket.tryAccept()).toBe(true);
  });

  it("keeps later reservations when an earlier waiter aborts", async () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(1, 1, clock);
    bucket.tryAccept();
    const controller = new AbortController();
    const first = bucket.wait(controller.signal);
    const second = bucket.wait();
    controller.abort(new Error("x"));
    await expect(first).rejects.toThrow("x");
    let secondDone = false;
    void second.then(() => (secondDone = true));
    clock.advance(1999);
    await settle();
    expect(secondDone).toBe(false);
    clock.advance(1);
    await expect(second).resolves.toBe(2000);
  });
});
