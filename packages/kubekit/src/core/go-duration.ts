/**
 * Go durations (e.g. `32s`, `1m30s`, `500ms`): printed as `time.Duration.String()` prints them
 * (the `timeout` query parameter client-go sends, durations in kube's messages such as the
 * kubelet's "back-off 10s restarting failed container") and parsed as `time.ParseDuration`
 * reads them (kube's duration flags, a webhook request's `?timeout=`, CronJob's `@every`).
 */

/** Milliseconds per unit of a Go duration (`time.ParseDuration`'s units). */
const UNIT_MS: ReadonlyMap<string, number> = new Map([
  ["ns", 1e-6],
  ["us", 1e-3],
  ["µs", 1e-3],
  ["μs", 1e-3],
  ["ms", 1],
  ["s", 1000],
  ["m", 60_000],
  ["h", 3_600_000],
]);

/** A part of a Go duration: a decimal number and its unit. */
const PART = /^(\d+\.?\d*|\.\d+)([a-zµμ]+)/;

/**
 * Parses `text` as Go's `time.ParseDuration` does (`1h30m`, `1.5h`, `500ms`, `300us`, a
 * leading sign, and `0` alone): the duration in milliseconds (fractional below 1 ms), or
 * undefined when `text` is not a Go duration (empty, a number without its unit, an unknown
 * unit, anything after the last unit). Never throws.
 */
export function parseGoDuration(text: string): number | undefined {
  const match = /^([+-]?)(.+)$/.exec(text);
  if (match === null) return undefined;
  const [, sign, body = ""] = match;
  if (body === "0") return 0;
  let total = 0;
  let rest = body;
  while (rest !== "") {
    const part = PART.exec(rest);
    const unit = part !== null ? UNIT_MS.get(part[2] ?? "") : undefined;
    if (part === null || unit === undefined) return undefined;
    total += Number(part[1]) * unit;
    rest = rest.slice(part[0].length);
  }
  return sign === "-" ? -total : total;
}

/** Seconds with up to three decimals and no trailing zeros (`1.5`, `30`). */
function formatSeconds(ms: number): string {
  const whole = Math.floor(ms / 1000);
  const fraction = ms % 1000;
  if (fraction === 0) return String(whole);
  return `${whole}.${String(fraction).padStart(3, "0").replace(/0+$/, "")}`;
}

/**
 * Formats a non-negative duration in ms (rounded to whole ms) as Go prints a Duration:
 * `0s`, `250ms`, `1.5s`, `32s`, `1m30s`, `2h0m0s`.
 *
 * @throws {RangeError} when `ms` is negative or not finite.
 */
export function formatGoDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`formatGoDuration: need a finite duration >= 0, got ${ms}`);
  }
  const total = Math.round(ms);
  if (total === 0) return "0s";
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = formatSeconds(total % 60_000);
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}
