import { describe, expect, it } from "vitest";
import { parseGoDuration } from "../../../packages/cluster/src/cli/go-duration-flag.js";

/** `kubekit serve`'s duration flags read as Go's `time.ParseDuration` reads kube's. */
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
