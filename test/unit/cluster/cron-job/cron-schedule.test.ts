import { describe, expect, it } from "vitest";
import {
  CronScheduleError,
  formatRfc1123Z,
  formatRfc3339In,
  mostRecentScheduleTime,
  nextScheduleDelayMs,
  parseCronSchedule,
} from "../../../../packages/cluster/src/cron-job/cron-schedule.js";

const at = (iso: string): number => Date.parse(iso);
const next = (spec: string, from: string): string | undefined => {
  const ms = parseCronSchedule(spec).next(at(from));
  return ms === undefined ? undefined : new Date(ms).toISOString();
};

describe("parseCronSchedule", () => {
  it("computes the next occurrence strictly after a time, in UTC by default", () => {
    expect(next("*/5 * * * *", "2026-01-01T10:00:00Z")).toBe("2026-01-01T10:05:00.000Z");
    expect(next("*/5 * * * *", "2026-01-01T10:04:59.500Z")).toBe("2026-01-01T10:05:00.000Z");
    expect(next("0 9 * * MON-FRI", "2026-01-02T09:00:00Z")).toBe("2026-01-05T09:00:00.000Z");
    expect(next("30 2 1 jan ?", "2026-01-01T00:00:00Z")).toBe("2026-01-01T02:30:00.000Z");
    expect(next("5/20 * * * *", "2026-01-01T10:06:00Z")).toBe("2026-01-01T10:25:00.000Z");
  });

  it("reads the descriptors and @every", () => {
    expect(next("@hourly", "2026-01-01T10:00:00Z")).toBe("2026-01-01T11:00:00.000Z");
    expect(next("@midnight", "2026-01-01T10:00:00Z")).toBe("2026-01-02T00:00:00.000Z");
    expect(next("@weekly", "2026-01-01T10:00:00Z")).toBe("2026-01-04T00:00:00.000Z");
    expect(next("@yearly", "2026-01-01T10:00:00Z")).toBe("2027-01-01T00:00:00.000Z");
    expect(next("@every 1h30m", "2026-01-01T10:00:00.700Z")).toBe("2026-01-01T11:30:00.000Z");
  });

  it("runs a TZ= schedule on that zone's wall clock", () => {
    // 09:00 in New York (EST, UTC-5) is 14:00 UTC.
    expect(next("TZ=America/New_York 0 9 * * *", "2026-01-01T10:00:00Z")).toBe(
      "2026-01-01T14:00:00.000Z",
    );
    expect(next("CRON_TZ=Europe/Paris 0 9 * * *", "2026-07-01T10:00:00Z")).toBe(
      "2026-07-02T07:00:00.000Z",
    );
  });

  it("refuses what robfig/cron refuses, with its messages", () => {
    const error = (spec: string): string => {
      try {
        parseCronSchedule(spec);
      } catch (err) {
        expect(err).toBeInstanceOf(CronScheduleError);
        return (err as Error).message;
      }
      throw new Error(`${spec} parsed`);
    };
    expect(error("* * * *")).toBe("expected exactly 5 fields, found 4: [* * * *]");
    expect(error("0 0 0 * * *")).toBe("expected exactly 5 fields, found 6: [0 0 0 * * *]");
    expect(error("61 * * * *")).toBe("end of range (61) above maximum (59): 61");
    expect(error("* * * * 7")).toBe("end of range (7) above maximum (6): 7");
    expect(error("5-2 * * * *")).toBe("beginning of range (5) beyond end of range (2): 5-2");
    expect(error("*/0 * * * *")).toBe("step of range should be a positive number: */0");
    expect(error("0 0 L * *")).toMatch(/^failed to parse int from L/);
    expect(error("@fortnightly")).toBe("unrecognized descriptor: @fortnightly");
    expect(error("@every soon")).toMatch(/^failed to parse duration @every soon/);
    expect(error("TZ=Mars/Olympus * * * * *")).toBe(
      "provided bad location Mars/Olympus: unknown time zone Mars/Olympus",
    );
    expect(error("")).toBe("empty spec string");
  });

  it("parses a schedule that never fires, as robfig does, and finds no occurrence", () => {
    expect(next("0 0 31 2 *", "2026-01-01T00:00:00Z")).toBeUndefined();
  });
});

describe("mostRecentScheduleTime", () => {
  const hourly = parseCronSchedule("0 * * * *");
  const created = at("2026-01-01T10:30:00Z");

  it("finds nothing before the first occurrence", () => {
    const times = mostRecentScheduleTime(
      { creationMs: created },
      at("2026-01-01T10:59:00Z"),
      hourly,
      true,
    );
    expect(times).toEqual({ earliestMs: created, missed: "none" });
  });

  it("finds the one start time due", () => {
    const times = mostRecentScheduleTime(
      { creationMs: created },
      at("2026-01-01T11:00:30Z"),
      hourly,
      true,
    );
    expect(times.mostRecentMs).toBe(at("2026-01-01T11:00:00Z"));
    expect(times.missed).toBe("none");
  });

  it("counts missed times from the last schedule time and picks the most recent", () => {
    const times = mostRecentScheduleTime(
      { creationMs: created, lastScheduleMs: at("2026-01-01T11:00:00Z") },
      at("2026-01-01T15:10:00Z"),
      hourly,
      true,
    );
    expect(times.mostRecentMs).toBe(at("2026-01-01T15:00:00Z"));
    expect(times.missed).toBe("few");
  });

  it("says many beyond 100 missed times, and the starting deadline bounds the search", () => {
    const now = at("2026-01-10T10:10:00Z");
    expect(mostRecentScheduleTime({ creationMs: created }, now, hourly, true)).toMatchObject({
      mostRecentMs: at("2026-01-10T10:00:00Z"),
      missed: "many",
    });
    expect(
      mostRecentScheduleTime(
        { creationMs: created, startingDeadlineSeconds: 3600 },
        now,
        hourly,
        true,
      ),
    ).toMatchObject({ mostRecentMs: at("2026-01-10T10:00:00Z"), missed: "none" });
  });

  it("reports a schedule that never fires as an error", () => {
    const never = parseCronSchedule("0 0 31 2 *");
    expect(mostRecentScheduleTime({ creationMs: created }, created, never, true).error).toBe(
      "time difference between two schedules is less than 1 second",
    );
  });
});

describe("nextScheduleDelayMs", () => {
  it("waits until the next start time plus 100 ms", () => {
    const hourly = parseCronSchedule("0 * * * *");
    const state = {
      creationMs: at("2026-01-01T10:30:00Z"),
      lastScheduleMs: at("2026-01-01T11:00:00Z"),
    };
    expect(nextScheduleDelayMs(state, at("2026-01-01T11:00:01Z"), hourly)).toBe(
      60 * 60_000 - 1000 + 100,
    );
  });
});

describe("time formats", () => {
  it("formats RFC 3339 in a zone and RFC 1123Z in UTC, as Go does", () => {
    const ms = at("2026-01-01T10:00:00Z");
    expect(formatRfc3339In(ms, "")).toBe("2026-01-01T10:00:00Z");
    expect(formatRfc3339In(ms, "Europe/Paris")).toBe("2026-01-01T11:00:00+01:00");
    expect(formatRfc3339In(ms, "America/New_York")).toBe("2026-01-01T05:00:00-05:00");
    expect(formatRfc1123Z(ms)).toBe("Thu, 01 Jan 2026 10:00:00 +0000");
  });
});
