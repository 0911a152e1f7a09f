import { describe, expect, it } from "vitest";
import { formatGoDuration } from "../../../packages/kubekit/src/core/go-duration.js";

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
