/**
 * The rate limiter contract of the rate-limiting queue: client-go's `TypedRateLimiter`
 * (`staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go`).
 */

/**
 * Decides how long an item waits before it is retried. Items are compared with
 * SameValueZero, as in the queues.
 */
export interface RateLimiter<T> {
  /** How many ms `item` should wait now; counts one more failure for per-item limiters. */
  when(item: T): number;
  /**
   * Stops tracking `item` (its retries succeeded or were given up): its next `when` starts
   * afresh. Call it, or a per-item limiter remembers the item for ever.
   */
  forget(item: T): void;
  /** How many times `item` has been through `when` since it was last forgotten. */
  numRequeues(item: T): number;
}
