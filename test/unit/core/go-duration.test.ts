import { describe, expect, it } from "vitest";
import {
  formatGoDuration,
  parseGoDuration,
} from "../../../packages/kubekit/src/core/go-duration.js";

describe("formatGoDuration", () => {
  it("prints durations as Go's time.Duration.String()", () => {
    expect(formatGoDuration(0)).toBe("0s");
    expect(formatGoDuration(1)).toBe("1ms");
    expect(formatGoDuration(250)).toBe("250ms");
    expect(formatGoDuration(1000)).toBe("1s");
    expect(formatGoDuration(1500)).toBe("1.5s");
    expect(formatGoDuration(1050)).toBe("1.05s");
    expect(formatGoDuration(32_000)).toBe("32s");
    expect(formatGoDuration(60_000)).toBe("1m0s");
    expect(formatGoDuration(90_500)).toBe("1m30.5s");
    expect(formatGoDuration(7_200_000)).toBe("2h0m0s");
    expect(formatGoDuration(3_723_004)).toBe("1h2m3.004s");
    expect(formatGoDuration(0.4)).toBe("0s");
  });

  it("rejects negative and non-finite durations", () => {
    expect(() => formatGoDuration(-1)).toThrow(RangeError);
    expect(() => formatGoDuration(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

/** Go's `time.ParseDuration`: kube's duration flags, a webhook request's `?timeout=`. */
describe("parseGoDuration", () => {
  it("reads units, sequences, fractions, signs and a bare 0", () => {
    expect(parseGoDuration("1h")).toBe(3_600_000);
    expect(parseGoDuration("30m")).toBe(1_800_000);
    expect(parseGoDuration("1h30m")).toBe(5_400_000);
    expect(parseGoDuration("1.5h")).toBe(5_400_000);
    expect(parseGoDuration("500ms")).toBe(500);
    expect(parseGoDuration("2s500ms")).toBe(2500);
    expect(parseGoDuration("1500us")).toBe(1.5);
    expect(parseGoDuration("+10s")).toBe(10_000);
    expect(parseGoDuration("-10s")).toBe(-10_000);
    expect(parseGoDuration(".5s")).toBe(500);
    expect(parseGoDuration("0")).toBe(0);
  });

  it("refuses what Go refuses: no unit, an unknown unit, nothing", () => {
    for (const text of ["", "60", "1d", "h", "1hh", "1 h", "+", "1h 30m", "0x10s"])
      expect(parseGoDuration(text), JSON.stringify(text)).toBeUndefined();
  });
});
