/**
 * The metric interfaces every layer records through (the shapes of client-go's
 * `util/workqueue/metrics.go` and `tools/metrics/metrics.go` hooks, and of Prometheus'
 * counter, gauge and histogram vectors). kubekit's core ships no backend: a
 * {@link MetricFactory} adapts these calls to one (the controller layer has one for
 * prom-client).
 */

/** A value that only goes up by one (adds, retries, requests). */
export interface CounterMetric {
  inc(): void;
}

/** A value that goes up and down by one (a queue's depth, active workers). */
export interface GaugeMetric {
  inc(): void;
  dec(): void;
}

/** A value that is set outright (seconds of unfinished work, leader status). */
export interface SettableGaugeMetric {
  set(value: number): void;
}

/** A distribution of observations, e.g. durations in seconds. */
export interface HistogramMetric {
  observe(value: number): void;
}

/**
 * A family of metrics of one name, one child per combination of label values (Prometheus'
 * `*Vec`). `labels` takes the values in the order of {@link MetricDescription.labelNames}
 * and, as Prometheus' `WithLabelValues`, creates the child's series (counters and gauges at
 * 0) if it does not exist yet. Callers on hot paths resolve a child once and keep it.
 */
export interface LabeledMetric<M> {
  labels(...values: string[]): M;
}

/** What a metric is: its name, help text and label names. */
export interface MetricDescription {
  /** The exposition name, e.g. `workqueue_adds_total` (Prometheus naming rules apply). */
  readonly name: string;
  readonly help: string;
  /** The label names, in the order {@link LabeledMetric.labels} takes their values. */
  readonly labelNames: readonly string[];
}

/** A histogram's description: its upper bucket bounds too, ascending. */
export interface HistogramDescription extends MetricDescription {
  readonly buckets: readonly number[];
}

/**
 * Creates metric families in a metrics backend. Asking twice for one name returns the same
 * family (so several controllers, queues or clients share one family and differ by labels);
 * asking for one name with another kind or other label names is the backend's error to
 * report.
 */
export interface MetricFactory {
  counter(description: MetricDescription): LabeledMetric<CounterMetric>;
  gauge(description: MetricDescription): LabeledMetric<GaugeMetric & SettableGaugeMetric>;
  histogram(description: HistogramDescription): LabeledMetric<HistogramMetric>;
}
