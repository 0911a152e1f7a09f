/**
 * The worst of several limiters: client-go's `TypedMaxOfRateLimiter`
 * (`staging/src/k8s.io/client-go/util/workqueue/default_rate_limiters.go`).
 */
import type { RateLimiter } from "./rate-limiter.js";

/**
 * Asks every limiter and answers the longest delay (`when`) and the highest count
 * (`numRequeues`); `forget` forgets in all of them. Every limiter's `when` is called each
 * time, so each one counts the failure. Caveat (client-go's): combined with a token bucket,
 * the bucket's burst can appear exceeded, since items delayed longer by another limiter
 * still took their token at once.
 */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  readonly #limiters: readonly RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.#limiters = limiters;
  }

  when(item: T): number {
    let longest = 0;
    for (const limiter of this.#limiters) {
      const delay = limiter.when(item);
      if (delay > longest) longest = delay;
    }
    return longest;
  }

  forget(item: T): void {
    for (const limiter of this.#limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    let most = 0;
    for (const limiter of this.#limiters) {
      const count = limiter.numRequeues(item);
      if (count > most) most = count;
    }
    return most;
  }
}
