/**
 * The prom-client backend of kubekit's {@link MetricFactory}: what `/metrics` of a
 * {@link Manager} exposes (controller-runtime serves its `metrics.Registry` the same way,
 * `pkg/metrics/registry.go`).
 */
import { Counter, Gauge, Histogram, register as globalRegistry } from "prom-client";
import type { Registry } from "prom-client";
import type {
  CounterMetric,
  GaugeMetric,
  HistogramDescription,
  HistogramMetric,
  LabeledMetric,
  MetricDescription,
  MetricFactory,
  SettableGaugeMetric,
} from "../../core/metrics.js";

/** A metric of another kind (or from another library) already holds a name in the registry. */
export class MetricRegistrationError extends Error {
  override readonly name = "MetricRegistrationError";
  /** The metric name that clashed. */
  readonly metricName: string;

  constructor(metricName: string, message: string) {
    super(`metric ${metricName}: ${message}`);
    this.metricName = metricName;
  }
}

type Family = Counter | Gauge | Histogram;

/**
 * Creates kubekit's metrics in a prom-client `Registry` (default: prom-client's global
 * `register`, so metrics the program defines itself are served alongside).
 *
 * Guarantees: one family per name, shared by every caller of this factory and by every
 * other `PrometheusMetricFactory` on the same registry (two managers in one process add to
 * the same series instead of failing to register). A family's children are cached by
 * prom-client; `labels(...)` creates a counter's or gauge's series at 0 (as Prometheus'
 * `WithLabelValues`), so it is exposed before its first change.
 *
 * @throws {MetricRegistrationError} from a create call when the registry holds the name as
 *   another kind of metric (or one this factory cannot reuse).
 */
export class PrometheusMetricFactory implements MetricFactory {
  /** Where the metrics are registered; serve `registry.metrics()` to expose them. */
  readonly registry: Registry;

  constructor(options: { readonly registry?: Registry } = {}) {
    this.registry = options.registry ?? globalRegistry;
  }

  counter(description: MetricDescription): LabeledMetric<CounterMetric> {
    const family = this.#family(description, Counter, () => new Counter(this.#common(description)));
    return {
      labels: (...values) => {
        const child = family.labels(...values);
        child.inc(0);
        return child;
      },
    };
  }

  gauge(description: MetricDescription): LabeledMetric<GaugeMetric & SettableGaugeMetric> {
    const family = this.#family(description, Gauge, () => new Gauge(this.#common(description)));
    return {
      labels: (...values) => {
        const child = family.labels(...values);
        child.inc(0);
        return child;
      },
    };
  }

  histogram(description: HistogramDescription): LabeledMetric<HistogramMetric> {
    const family = this.#family(
      description,
      Histogram,
      () => new Histogram({ ...this.#common(description), buckets: [...description.buckets] }),
    );
    return { labels: (...values) => family.labels(...values) };
  }

  #common(description: MetricDescription): {
    name: string;
    help: string;
    labelNames: string[];
    registers: Registry[];
  } {
    return {
      name: description.name,
      help: description.help,
      labelNames: [...description.labelNames],
      registers: [this.registry],
    };
  }

  #family<F extends Family>(
    description: MetricDescription,
    kind: abstract new (...args: never[]) => F,
    create: () => F,
  ): F {
    const existing = this.registry.getSingleMetric(description.name);
    if (existing === undefined) return create();
    if (!(existing instanceof kind)) {
      throw new MetricRegistrationError(
        description.name,
        `already registered as another kind of metric than a ${kind.name}`,
      );
    }
    return existing;
  }
}
