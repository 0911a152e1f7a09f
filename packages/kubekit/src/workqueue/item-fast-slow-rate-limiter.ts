/**
 * Fast, then slow retries: client-go's `TypedItemFastSlowRateLimiter`
 * (`staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go`).
 */
import type { RateLimiter } from "./rate-limiter.js";

/**
 * Waits `fastMs` for an item's first `maxFastAttempts` `when` calls (since it was last
 * forgotten), then `slowMs` for every later one.
 */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  readonly #failures = new Map<T, number>();
  readonly #fastMs: number;
  readonly #slowMs: number;
  readonly #maxFastAttempts: number;

  /**
   * @param fastMs the delay of the first attempts, ms (>= 0).
   * @param slowMs the delay of the later attempts, ms (>= 0).
   * @param maxFastAttempts how many attempts are fast, an integer >= 0.
   * @throws {RangeError} when an argument is out of range.
   */
  constructor(fastMs: number, slowMs: number, maxFastAttempts: number) {
    if (!(fastMs >= 0)) {
      throw new RangeError(`ItemFastSlowRateLimiter: fastMs must be >= 0, got ${fastMs}`);
    }
    if (!(slowMs >= 0)) {
      throw new RangeError(`ItemFastSlowRateLimiter: slowMs must be >= 0, got ${slowMs}`);
    }
    if (!(Number.isInteger(maxFastAttempts) && maxFastAttempts >= 0)) {
      throw new RangeError(
        `ItemFastSlowRateLimiter: maxFastAttempts must be an integer >= 0, got ${maxFastAttempts}`,
      );
    }
    this.#fastMs = fastMs;
    this.#slowMs = slowMs;
    this.#maxFastAttempts = maxFastAttempts;
  }

  when(item: T): number {
    const attempts = (this.#failures.get(item) ?? 0) + 1;
    this.#failures.set(item, attempts);
    return attempts <= this.#maxFastAttempts ? this.#fastMs : this.#slowMs;
  }

  forget(item: T): void {
    this.#failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.#failures.get(item) ?? 0;
  }
}
