/**
 * CronJob schedules as kube-controller-manager reads them: `github.com/robfig/cron/v3`'s
 * `ParseStandard` grammar (five fields, the `@yearly` … `@hourly` and `@every <duration>`
 * descriptors, a `TZ=`/`CRON_TZ=` prefix) with its error messages, the occurrences computed by
 * the `cron-parser` package in the schedule's time zone, and the missed-schedule arithmetic of
 * `pkg/controller/cronjob/utils.go` (mostRecentScheduleTime, nextScheduleTimeDuration).
 */
import { CronDate, CronExpressionParser } from "cron-parser";
import { parseGoDuration } from "kubekit/apimachinery";

/** A schedule robfig/cron's standard parser refuses; the message is robfig's. */
export class CronScheduleError extends Error {
  override readonly name = "CronScheduleError";
}

/** A parsed schedule: its occurrences, on wall-clock time in its time zone. */
export interface CronSchedule {
  /**
   * The first occurrence strictly after `afterMs` (ms since the epoch, whole seconds), or
   * undefined when there is none (a schedule that never fires, such as `0 0 31 2 *`).
   */
  next(afterMs: number): number | undefined;
}

interface FieldBounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MONTH_NAMES: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const DAY_NAMES: Readonly<Record<string, number>> = {
  sun: 0,
  mon: 1,
  tue: 2,
  wed: 3,
  thu: 4,
  fri: 5,
  sat: 6,
};

/** robfig's standard fields: minute, hour, day of month, month, day of week. */
const STANDARD_FIELDS: readonly FieldBounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTH_NAMES },
  { min: 0, max: 6, names: DAY_NAMES },
];

/** robfig's descriptors (`parser.go` parseDescriptor), as five-field expressions. */
const DESCRIPTORS: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** Go's `time.ParseDuration` for the durations `@every` takes (`1h30m`, `90s`, `1.5h`); ms. */
function everyDurationMs(text: string): number {
  const ms = parseGoDuration(text);
  if (ms === undefined) throw new CronScheduleError(`time: invalid duration "${text}"`);
  return ms;
}

/** robfig's `mustParseInt`: a non-negative decimal integer. */
function mustParseInt(text: string): number {
  if (!/^[-+]?\d+$/.test(text)) {
    throw new CronScheduleError(
      `failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`,
    );
  }
  const value = Number(text);
  if (value < 0) throw new CronScheduleError(`negative number (${value}) not allowed: ${text}`);
  return value;
}

/** robfig's `parseIntOrName`: a field's name (`jan`, `mon`, any case) or a number. */
function parseIntOrName(text: string, bounds: FieldBounds): number {
  return bounds.names?.[text.toLowerCase()] ?? mustParseInt(text);
}

/**
 * One comma-separated part of a field (robfig's `getRange`), checked as robfig checks it and
 * rewritten in the numeric `start-end/step` form cron-parser reads the same way (`*` and `?`
 * stay `*`, so a wildcard day field keeps cron's day-of-month/day-of-week rule).
 */
function normalizeRange(part: string, bounds: FieldBounds): string {
  const rangeAndStep = part.split("/");
  const lowAndHigh = (rangeAndStep[0] ?? "").split("-");
  const wildcard = lowAndHigh[0] === "*" || lowAndHigh[0] === "?";
  let start: number;
  let end: number;
  if (wildcard) {
    start = bounds.min;
    end = bounds.max;
  } else {
    start = parseIntOrName(lowAndHigh[0] ?? "", bounds);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1] ?? "", bounds);
    else throw new CronScheduleError(`too many hyphens: ${part}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1] ?? "");
    // "N/step" means N through the maximum.
    if (lowAndHigh.length === 1) end = bounds.max;
  } else if (rangeAndStep.length > 2) {
    throw new CronScheduleError(`too many slashes: ${part}`);
  }
  if (start < bounds.min) {
    throw new CronScheduleError(
      `beginning of range (${start}) below minimum (${bounds.min}): ${part}`,
    );
  }
  if (end > bounds.max) {
    throw new CronScheduleError(`end of range (${end}) above maximum (${bounds.max}): ${part}`);
  }
  if (start > end) {
    throw new CronScheduleError(
      `beginning of range (${start}) beyond end of range (${end}): ${part}`,
    );
  }
  if (step === 0) throw new CronScheduleError(`step of range should be a positive number: ${part}`);
  if (wildcard) return step === 1 ? "*" : `*/${step}`;
  const range = start === end && rangeAndStep.length === 1 ? `${start}` : `${start}-${end}`;
  return step === 1 ? range : `${range}/${step}`;
}

/** Whether `name` is a time zone Go's `time.LoadLocation` would find (IANA names, "UTC", ""). */
export function isKnownTimeZone(name: string): boolean {
  if (name === "" || name === "UTC") return true;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** A schedule with a constant delay (robfig's `ConstantDelaySchedule`, from `@every`). */
function everySchedule(delayMs: number): CronSchedule {
  // Rounded down to whole seconds, at least one second.
  const delay = Math.max(1000, delayMs - (delayMs % 1000));
  return { next: (afterMs) => Math.floor(afterMs / 1000) * 1000 + delay };
}

/** A five-field schedule, occurrences by cron-parser in `timeZone`. */
function fieldSchedule(expression: string, timeZone: string): CronSchedule {
  let parsed: ReturnType<typeof CronExpressionParser.parse> | undefined;
  try {
    parsed = CronExpressionParser.parse(expression, { tz: timeZone });
  } catch {
    // robfig accepts what passed the checks above (`0 0 31 2 *`) and finds no occurrence.
    parsed = undefined;
  }
  const expr = parsed;
  return {
    next(afterMs) {
      if (expr === undefined) return undefined;
      try {
        expr.reset(new Date(afterMs));
        return expr.next().getTime();
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * Parses a schedule as robfig/cron's `ParseStandard` does: an optional `TZ=<zone> ` or
 * `CRON_TZ=<zone> ` prefix, then a descriptor (`@yearly`, `@annually`, `@monthly`, `@weekly`,
 * `@daily`, `@midnight`, `@hourly`, `@every <Go duration>`) or exactly five fields (minute,
 * hour, day of month, month, day of week; numbers, `*`, `?`, ranges, steps, lists, and the
 * English month and weekday abbreviations). Without a zone the schedule runs in UTC (a
 * kube-controller-manager container's local time).
 *
 * Caveat: the occurrences come from the `cron-parser` package; robfig and it agree on the
 * standard grammar, but a daylight-saving gap or overlap may resolve differently.
 *
 * @throws {CronScheduleError} with robfig's message for a schedule it refuses.
 */
export function parseCronSchedule(spec: string): CronSchedule {
  let text = spec;
  let timeZone = "UTC";
  if (text.length === 0) throw new CronScheduleError("empty spec string");
  if (text.startsWith("TZ=") || text.startsWith("CRON_TZ=")) {
    const space = text.indexOf(" ");
    const eq = text.indexOf("=");
    const zone = space === -1 ? text.slice(eq + 1) : text.slice(eq + 1, space);
    if (!isKnownTimeZone(zone)) {
      throw new CronScheduleError(`provided bad location ${zone}: unknown time zone ${zone}`);
    }
    timeZone = zone === "" ? "UTC" : zone;
    text = space === -1 ? "" : text.slice(space).trim();
  }
  if (text.startsWith("@")) {
    const every = /^@every (.*)$/.exec(text);
    if (every !== null) {
      const duration = every[1] ?? "";
      let ms: number;
      try {
        ms = everyDurationMs(duration);
      } catch (err) {
        throw new CronScheduleError(`failed to parse duration ${text}: ${(err as Error).message}`);
      }
      return everySchedule(ms);
    }
    const expression = DESCRIPTORS[text];
    if (expression === undefined) throw new CronScheduleError(`unrecognized descriptor: ${text}`);
    return fieldSchedule(expression, timeZone);
  }
  const fields = text.split(/\s+/).filter((f) => f !== "");
  if (fields.length !== STANDARD_FIELDS.length) {
    throw new CronScheduleError(
      `expected exactly ${STANDARD_FIELDS.length} fields, found ${fields.length}: [${fields.join(" ")}]`,
    );
  }
  const normalized = fields.map((field, i) =>
    field
      .split(",")
      .map((part) => normalizeRange(part, STANDARD_FIELDS[i] as FieldBounds))
      .join(","),
  );
  return fieldSchedule(normalized.join(" "), timeZone);
}

/** How many start times were missed since the last one (`utils.go` missedSchedulesType). */
export type MissedSchedules = "none" | "few" | "many";

/** What {@link mostRecentScheduleTime} found. */
export interface ScheduleTimes {
  /** The last schedule time, or the CronJob's creation (or the starting deadline, when later). */
  readonly earliestMs: number;
  /** The most recent start time at or before now, if any was missed since `earliestMs`. */
  readonly mostRecentMs?: number;
  readonly missed: MissedSchedules;
  /** A schedule that parses but makes no sense (`0 0 31 2 *`). */
  readonly error?: string;
}

/** The schedule state of a CronJob {@link mostRecentScheduleTime} reads. */
export interface ScheduleState {
  readonly creationMs: number;
  readonly lastScheduleMs?: number;
  readonly startingDeadlineSeconds?: number;
}

/** More missed start times than this is "too many" (`utils.go`: "more than 80, but less than lots"). */
const MANY_MISSED = 100;

/**
 * The most recent start time of `schedule` between the CronJob's last schedule (or creation)
 * and `nowMs` (`pkg/controller/cronjob/utils.go` mostRecentScheduleTime): with
 * `includeStartingDeadline`, times older than `startingDeadlineSeconds` are not considered.
 * The number of missed times is estimated from the gap between the first two occurrences, as
 * kube does, so an old CronJob costs a few iterations, not one per missed time.
 */
export function mostRecentScheduleTime(
  state: ScheduleState,
  nowMs: number,
  schedule: CronSchedule,
  includeStartingDeadline: boolean,
): ScheduleTimes {
  let earliestMs = state.lastScheduleMs ?? state.creationMs;
  if (includeStartingDeadline && state.startingDeadlineSeconds !== undefined) {
    const deadline = nowMs - state.startingDeadlineSeconds * 1000;
    if (deadline > earliestMs) earliestMs = deadline;
  }
  const t1 = schedule.next(earliestMs);
  const t2 = t1 === undefined ? undefined : schedule.next(t1);
  if (t1 !== undefined && nowMs < t1) return { earliestMs, missed: "none" };
  if (t2 !== undefined && t1 !== undefined && nowMs < t2) {
    return { earliestMs, mostRecentMs: t1, missed: "none" };
  }
  const between = t1 === undefined || t2 === undefined ? 0 : Math.round((t2 - t1) / 1000);
  if (t1 === undefined || between < 1) {
    return {
      earliestMs,
      missed: "none",
      error: "time difference between two schedules is less than 1 second",
    };
  }
  const elapsed = Math.trunc((nowMs - t1) / 1000);
  const missedCount = Math.floor(elapsed / between) + 1;
  // Start one interval before the estimate and let the schedule find the real times.
  const potentialEarliest = t1 + (missedCount - 2) * between * 1000;
  let mostRecentMs: number | undefined;
  for (let t = schedule.next(potentialEarliest); t !== undefined && t <= nowMs;) {
    mostRecentMs = t;
    t = schedule.next(t);
  }
  const missed: MissedSchedules =
    missedCount > MANY_MISSED ? "many" : missedCount > 0 ? "few" : "none";
  return mostRecentMs === undefined ? { earliestMs, missed } : { earliestMs, mostRecentMs, missed };
}

/** The padding added to a requeue for the next schedule (`cronjob_controllerv2.go` nextScheduleDelta). */
export const NEXT_SCHEDULE_DELTA_MS = 100;

/**
 * How long until the next start time after the most recent one, plus
 * {@link NEXT_SCHEDULE_DELTA_MS} (`utils.go` nextScheduleTimeDuration); undefined for a
 * schedule that never fires.
 */
export function nextScheduleDelayMs(
  state: ScheduleState,
  nowMs: number,
  schedule: CronSchedule,
): number | undefined {
  const times = mostRecentScheduleTime(state, nowMs, schedule, false);
  let from: number;
  if (times.error !== undefined) from = nowMs;
  else if (times.mostRecentMs !== undefined) from = times.mostRecentMs;
  else from = times.missed === "none" ? times.earliestMs : nowMs;
  const next = schedule.next(from);
  return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - nowMs;
}

/** `ms` as Go's RFC 3339 in `timeZone` (`2026-01-01T10:00:00Z`, `2026-01-01T11:00:00+01:00`). */
export function formatRfc3339In(ms: number, timeZone: string): string {
  const offset =
    timeZone === "" || timeZone === "UTC" ? 0 : new CronDate(ms, timeZone).getUTCOffset();
  const local = new Date(Math.floor(ms / 1000) * 1000 + offset * 60_000).toISOString().slice(0, 19);
  if (offset === 0) return `${local}Z`;
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `ms` in UTC as Go's RFC 1123 with a numeric zone (`Mon, 02 Jan 2006 15:04:05 +0000`). */
export function formatRfc1123Z(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${WEEKDAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}
