/**
 * The REST client's request metrics with client-go's names
 * (`k8s.io/component-base/metrics/prometheus/restclient/metrics.go`; controller-runtime
 * registers `rest_client_requests_total` in `pkg/metrics/client_go_adapter.go`).
 */
import type { CounterMetric, HistogramMetric, MetricFactory } from "../../core/metrics.js";
import type { RequestMetrics } from "../../rest/index.js";

/** client-go's request latency buckets, in seconds (5 ms to 60 s). */
export const REST_CLIENT_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60,
];

/**
 * A {@link RequestMetrics} recording into `factory`: `rest_client_requests_total{code,method,host}`
 * (one per attempt) and `rest_client_request_duration_seconds{verb,host}` (histogram of each
 * attempt's time to its response headers). Give it to a client as `RESTClientOptions.metrics`
 * (a {@link Manager}'s clients have it). Children are resolved once per label combination and
 * kept, so a request allocates nothing after the first of its kind.
 */
export function restClientMetrics(factory: MetricFactory): RequestMetrics {
  const requests = factory.counter({
    name: "rest_client_requests_total",
    help: "Number of HTTP requests, partitioned by status code, method, and host.",
    labelNames: ["code", "method", "host"],
  });
  const duration = factory.histogram({
    name: "rest_client_request_duration_seconds",
    help: "Request latency in seconds. Broken down by verb, and host.",
    labelNames: ["verb", "host"],
    buckets: REST_CLIENT_DURATION_BUCKETS,
  });
  /** method → host → (code → counter, and the duration histogram). */
  const children = new Map<
    string,
    Map<string, { codes: Map<string, CounterMetric>; duration: HistogramMetric }>
  >();
  return {
    observe(method, host, code, seconds) {
      let byHost = children.get(method);
      if (byHost === undefined) children.set(method, (byHost = new Map()));
      let entry = byHost.get(host);
      if (entry === undefined) {
        entry = { codes: new Map(), duration: duration.labels(method, host) };
        byHost.set(host, entry);
      }
      let counter = entry.codes.get(code);
      if (counter === undefined)
        entry.codes.set(code, (counter = requests.labels(code, method, host)));
      counter.inc();
      entry.duration.observe(seconds);
    },
  };
}
