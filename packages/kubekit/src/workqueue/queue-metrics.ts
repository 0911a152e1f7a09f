/**
 * The recorder behind a named queue's metrics (client-go's `defaultQueueMetrics` and its
 * `updateUnfinishedWorkLoop`, `staging/src/k8s.io/client-go/util/workqueue/metrics.go` and
 * `queue.go`). Internal to the workqueue: a queue creates one only when it has a name and a
 * provider.
 */
import type { Clock, TimerHandle } from "../core/clock.js";
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricsProvider,
  SettableGaugeMetric,
} from "./metrics-provider.js";

/** How often the unfinished-work gauges are refreshed (client-go's `defaultUnfinishedWorkUpdatePeriod`). */
export const UNFINISHED_WORK_UPDATE_PERIOD_MS = 500;

/**
 * Records a queue's adds, gets and dones as client-go does, and refreshes the unfinished
 * work gauges every {@link UNFINISHED_WORK_UPDATE_PERIOD_MS} on the queue's clock, on the
 * period's grid counted from construction. Unlike client-go, whose loop ticks from creation
 * to shutdown, the timer is armed only while items are in processing, plus the one tick that
 * brings the gauges back to 0: the timer is live work, so a queue that is never used (a
 * standby controller's) or has gone idle holds none and never keeps a process alive by
 * itself. {@link stop} cancels it for good.
 *
 * It holds an item only between its add and its `done` (the two time maps), so a done item
 * is not retained.
 */
export class QueueMetrics<T> {
  readonly #clock: Clock;
  readonly #depth: GaugeMetric;
  readonly #adds: CounterMetric;
  readonly #latency: HistogramMetric;
  readonly #workDuration: HistogramMetric;
  readonly #unfinishedWorkSeconds: SettableGaugeMetric;
  readonly #longestRunningProcessor: SettableGaugeMetric;
  /** When each dirty, not yet handed out, item was first added. */
  readonly #addTimes = new Map<T, number>();
  /** When each item being processed was handed out. */
  readonly #processingStartTimes = new Map<T, number>();
  #timer: TimerHandle | undefined;
  #stopped = false;
  /** Construction time: the refresh ticks fall on multiples of the period after it. */
  readonly #createdAt: number;

  constructor(provider: MetricsProvider, name: string, clock: Clock) {
    this.#clock = clock;
    this.#createdAt = clock.now();
    this.#depth = provider.newDepthMetric(name);
    this.#adds = provider.newAddsMetric(name);
    this.#latency = provider.newLatencyMetric(name);
    this.#workDuration = provider.newWorkDurationMetric(name);
    this.#unfinishedWorkSeconds = provider.newUnfinishedWorkSecondsMetric(name);
    this.#longestRunningProcessor = provider.newLongestRunningProcessorSecondsMetric(name);
  }

  /** An add that marked `item` dirty. */
  add(item: T): void {
    this.#adds.inc();
    this.#depth.inc();
    if (!this.#addTimes.has(item)) this.#addTimes.set(item, this.#clock.now());
  }

  /** `item` was handed to a worker. */
  get(item: T): void {
    const now = this.#clock.now();
    this.#depth.dec();
    this.#processingStartTimes.set(item, now);
    if (this.#timer === undefined && !this.#stopped) this.#schedule();
    const addedAt = this.#addTimes.get(item);
    if (addedAt !== undefined) {
      this.#latency.observe(secondsBetween(addedAt, now));
      this.#addTimes.delete(item);
    }
  }

  /** A worker finished `item`. */
  done(item: T): void {
    const startedAt = this.#processingStartTimes.get(item);
    if (startedAt !== undefined) {
      this.#workDuration.observe(secondsBetween(startedAt, this.#clock.now()));
      this.#processingStartTimes.delete(item);
    }
  }

  /** Stops the periodic refresh (the queue is shutting down); idempotent. */
  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #schedule(): void {
    const sinceCreation = this.#clock.now() - this.#createdAt;
    const delay =
      UNFINISHED_WORK_UPDATE_PERIOD_MS - (sinceCreation % UNFINISHED_WORK_UPDATE_PERIOD_MS);
    this.#timer = this.#clock.setTimer(delay, () => {
      this.#timer = undefined;
      this.#updateUnfinishedWork();
      if (this.#processingStartTimes.size > 0) this.#schedule();
    });
  }

  #updateUnfinishedWork(): void {
    const now = this.#clock.now();
    let total = 0;
    let oldest = 0;
    for (const startedAt of this.#processingStartTimes.values()) {
      const age = secondsBetween(startedAt, now);
      total += age;
      if (age > oldest) oldest = age;
    }
    this.#unfinishedWorkSeconds.set(total);
    this.#longestRunningProcessor.set(oldest);
  }
}

function secondsBetween(startMs: number, endMs: number): number {
  return (endMs - startMs) / 1000;
}
