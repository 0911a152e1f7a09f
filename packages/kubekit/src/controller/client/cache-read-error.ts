/** Errors of reads served by the Manager's cache (the cache-backed client). */

/**
 * - `NotStarted`: a read before the manager started its cache (controller-runtime's
 *   `ErrCacheNotStarted`): read from a reconcile, or after `start`.
 * - `Stopped`: the cache stopped before the kind's informer synced.
 * - `NonExactFieldSelector`: a field selector with a `!=` term (the cache answers only
 *   `field=value` terms, through field indexes; controller-runtime's "non-exact field matches
 *   are not supported by the cache").
 * - `MissingIndex`: a field selector on a field without an index (`indexField` it first).
 * - `Unsupported`: an option the cache cannot answer (e.g. `continue`).
 */
export type CacheReadErrorReason =
  "NotStarted" | "Stopped" | "NonExactFieldSelector" | "MissingIndex" | "Unsupported";

/** A read the cache cannot answer; `reason` says why. */
export class CacheReadError extends Error {
  /** Why the read failed. */
  readonly reason: CacheReadErrorReason;

  constructor(reason: CacheReadErrorReason, message: string) {
    super(message);
    this.name = "CacheReadError";
    this.reason = reason;
  }
}
