/**
 * Go's `time.Duration.String()` format (e.g. `32s`, `1m30s`, `500ms`): the `timeout` query
 * parameter client-go sends and kube-apiserver parses, and durations in kube's messages
 * (the kubelet's "back-off 10s restarting failed container").
 */

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
