/**
 * An overall (not per-item) token bucket: client-go's `TypedBucketRateLimiter`
 * (`staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go`), which wraps Go's
 * `rate.Limiter` and answers `Reserve().Delay()`.
 */
import type { Clock } from "../core/clock.js";
import { realClock } from "../core/clock.js";
import { TokenBucket } from "../core/token-bucket.js";
import type { RateLimiter } from "./rate-limiter.js";

/**
 * Spaces all items together to `qps` per second after an initial `burst`: each `when`
 * reserves the bucket's next token, whatever the item, and returns how long until that token
 * is available (0 while the burst lasts). The reservation is never given back: a delay
 * returned is a slot taken. `numRequeues` is always 0 and `forget` does nothing.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  readonly #bucket: TokenBucket;

  /**
   * @param qps tokens per second (negative or `Infinity`: no limit, every delay is 0).
   * @param burst the bucket's capacity, an integer >= 1.
   * @param clock the bucket's clock; default the real clock.
   * @throws {RangeError} when `qps` is 0 or NaN, or `burst` is not an integer >= 1.
   */
  constructor(qps: number, burst: number, clock: Clock = realClock) {
    this.#bucket = new TokenBucket(qps, burst, clock);
  }

  when(_item: T): number {
    return this.#bucket.reserve();
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}
