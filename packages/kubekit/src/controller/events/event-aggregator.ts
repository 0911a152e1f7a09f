/**
 * client-go's `EventAggregator` (`staging/src/k8s.io/client-go/tools/record/events_cache.go`):
 * when an object gets many events that differ only by message within an interval, they are
 * folded into one "combined" event instead of one event per message.
 */
import type { Clock } from "../../core/clock.js";
import { aggregateKey, eventKey, type EventOccurrence } from "./event-occurrence.js";
import { LruCache } from "./lru-cache.js";

/** The prefix client-go's `EventAggregatorByReasonMessageFunc` puts on a combined event's message. */
export const COMBINED_EVENT_PREFIX = "(combined from similar events): ";

/** Settings of {@link EventAggregator}. */
export interface EventAggregatorOptions {
  /** How many groups of similar events are remembered (least recently used forgotten first). */
  readonly cacheSize: number;
  /** Distinct messages within the interval from which events are combined. */
  readonly maxEvents: number;
  /** How long (ms) after the last similar event a group starts over. */
  readonly intervalMs: number;
  readonly clock: Clock;
}

/** What {@link EventAggregator.aggregate} decided. */
export interface AggregatedOccurrence {
  /** The event to record: the input, or the combined event. */
  readonly event: EventOccurrence;
  /** The key the event is counted under: the event's own key, or its group's when combined. */
  readonly key: string;
  /** Whether the event was combined with similar ones. */
  readonly combined: boolean;
}

interface AggregateRecord {
  /** The distinct messages seen in the group (at most `maxEvents - 1` kept). */
  readonly messages: Set<string>;
  /** Clock time (ms) of the group's last event. */
  lastSeen: number;
}

/**
 * Groups events by source, object, type, reason and reporter; within one group, once
 * `maxEvents` distinct messages have been seen with no gap longer than `intervalMs`, every
 * further event of the group is replaced by one combined event (message prefixed with
 * {@link COMBINED_EVENT_PREFIX}) counted under the group's key, so it updates a single
 * Event object.
 */
export class EventAggregator {
  readonly #records: LruCache<string, AggregateRecord>;
  readonly #options: EventAggregatorOptions;

  /** @throws {RangeError} when `cacheSize` is not an integer >= 1. */
  constructor(options: EventAggregatorOptions) {
    this.#options = options;
    this.#records = new LruCache(options.cacheSize);
  }

  /** Records the event in its group and returns what to count it as. */
  aggregate(event: EventOccurrence): AggregatedOccurrence {
    const now = this.#options.clock.now();
    const groupKey = aggregateKey(event);
    let record = this.#records.get(groupKey);
    if (record === undefined || now - record.lastSeen > this.#options.intervalMs) {
      record = { messages: new Set(), lastSeen: now };
    }
    record.messages.add(event.message);
    record.lastSeen = now;
    this.#records.set(groupKey, record);
    if (record.messages.size < this.#options.maxEvents) {
      return { event, key: eventKey(event), combined: false };
    }
    // Keep the set below the threshold so it never grows past maxEvents.
    const first = record.messages.values().next();
    if (first.done !== true) record.messages.delete(first.value);
    return {
      event: { ...event, message: COMBINED_EVENT_PREFIX + event.message },
      key: groupKey,
      combined: true,
    };
  }
}
