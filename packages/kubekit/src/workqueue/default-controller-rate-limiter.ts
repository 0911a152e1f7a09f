/**
 * The default rate limiter of controllers: client-go's `DefaultTypedControllerRateLimiter`
 * (`staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go`).
 */
import type { Clock } from "../core/clock.js";
import { BucketRateLimiter } from "./bucket-rate-limiter.js";
import { ItemExponentialFailureRateLimiter } from "./item-exponential-failure-rate-limiter.js";
import { MaxOfRateLimiter } from "./max-of-rate-limiter.js";
import type { RateLimiter } from "./rate-limiter.js";

/** client-go's per-item backoff of controllers: 5 ms, doubling per failure, up to 1000 s. */
const ITEM_BASE_DELAY_MS = 5;
const ITEM_MAX_DELAY_MS = 1_000_000;
/** client-go's overall retry rate of controllers: 10 per second after a burst of 100. */
const OVERALL_QPS = 10;
const OVERALL_BURST = 100;

/**
 * Per-item and overall limiting together: the longer of an exponential per-item backoff
 * (5 ms · 2^failures, capped at 1000 s) and an overall token bucket (10 qps, burst 100, on
 * `clock`; default the real clock). Each call returns a new limiter with its own state.
 */
export function defaultControllerRateLimiter<T>(clock?: Clock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(ITEM_BASE_DELAY_MS, ITEM_MAX_DELAY_MS),
    new BucketRateLimiter<T>(OVERALL_QPS, OVERALL_BURST, clock),
  );
}
