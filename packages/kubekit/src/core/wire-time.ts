/**
 * Timestamps as the Kubernetes API writes them: `metav1.Time` is RFC 3339 with whole seconds
 * (`2026-01-01T00:00:00Z`), `metav1.MicroTime` RFC 3339 with six fractional digits
 * (`2026-01-01T00:00:00.123000Z`), both in UTC (apimachinery `pkg/apis/meta/v1/time.go`,
 * `micro_time.go`).
 */

/** `ms` (since the epoch) as a `metav1.Time`: sub-second precision is dropped, not rounded. */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** `ms` (since the epoch) as a `metav1.MicroTime` (millisecond precision, zero-padded). */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, "000Z");
}
