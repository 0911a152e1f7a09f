/**
 * kubectl's human-readable durations (apimachinery `duration.HumanDuration`), used for the AGE
 * and other time columns of server-side Tables: "5s", "3m20s", "45m", "2h30m", "10h", "2d4h",
 * "40d", "3y120d", "9y". About two significant figures; whole units are truncated, never rounded.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Formats a duration given in milliseconds. Durations down to -1.999 s count as "0s" (clock
 * skew between machines); anything more negative is "<invalid>". Below 2 minutes the unit is
 * seconds; below 10 minutes minutes and seconds; below 3 hours minutes; below 8 hours hours
 * and minutes; below 2 days hours; below 8 days days and hours; below 2 years days; below 8
 * years years and days; then years. A zero trailing unit is dropped ("3m", not "3m0s").
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 2 * 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 3 * 60) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/**
 * The time elapsed from an RFC 3339 timestamp (a `metav1.Time` or `MicroTime` string) to `now`
 * (ms since the epoch), as `humanDuration` formats it: kubectl's `translateTimestampSince`.
 * A missing, empty or unparseable timestamp gives "<unknown>", as a zero time does in kubectl.
 */
export function humanDurationSince(timestamp: unknown, now: number): string {
  const at = parseTimestamp(timestamp);
  return at === undefined ? "<unknown>" : humanDuration(now - at);
}

/**
 * Milliseconds since the epoch of an RFC 3339 timestamp string (`2024-05-01T12:00:00Z`,
 * fractional seconds and numeric offsets allowed), or `undefined` when `value` is not one.
 * Dates that JavaScript would accept but RFC 3339 does not (`May 1 2024`) are rejected.
 */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  if (!/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value))
    return undefined;
  const ms = Date.parse(value.replace(" ", "T"));
  return Number.isNaN(ms) ? undefined : ms;
}
