/**
 * The workqueue's metrics hooks: client-go's `MetricsProvider` and metric interfaces
 * (`staging/src/k8s.io/client-go/util/workqueue/metrics.go`). kubekit ships no metrics
 * backend; a provider adapts these calls to one (Prometheus, OpenTelemetry, ...).
 */

/** A value that goes up and down by one (the queue's depth). */
export interface GaugeMetric {
  inc(): void;
  dec(): void;
}

/** A value that is set outright (seconds of unfinished work, longest running processor). */
export interface SettableGaugeMetric {
  set(value: number): void;
}

/** A value that only goes up by one (adds, retries). */
export interface CounterMetric {
  inc(): void;
}

/** A distribution of observations, in seconds (queue latency, work duration). */
export interface HistogramMetric {
  observe(value: number): void;
}

/**
 * Creates the metrics of one named queue (client-go's `MetricsProvider`). A queue asks for
 * each metric once, when it is constructed, and only when it has both a `name` and a
 * provider (client-go registers no metrics for an unnamed queue); without them a queue
 * records nothing and pays nothing. Durations are reported in seconds, as client-go does.
 *
 * The metrics, as client-go defines them:
 * - depth: items waiting to be handed out (incremented by each add that marks an item
 *   dirty, decremented when a worker gets it);
 * - adds: adds that marked an item dirty (repeated adds of a dirty item are not counted);
 * - latency: seconds from an item's first add to a worker getting it;
 * - work duration: seconds from a worker getting an item to its `done`;
 * - unfinished work seconds: the summed age of every item being processed, and longest
 *   running processor seconds: the age of the oldest — both set every 500 ms while the
 *   queue runs (not after shutdown);
 * - retries: calls to a delaying queue's `addAfter` (and so to `addRateLimited`).
 */
export interface MetricsProvider {
  newDepthMetric(name: string): GaugeMetric;
  newAddsMetric(name: string): CounterMetric;
  newLatencyMetric(name: string): HistogramMetric;
  newWorkDurationMetric(name: string): HistogramMetric;
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  newRetriesMetric(name: string): CounterMetric;
}
