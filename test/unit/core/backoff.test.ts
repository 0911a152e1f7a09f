import { describe, expect, it } from "vitest";
import { BackoffPolicy, REFLECTOR_BACKOFF_DEFAULTS } from "kubekit";
import { FakeClock } from "kubekit/testing";

function steps(policy: BackoffPolicy, n: number): number[] {
  return Array.from({ length: n }, () => policy.next());
}

describe("BackoffPolicy", () => {
  it("has client-go's reflector defaults", () => {
    expect(REFLECTOR_BACKOFF_DEFAULTS).toEqual({
      initialMs: 800,
      factor: 2,
      jitter: 1,
      capMs: 30_000,
      resetAfterMs: 120_000,
    });
    const policy = new BackoffPolicy();
    expect(policy.initialMs).toBe(800);
    expect(policy.capMs).toBe(30_000);
  });

  it("doubles from 800 ms and caps the base at 30 s (no jitter when random is 0)", () => {
    const policy = new BackoffPolicy({ clock: new FakeClock(), random: () => 0 });
    expect(steps(policy, 9)).toEqual([
      800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000, 30_000,
    ]);
  });

  it("adds random × jitter × base on top of the base", () => {
    const half = new BackoffPolicy({ clock: new FakeClock(), random: () => 0.5 });
    expect(steps(half, 3)).toEqual([1_200, 2_400, 4_800]);
    const quarterJitter = new BackoffPolicy({
      clock: new FakeClock(),
      random: () => 0.5,
      jitter: 0.5,
    });
    expect(steps(quarterJitter, 2)).toEqual([1_000, 2_000]);
    const almostOne = new BackoffPolicy({ clock: new FakeClock(), random: () => 0.999 });
    const [first] = steps(almostOne, 1);
    expect(first).toBeGreaterThan(1_598);
    expect(first).toBeLessThan(1_600);
  });

  it("lets the jitter exceed the cap, as client-go does (the cap bounds the base)", () => {
    const policy = new BackoffPolicy({ clock: new FakeClock(), random: () => 0.5 });
    expect(steps(policy, 8).slice(6)).toEqual([45_000, 45_000]);
  });

  it("starts over after more than resetAfterMs without a call since the previous delay ended", () => {
    const clock = new FakeClock();
    const policy = new BackoffPolicy({ clock, random: () => 0 });
    expect(steps(policy, 3)).toEqual([800, 1_600, 3_200]);
    // The last delay ends 3.2 s from now; exactly 2 minutes after that is not yet a reset.
    clock.advance(3_200 + 120_000);
    expect(policy.next()).toBe(6_400);
    clock.advance(6_400 + 120_001);
    expect(policy.next()).toBe(800);
    expect(policy.next()).toBe(1_600);
  });

  it("keeps growing while failures come quickly", () => {
    const clock = new FakeClock();
    const policy = new BackoffPolicy({ clock, random: () => 0 });
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const d = policy.next();
      delays.push(d);
      clock.advance(d + 1_000);
    }
    expect(delays).toEqual([800, 1_600, 3_200, 6_400, 12_800]);
  });

  it("reset() goes back to the initial delay", () => {
    const policy = new BackoffPolicy({ clock: new FakeClock(), random: () => 0 });
    steps(policy, 4);
    policy.reset();
    expect(policy.next()).toBe(800);
  });

  it("honours custom settings, including factor 1 (constant)", () => {
    const policy = new BackoffPolicy({
      clock: new FakeClock(),
      random: () => 0,
      initialMs: 100,
      factor: 1,
      capMs: 100,
    });
    expect(steps(policy, 3)).toEqual([100, 100, 100]);
    const tripling = new BackoffPolicy({
      clock: new FakeClock(),
      random: () => 0,
      initialMs: 10,
      factor: 3,
      capMs: 200,
    });
    expect(steps(tripling, 5)).toEqual([10, 30, 90, 200, 200]);
  });

  it("rejects invalid settings", () => {
    expect(() => new BackoffPolicy({ initialMs: -1 })).toThrow(RangeError);
    expect(() => new BackoffPolicy({ initialMs: Number.NaN })).toThrow(RangeError);
    expect(() => new BackoffPolicy({ factor: 0.5 })).toThrow(RangeError);
    expect(() => new BackoffPolicy({ jitter: -0.1 })).toThrow(RangeError);
    expect(() => new BackoffPolicy({ capMs: 100, initialMs: 200 })).toThrow(RangeError);
    expect(() => new BackoffPolicy({ resetAfterMs: -5 })).toThrow(RangeError);
    expect(() => new BackoffPolicy({ capMs: Infinity })).toThrow(RangeError);
  });
});
