/**
 * client-go's `EventCorrelator` (`staging/src/k8s.io/client-go/tools/record/events_cache.go`):
 * every event is aggregated (similar events combined), observed (identical events counted
 * under one name) and then passed through the per-object spam filter, with client-go's
 * defaults.
 */
import { randomUUID } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import { realClock } from "../../core/clock.js";
import { isDns1123Subdomain } from "../../core/names.js";
import { EventAggregator } from "./event-aggregator.js";
import type { EventOccurrence } from "./event-occurrence.js";
import { EventSpamFilter } from "./event-spam-filter.js";
import { LruCache } from "./lru-cache.js";

/**
 * client-go's correlation defaults (`events_cache.go`): caches of 4096 entries; 10 distinct
 * messages within 10 minutes combine; a source may write 25 events about an object at once,
 * then one every 5 minutes.
 */
export const EVENT_CORRELATOR_DEFAULTS = {
  cacheSize: 4096,
  aggregateMaxEvents: 10,
  aggregateIntervalMs: 600_000,
  spamBurst: 25,
  spamQps: 1 / 300,
} as const;

/** Settings of {@link EventCorrelator}; each defaults to {@link EVENT_CORRELATOR_DEFAULTS}. */
export interface EventCorrelatorOptions {
  /** Entries of each cache (aggregation groups, counted events, spam buckets). */
  readonly cacheSize?: number;
  /** Distinct messages within `aggregateIntervalMs` from which similar events are combined. */
  readonly aggregateMaxEvents?: number;
  /** How long (ms) after its last event an aggregation group starts over. */
  readonly aggregateIntervalMs?: number;
  /** Events a source may write about one object at once. */
  readonly spamBurst?: number;
  /** Refill rate of the spam filter's buckets, in events per second. */
  readonly spamQps?: number;
  readonly clock?: Clock;
}

/**
 * An event after correlation: the state of one Event object as it should be on the server.
 * Repeats of an event share `name` and `firstTimestamp`; `count` counts every occurrence seen,
 * including those the spam filter held back.
 */
export interface CorrelatedEvent extends EventOccurrence {
  /** The Event object's namespace: the regarding object's, or `default` for cluster-scoped objects. */
  readonly namespace: string;
  /** The Event object's name (`<object name>.<hex timestamp>`, fixed at the first occurrence). */
  readonly name: string;
  /** Occurrences so far, >= 1. */
  readonly count: number;
  /** Clock time (ms) of the first occurrence. */
  readonly firstTimestamp: number;
  /** Clock time (ms) of this occurrence. */
  readonly lastTimestamp: number;
  /** Whether this is a combined event standing for similar events. */
  readonly combined: boolean;
}

/** What {@link EventCorrelator.correlate} decided. */
export interface CorrelationResult {
  /** The key the event is counted under: writes of one key update one Event object. */
  readonly key: string;
  readonly event: CorrelatedEvent;
  /** True when the spam filter refused a write (the occurrence is still counted). */
  readonly skip: boolean;
}

/** Options of {@link EventCorrelator.correlate}. */
export interface CorrelateOptions {
  /**
   * Called with the event's key; true when no new write is needed for it (a write of that
   * key is still queued and will carry this occurrence), so the spam filter is not charged.
   */
  readonly writePending?: (key: string) => boolean;
}

interface EventLog {
  readonly name: string;
  readonly count: number;
  readonly firstTimestamp: number;
}

/**
 * Filters, aggregates and counts events before they are written (see the module comment).
 * One correlator serves one recorder; its caches are bounded by `cacheSize`, and an evicted
 * event starts a new Event object when it occurs again.
 */
export class EventCorrelator {
  readonly #clock: Clock;
  readonly #aggregator: EventAggregator;
  readonly #spamFilter: EventSpamFilter;
  readonly #log: LruCache<string, EventLog>;
  #sequence = 0;

  /** @throws {RangeError} for a cache size, burst or rate that is not valid. */
  constructor(options: EventCorrelatorOptions = {}) {
    const d = EVENT_CORRELATOR_DEFAULTS;
    this.#clock = options.clock ?? realClock;
    const cacheSize = options.cacheSize ?? d.cacheSize;
    this.#aggregator = new EventAggregator({
      cacheSize,
      maxEvents: options.aggregateMaxEvents ?? d.aggregateMaxEvents,
      intervalMs: options.aggregateIntervalMs ?? d.aggregateIntervalMs,
      clock: this.#clock,
    });
    this.#spamFilter = new EventSpamFilter({
      cacheSize,
      burst: options.spamBurst ?? d.spamBurst,
      qps: options.spamQps ?? d.spamQps,
      clock: this.#clock,
    });
    this.#log = new LruCache(cacheSize);
  }

  /**
   * Aggregates, counts and filters one occurrence. The count is kept even when the spam
   * filter skips the write, so the next write of the same event carries every occurrence
   * (as client-go's eventLogger observes before the filter runs).
   */
  correlate(occurrence: EventOccurrence, options: CorrelateOptions = {}): CorrelationResult {
    const now = this.#clock.now();
    const { event, key, combined } = this.#aggregator.aggregate(occurrence);
    const previous = this.#log.get(key);
    const log: EventLog = previous
      ? { ...previous, count: previous.count + 1 }
      : { name: this.#newName(event.regarding.name ?? "", now), count: 1, firstTimestamp: now };
    this.#log.set(key, log);
    const correlated: CorrelatedEvent = {
      ...event,
      namespace: event.regarding.namespace || "default",
      name: log.name,
      count: log.count,
      firstTimestamp: log.firstTimestamp,
      lastTimestamp: now,
      combined,
    };
    const pending = options.writePending?.(key) === true;
    return { key, event: correlated, skip: !pending && !this.#spamFilter.allow(event) };
  }

  /**
   * client-go's `<name>.<UnixNano in hex>`; the clock has millisecond resolution, so a
   * sequence number fills the sub-millisecond digits to keep names unique. When that is not
   * a valid Event name (a DNS-1123 subdomain: e.g. an IPv6 IPAddress name, or an object
   * name over ~236 characters), a random UUID, as client-go's `GenerateEventName`
   * (`tools/record/util/util.go`), so the API server does not reject the Event.
   */
  #newName(objectName: string, now: number): string {
    const nanos = BigInt(Math.trunc(now)) * 1_000_000n + BigInt(this.#sequence++ % 1_000_000);
    const name = `${objectName}.${nanos.toString(16)}`;
    return isDns1123Subdomain(name).length === 0 ? name : randomUUID();
  }
}
