/**
 * client-go's `EventCorrelator` (`staging/src/k8s.io/client-go/tools/record/events_cache.go`):
 * every event is aggregated (similar events combined), observed (identical events counted
 * under one name) and then passed through the per-object spam filter, with client-go's
 * defaults. It also holds what client-go's `tools/events` broadcaster caches for
 * events.k8s.io/v1 series (`event_broadcaster.go`), for the recorder to finish and refresh.
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

/** An event the correlator holds: its latest state, as {@link EventCorrelator.correlate} returned it. */
export interface CachedEvent {
  /** The key the event is counted under (see {@link CorrelationResult.key}). */
  readonly key: string;
  readonly event: CorrelatedEvent;
}

interface EventLog {
  /** The latest state; `lastTimestamp` is when it was last observed. */
  readonly event: CorrelatedEvent;
  /** Whether the spam filter held back the latest occurrence (its count is not written yet). */
  held: boolean;
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
    const previous = this.#log.get(key)?.event;
    const correlated: CorrelatedEvent = {
      ...event,
      namespace: event.regarding.namespace || "default",
      name: previous?.name ?? this.#newName(event.regarding.name ?? "", now),
      count: (previous?.count ?? 0) + 1,
      firstTimestamp: previous?.firstTimestamp ?? now,
      lastTimestamp: now,
      combined,
    };
    const pending = options.writePending?.(key) === true;
    const skip = !pending && !this.#spamFilter.allow(event);
    this.#log.set(key, { event: correlated, held: skip });
    return { key, event: correlated, skip };
  }

  /**
   * client-go's `finishSeries` (`tools/events/event_broadcaster.go`): forgets every event
   * last observed more than `finishMs` before now (strictly), so its next occurrence starts
   * a new Event object. Returns the forgotten events whose latest occurrences the spam
   * filter held back: the caller writes their final count once more.
   */
  finishSeries(finishMs: number): CachedEvent[] {
    const cutoff = this.#clock.now() - finishMs;
    const unwritten: CachedEvent[] = [];
    for (const [key, log] of [...this.#log.entries()]) {
      if (log.event.lastTimestamp >= cutoff) continue;
      this.#log.delete(key);
      if (log.held) unwritten.push({ key, event: log.event });
    }
    return unwritten;
  }

  /**
   * client-go's `refreshExistingEventSeries`: the held events that have a series
   * (`count > 1`), for the caller to write again so the Event objects do not expire. Their
   * held-back occurrences count as written from then on.
   */
  refreshSeries(): CachedEvent[] {
    const series: CachedEvent[] = [];
    for (const [key, log] of this.#log.entries()) {
      if (log.event.count < 2) continue;
      log.held = false;
      series.push({ key, event: log.event });
    }
    return series;
  }

  /** How many events are held (each updates one Event object when it occurs again). */
  get size(): number {
    return this.#log.size;
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
