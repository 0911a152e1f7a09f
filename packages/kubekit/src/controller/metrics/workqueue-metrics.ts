/**
 * The workqueue's metrics with the names client-go's users scrape
 * (`k8s.io/component-base/metrics/prometheus/workqueue/metrics.go`, registered by
 * controller-runtime in `pkg/metrics/workqueue.go`).
 */
import type { MetricFactory } from "../../core/metrics.js";
import type { MetricsProvider } from "../../workqueue/index.js";

/**
 * The queue latency and work duration buckets, in seconds: 10 ns times powers of ten up to
 * 1000 s (controller-runtime's `prometheus.ExponentialBuckets(10e-9, 10, 12)`).
 */
export const WORKQUEUE_DURATION_BUCKETS: readonly number[] = Array.from(
  { length: 12 },
  (_, i) => 1e-8 * 10 ** i,
);

/**
 * A workqueue {@link MetricsProvider} recording into `factory`, every metric labelled with
 * the queue's name as `name` and as `controller` (controller-runtime labels a controller's
 * queue so; a {@link Controller}'s queue is named after it): `workqueue_depth`, `workqueue_adds_total`,
 * `workqueue_queue_duration_seconds` and `workqueue_work_duration_seconds` (histograms),
 * `workqueue_unfinished_work_seconds`, `workqueue_longest_running_processor_seconds` and
 * `workqueue_retries_total`. The families are created at once; a queue's series when the
 * queue is constructed.
 */
export function workqueueMetricsProvider(factory: MetricFactory): MetricsProvider {
  const labelNames = ["name", "controller"];
  const depth = factory.gauge({
    name: "workqueue_depth",
    help: "Current depth of workqueue",
    labelNames,
  });
  const adds = factory.counter({
    name: "workqueue_adds_total",
    help: "Total number of adds handled by workqueue",
    labelNames,
  });
  const latency = factory.histogram({
    name: "workqueue_queue_duration_seconds",
    help: "How long in seconds an item stays in workqueue before being requested",
    labelNames,
    buckets: WORKQUEUE_DURATION_BUCKETS,
  });
  const workDuration = factory.histogram({
    name: "workqueue_work_duration_seconds",
    help: "How long in seconds processing an item from workqueue takes",
    labelNames,
    buckets: WORKQUEUE_DURATION_BUCKETS,
  });
  const unfinished = factory.gauge({
    name: "workqueue_unfinished_work_seconds",
    help:
      "How many seconds of work has been done that is in progress and hasn't been observed by " +
      "work_duration. Large values indicate stuck threads. One can deduce the number of stuck " +
      "threads by observing the rate at which this increases.",
    labelNames,
  });
  const longest = factory.gauge({
    name: "workqueue_longest_running_processor_seconds",
    help: "How many seconds has the longest running processor for workqueue been running",
    labelNames,
  });
  const retries = factory.counter({
    name: "workqueue_retries_total",
    help: "Total number of retries handled by workqueue",
    labelNames,
  });
  return {
    newDepthMetric: (name) => depth.labels(name, name),
    newAddsMetric: (name) => adds.labels(name, name),
    newLatencyMetric: (name) => latency.labels(name, name),
    newWorkDurationMetric: (name) => workDuration.labels(name, name),
    newUnfinishedWorkSecondsMetric: (name) => unfinished.labels(name, name),
    newLongestRunningProcessorSecondsMetric: (name) => longest.labels(name, name),
    newRetriesMetric: (name) => retries.labels(name, name),
  };
}
