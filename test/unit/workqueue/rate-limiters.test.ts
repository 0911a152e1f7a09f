import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
} from "kubekit";

function whens<T>(limiter: RateLimiter<T>, item: T, times: number): number[] {
  return Array.from({ length: times }, () => limiter.when(item));
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe("ItemExponentialFailureRateLimiter", () => {
  it("doubles per failure from the base, per item, and starts over after forget", () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, SECOND);
    expect(whens(limiter, "one", 5)).toEqual([1, 2, 4, 8, 16]);
    expect(limiter.numRequeues("one")).toBe(5);
    expect(whens(limiter, "two", 2)).toEqual([1, 2]);
    expect(limiter.numRequeues("two")).toBe(2);
    limiter.forget("one");
    expect(limiter.numRequeues("one")).toBe(0);
    expect(limiter.when("one")).toBe(1);
    expect(limiter.numRequeues("two")).toBe(2);
  });

  it("caps at the maximum", () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 100);
    expect(whens(limiter, "a", 7)).toEqual([5, 10, 20, 40, 80, 100, 100]);
  });

  it("never overflows: after any number of failures the delay is the maximum", () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(1, 1000 * SECOND);
    whens(limiter, "one", 5);
    expect(limiter.when("one")).toBe(32);
    whens(limiter, "overflow1", 1000);
    expect(limiter.when("overflow1")).toBe(1000 * SECOND);
    whens(limiter, "overflow1", 2000);
    expect(limiter.when("overflow1")).toBe(1000 * SECOND);

    const slow = new ItemExponentialFailureRateLimiter<string>(MINUTE, 1000 * HOUR);
    whens(slow, "two", 2);
    expect(slow.when("two")).toBe(4 * MINUTE);
    whens(slow, "overflow2", 1000);
    expect(slow.when("overflow2")).toBe(1000 * HOUR);
  });

  it("with a zero base always answers 0, and with an infinite maximum never caps", () => {
    expect(whens(new ItemExponentialFailureRateLimiter<string>(0, 10), "a", 3)).toEqual([0, 0, 0]);
    const uncapped = new ItemExponentialFailureRateLimiter<string>(1, Infinity);
    whens(uncapped, "a", 1100);
    expect(uncapped.when("a")).toBe(Infinity);
    expect(uncapped.numRequeues("a")).toBe(1101);
  });

  it("rejects a negative, NaN or infinite base and a negative or NaN maximum", () => {
    expect(() => new ItemExponentialFailureRateLimiter(-1, 10)).toThrow(/baseMs/);
    expect(() => new ItemExponentialFailureRateLimiter(NaN, 10)).toThrow(RangeError);
    expect(() => new ItemExponentialFailureRateLimiter(Infinity, 10)).toThrow(/baseMs/);
    expect(() => new ItemExponentialFailureRateLimiter(1, -1)).toThrow(/maxMs/);
    expect(() => new ItemExponentialFailureRateLimiter(1, NaN)).toThrow(/maxMs/);
  });
});

describe("ItemFastSlowRateLimiter", () => {
  it("answers the fast delay for the first attempts, then the slow one, per item", () => {
    const limiter = new ItemFastSlowRateLimiter<string>(5, 10 * SECOND, 3);
    expect(whens(limiter, "one", 5)).toEqual([5, 5, 5, 10 * SECOND, 10 * SECOND]);
    expect(limiter.numRequeues("one")).toBe(5);
    expect(whens(limiter, "two", 2)).toEqual([5, 5]);
    expect(limiter.numRequeues("two")).toBe(2);
    limiter.forget("one");
    expect(limiter.numRequeues("one")).toBe(0);
    expect(limiter.when("one")).toBe(5);
  });

  it("is all slow with no fast attempts", () => {
    expect(whens(new ItemFastSlowRateLimiter<string>(1, 7, 0), "a", 2)).toEqual([7, 7]);
  });

  it("rejects negative delays and a non-integer attempt count", () => {
    expect(() => new ItemFastSlowRateLimiter(-1, 1, 1)).toThrow(/fastMs/);
    expect(() => new ItemFastSlowRateLimiter(1, NaN, 1)).toThrow(/slowMs/);
    expect(() => new ItemFastSlowRateLimiter(1, 1, 1.5)).toThrow(/maxFastAttempts/);
    expect(() => new ItemFastSlowRateLimiter(1, 1, -1)).toThrow(/maxFastAttempts/);
  });
});

describe("BucketRateLimiter", () => {
  it("lets a burst through, then spaces every item at 1/qps, whatever the item", () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 100, clock);
    for (let i = 0; i < 100; i++) expect(limiter.when(`item-${i}`)).toBe(0);
    expect(limiter.when("a")).toBeCloseTo(100, 9);
    expect(limiter.when("a")).toBeCloseTo(200, 9);
    expect(limiter.when("b")).toBeCloseTo(300, 9);
    expect(limiter.numRequeues("a")).toBe(0);
    limiter.forget("a");
    expect(limiter.when("a")).toBeCloseTo(400, 9);
  });

  it("refills on the clock: a reserved slot is kept, time pays it back", () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 1, clock);
    expect(limiter.when("a")).toBe(0);
    expect(limiter.when("a")).toBeCloseTo(100, 9);
    clock.advance(100);
    expect(limiter.when("a")).toBeCloseTo(100, 9);
    clock.advance(1000);
    expect(limiter.when("a")).toBe(0);
  });

  it("answers 0 for a negative qps (no limit)", () => {
    const limiter = new BucketRateLimiter<string>(-1, 0, new FakeClock());
    expect(whens(limiter, "a", 5)).toEqual([0, 0, 0, 0, 0]);
  });

  it("rejects a zero qps and a burst below 1", () => {
    expect(() => new BucketRateLimiter(0, 1)).toThrow(RangeError);
    expect(() => new BucketRateLimiter(1, 0)).toThrow(/burst/);
  });
});

describe("MaxOfRateLimiter", () => {
  it("answers the longest delay and the highest count, and forgets in all", () => {
    const limiter = new MaxOfRateLimiter<string>(
      new ItemFastSlowRateLimiter<string>(5, 3 * SECOND, 3),
      new ItemExponentialFailureRateLimiter<string>(1, SECOND),
    );
    expect(whens(limiter, "one", 5)).toEqual([5, 5, 5, 3 * SECOND, 3 * SECOND]);
    expect(limiter.numRequeues("one")).toBe(5);
    expect(whens(limiter, "two", 2)).toEqual([5, 5]);
    expect(limiter.numRequeues("two")).toBe(2);
    limiter.forget("one");
    expect(limiter.numRequeues("one")).toBe(0);
    expect(limiter.when("one")).toBe(5);
  });

  it("counts the failure in every limiter, not only the one that wins", () => {
    const fast = new ItemFastSlowRateLimiter<string>(1, 1, 10);
    const exponential = new ItemExponentialFailureRateLimiter<string>(100, SECOND);
    const limiter = new MaxOfRateLimiter<string>(fast, exponential);
    whens(limiter, "a", 3);
    expect(fast.numRequeues("a")).toBe(3);
    expect(exponential.numRequeues("a")).toBe(3);
  });

  it("answers 0 with no limiters", () => {
    const limiter = new MaxOfRateLimiter<string>();
    expect(limiter.when("a")).toBe(0);
    expect(limiter.numRequeues("a")).toBe(0);
  });
});

describe("defaultControllerRateLimiter", () => {
  it("is the exponential backoff 5 ms → 1000 s per item", () => {
    const limiter = defaultControllerRateLimiter<string>(new FakeClock());
    expect(whens(limiter, "a", 3)).toEqual([5, 10, 20]);
    expect(limiter.numRequeues("a")).toBe(3);
    whens(limiter, "b", 60);
    expect(limiter.when("b")).toBe(1000 * SECOND);
    limiter.forget("a");
    expect(limiter.when("a")).toBe(5);
  });

  it("is paced overall by a 10 qps bucket with a burst of 100, on the given clock", () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter<string>(clock);
    for (let i = 0; i < 100; i++) expect(limiter.when(`item-${i}`)).toBe(5);
    expect(limiter.when("item-100")).toBeCloseTo(100, 9);
    expect(limiter.when("item-101")).toBeCloseTo(200, 9);
    clock.advance(60 * SECOND);
    expect(limiter.when("item-102")).toBe(5);
  });
});
