/**
 * Per-item exponential backoff: client-go's `TypedItemExponentialFailureRateLimiter`
 * (`staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go`).
 */
import type { RateLimiter } from "./rate-limiter.js";

/**
 * Waits `baseMs · 2^failures` for an item, capped at `maxMs`, where `failures` counts the
 * item's earlier `when` calls since it was last forgotten: 5, 10, 20, ... ms for a 5 ms base.
 * The computation cannot overflow: past the cap (however many failures) the delay is `maxMs`.
 * Giving up after some number of failures is the caller's decision ({@link numRequeues}).
 */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  readonly #failures = new Map<T, number>();
  readonly #baseMs: number;
  readonly #maxMs: number;

  /**
   * @param baseMs the first delay, ms (finite, >= 0).
   * @param maxMs the longest delay, ms (>= 0).
   * @throws {RangeError} when either is out of range.
   */
  constructor(baseMs: number, maxMs: number) {
    if (!(baseMs >= 0 && Number.isFinite(baseMs))) {
      throw new RangeError(
        `ItemExponentialFailureRateLimiter: baseMs must be a finite number >= 0, got ${baseMs}`,
      );
    }
    if (!(maxMs >= 0)) {
      throw new RangeError(`ItemExponentialFailureRateLimiter: maxMs must be >= 0, got ${maxMs}`);
    }
    this.#baseMs = baseMs;
    this.#maxMs = maxMs;
  }

  when(item: T): number {
    const exponent = this.#failures.get(item) ?? 0;
    this.#failures.set(item, exponent + 1);
    if (this.#baseMs === 0) return 0;
    // 2 ** exponent is Infinity past 1023, never NaN: the comparison caps every overflow.
    const backoff = this.#baseMs * 2 ** exponent;
    return backoff > this.#maxMs ? this.#maxMs : backoff;
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }
}
