import { describe, expect, it } from "vitest";
import { formatMicroTime, formatTime } from "../../../packages/kubekit/src/core/wire-time.js";

describe("wire time", () => {
  it("formats metav1.Time in whole seconds, dropping the fraction", () => {
    expect(formatTime(Date.UTC(2026, 0, 2, 3, 4, 5, 999))).toBe("2026-01-02T03:04:05Z");
  });

  it("formats metav1.MicroTime with six fractional digits", () => {
    expect(formatMicroTime(Date.UTC(2026, 0, 2, 3, 4, 5, 123))).toBe("2026-01-02T03:04:05.123000Z");
  });
});
