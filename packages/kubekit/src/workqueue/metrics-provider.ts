/**
 * The workqueue's metrics hooks: client-go's `MetricsProvider` and metric interfaces
 * (`staging/src/k8s.io/client-go/util/workqueue/metrics.go`), over core's metric shapes. A
 * provider adapts these calls to a metrics backend (the controller layer's
 * `workqueueMetricsProvider` to any core `MetricFactory`, e.g. Prometheus).
 */

import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
} from "../core/metrics.js";

// The metric shapes are core's, shared with the other layers' metrics.
export type { CounterMetric, GaugeMetric, HistogramMetric, SettableGaugeMetric };

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
