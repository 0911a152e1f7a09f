/**
 * The workqueue layer: client-go's `util/workqueue` — the de-duplicating work queue, the
 * delaying and rate-limiting queues on top of it, the rate limiters and the metrics hooks.
 */
export { Queue } from "./queue.js";
export type { QueueGetResult, QueueOptions } from "./queue.js";
export { DelayingQueue } from "./delaying-queue.js";
export { RateLimitingQueue } from "./rate-limiting-queue.js";
export type { RateLimitingQueueOptions } from "./rate-limiting-queue.js";
export type { RateLimiter } from "./rate-limiter.js";
export { ItemExponentialFailureRateLimiter } from "./item-exponential-failure-rate-limiter.js";
export { ItemFastSlowRateLimiter } from "./item-fast-slow-rate-limiter.js";
export { BucketRateLimiter } from "./bucket-rate-limiter.js";
export { MaxOfRateLimiter } from "./max-of-rate-limiter.js";
export { defaultControllerRateLimiter } from "./default-controller-rate-limiter.js";
export type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricsProvider,
  SettableGaugeMetric,
} from "./metrics-provider.js";
export { PriorityQueue } from "./priority-queue.js";
export type { PriorityQueueGetResult, QueueAddOptions } from "./priority-queue.js";
