/**
 * The rate-limiting queue: client-go's `rateLimitingType`
 * (`staging/src/k8s.io/client-go/util/workqueue/rate_limiting_queue.go`).
 */
import { DelayingQueue } from "./delaying-queue.js";
import { defaultControllerRateLimiter } from "./default-controller-rate-limiter.js";
import type { QueueOptions } from "./queue.js";
import type { RateLimiter } from "./rate-limiter.js";

/** Options of {@link RateLimitingQueue}. */
export interface RateLimitingQueueOptions<T> extends QueueOptions {
  /**
   * Decides each {@link RateLimitingQueue.addRateLimited} delay; default
   * `defaultControllerRateLimiter(clock)`, on the queue's clock.
   */
  readonly rateLimiter?: RateLimiter<T>;
}

/**
 * A {@link DelayingQueue} whose retries are paced by a {@link RateLimiter}: the queue of a
 * controller. The canonical worker loop: `get`; process; on success `forget(item)`; on a
 * retriable failure `addRateLimited(item)` (or `forget` once `numRequeues(item)` is too
 * high); in every case `done(item)`. `forget` only resets the limiter: `done` is still needed.
 *
 * @example
 * ```ts
 * import { RateLimitingQueue, defaultControllerRateLimiter } from "kubekit";
 *
 * const queue = new RateLimitingQueue<string>({ rateLimiter: defaultControllerRateLimiter() });
 * const reconcile = async (key: string): Promise<void> => console.log("reconcile", key);
 *
 * async function worker(): Promise<void> {
 *   for (;;) {
 *     const [key, shutdown] = await queue.get();
 *     if (shutdown || key === undefined) return;
 *     try {
 *       await reconcile(key);
 *       queue.forget(key); // success: the backoff starts over
 *     } catch {
 *       queue.addRateLimited(key); // failure: again after 5 ms, 10 ms, 20 ms, …
 *     } finally {
 *       queue.done(key); // in every case
 *     }
 *   }
 * }
 *
 * queue.add("default/web");
 * queue.add("default/web"); // de-duplicated while waiting
 * queue.shutDown(); // what is queued is still handed out, then get() reports the shutdown
 * await worker();
 * ```
 */
export class RateLimitingQueue<T> extends DelayingQueue<T> {
  readonly #rateLimiter: RateLimiter<T>;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
  }

  /**
   * Adds `item` after the delay its rate limiter gives now ({@link DelayingQueue.addAfter}).
   * The limiter counts the failure even when the queue is shutting down and drops the item.
   */
  addRateLimited(item: T): void {
    this.addAfter(item, this.#rateLimiter.when(item));
  }

  /**
   * Tells the rate limiter to stop tracking `item` (it succeeded, or its retries were given
   * up). Does not remove it from the queue, nor mark it done.
   */
  forget(item: T): void {
    this.#rateLimiter.forget(item);
  }

  /** How many times `item` was rate-limited since it was last forgotten. */
  numRequeues(item: T): number {
    return this.#rateLimiter.numRequeues(item);
  }
}
