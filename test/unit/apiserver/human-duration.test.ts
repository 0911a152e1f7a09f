import { describe, expect, it } from "vitest";
import {
  humanDuration,
  humanDurationSince,
  parseTimestamp,
} from "../../../packages/apiserver/src/table/human-duration.js";

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

describe("humanDuration", () => {
  it.each([
    [-2 * S, "<invalid>"],
    [-1999, "0s"],
    [-S, "0s"],
    [0, "0s"],
    [999, "0s"],
    [S, "1s"],
    [119 * S + 999, "119s"],
    [2 * M, "2m"],
    [2 * M + S, "2m1s"],
    [9 * M + 59 * S, "9m59s"],
    [10 * M, "10m"],
    [10 * M + 59 * S, "10m"],
    [179 * M + 59 * S, "179m"],
    [3 * H, "3h"],
    [3 * H + M, "3h1m"],
    [7 * H + 59 * M, "7h59m"],
    [8 * H, "8h"],
    [47 * H + 59 * M, "47h"],
    [48 * H, "2d"],
    [2 * D + 4 * H, "2d4h"],
    [8 * D - H, "7d23h"],
    [8 * D, "8d"],
    [2 * Y - D, "729d"],
    [2 * Y, "2y"],
    [2 * Y + D, "2y1d"],
    [8 * Y - D, "7y364d"],
    [8 * Y, "8y"],
    [100 * Y + 200 * D, "100y"],
  ])("%d ms → %s", (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });
});

describe("humanDurationSince", () => {
  const now = Date.parse("2024-05-03T16:00:00Z");

  it("measures from an RFC 3339 timestamp, with or without fractional seconds", () => {
    expect(humanDurationSince("2024-05-01T12:00:00Z", now)).toBe("2d4h");
    expect(humanDurationSince("2024-05-03T15:59:55.123456Z", now)).toBe("4s");
    expect(humanDurationSince("2024-05-03T17:59:00+02:00", now)).toBe("60s");
  });

  it("says <unknown> for a missing or malformed timestamp", () => {
    expect(humanDurationSince(undefined, now)).toBe("<unknown>");
    expect(humanDurationSince(null, now)).toBe("<unknown>");
    expect(humanDurationSince("", now)).toBe("<unknown>");
    expect(humanDurationSince("May 1 2024", now)).toBe("<unknown>");
    expect(humanDurationSince(1714564800000, now)).toBe("<unknown>");
  });

  it("says <invalid> for a timestamp well in the future", () => {
    expect(humanDurationSince("2024-05-03T16:00:05Z", now)).toBe("<invalid>");
  });
});

describe("parseTimestamp", () => {
  it("accepts RFC 3339 forms only", () => {
    expect(parseTimestamp("2024-05-01T12:00:00Z")).toBe(Date.UTC(2024, 4, 1, 12));
    expect(parseTimestamp("2024-05-01T12:00:00.5Z")).toBe(Date.UTC(2024, 4, 1, 12, 0, 0, 500));
    expect(parseTimestamp("2024-05-01")).toBeUndefined();
    expect(parseTimestamp("2024-13-45T99:00:00Z")).toBeUndefined();
  });
});
