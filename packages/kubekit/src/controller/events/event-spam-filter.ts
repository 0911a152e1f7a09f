/**
 * client-go's `EventSourceObjectSpamFilter`
 * (`staging/src/k8s.io/client-go/tools/record/events_cache.go`): a token bucket per source
 * and object, so one always-failing object cannot flood the API server with events.
 */
import type { Clock } from "../../core/clock.js";
import { TokenBucket } from "../../core/token-bucket.js";
import { spamKey, type EventOccurrence } from "./event-occurrence.js";
import { LruCache } from "./lru-cache.js";

/** Settings of {@link EventSpamFilter}. */
export interface EventSpamFilterOptions {
  /** How many source+object+type buckets are remembered (least recently used forgotten first). */
  readonly cacheSize: number;
  /** Events a source may write about one object at once. */
  readonly burst: number;
  /** Refill rate of each bucket, in events per second. */
  readonly qps: number;
  readonly clock: Clock;
}

/**
 * Decides whether a write about an object is allowed: each source, object and event type
 * has its own token bucket (`burst` tokens, refilled at `qps`), created full on first use.
 * A forgotten bucket (evicted from the cache) starts full again, as in client-go.
 */
export class EventSpamFilter {
  readonly #buckets: LruCache<string, TokenBucket>;
  readonly #options: EventSpamFilterOptions;

  /** @throws {RangeError} for a cache size, burst or qps the cache or bucket refuses. */
  constructor(options: EventSpamFilterOptions) {
    this.#options = options;
    this.#buckets = new LruCache(options.cacheSize);
    // Validate burst and qps now rather than on the first event.
    new TokenBucket(options.qps, options.burst, options.clock);
  }

  /** Takes a token for the event's source, object and type: true when the write may go ahead. */
  allow(event: EventOccurrence): boolean {
    const key = spamKey(event);
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = new TokenBucket(this.#options.qps, this.#options.burst, this.#options.clock);
      this.#buckets.set(key, bucket);
    }
    return bucket.tryAccept();
  }
}
