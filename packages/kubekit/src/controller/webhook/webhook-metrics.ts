/**
 * The webhook server's metrics, with controller-runtime's names, help texts and buckets
 * (`pkg/webhook/internal/metrics/metrics.go`, `InstrumentedHook`).
 */
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  LabeledMetric,
  MetricFactory,
} from "../../core/metrics.js";

/**
 * controller-runtime's latency buckets, `prometheus.ExponentialBuckets(10e-9, 10, 12)`: 10 ns
 * to 1000 s, in seconds.
 */
export const WEBHOOK_LATENCY_BUCKETS: readonly number[] = Array.from({ length: 12 }, (_, i) =>
  Number((1e-8 * 10 ** i).toPrecision(1)),
);

/** The metrics of one registered path. */
export interface WebhookPathMetrics {
  /** A request began: the in-flight gauge goes up until `finished`. */
  started(): void;
  /** A request was answered with HTTP `code` after `seconds`. */
  finished(code: number, seconds: number): void;
}

/** The webhook metric families of a metric factory. */
export class WebhookMetrics {
  readonly #total: LabeledMetric<CounterMetric>;
  readonly #latency: LabeledMetric<HistogramMetric>;
  readonly #inFlight: LabeledMetric<GaugeMetric>;

  constructor(factory: MetricFactory) {
    this.#latency = factory.histogram({
      name: "controller_runtime_webhook_latency_seconds",
      help: "Histogram of the latency of processing admission requests",
      labelNames: ["webhook"],
      buckets: WEBHOOK_LATENCY_BUCKETS,
    });
    this.#total = factory.counter({
      name: "controller_runtime_webhook_requests_total",
      help: "Total number of admission requests by HTTP status code.",
      labelNames: ["webhook", "code"],
    });
    this.#inFlight = factory.gauge({
      name: "controller_runtime_webhook_requests_in_flight",
      help: "Current number of admission requests being served.",
      labelNames: ["webhook"],
    });
  }

  /**
   * The metrics of the webhook at `path` (its `webhook` label). As controller-runtime does,
   * the counters of codes 200 and 500 exist (at 0) from registration on.
   */
  forPath(path: string): WebhookPathMetrics {
    const latency = this.#latency.labels(path);
    const inFlight = this.#inFlight.labels(path);
    this.#total.labels(path, "200");
    this.#total.labels(path, "500");
    return {
      started: () => inFlight.inc(),
      finished: (code, seconds) => {
        inFlight.dec();
        this.#total.labels(path, String(code)).inc();
        latency.observe(seconds);
      },
    };
  }
}
