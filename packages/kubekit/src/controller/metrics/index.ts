/**
 * Prometheus metrics with the names client-go's and controller-runtime's users scrape
 * (controller-runtime's `pkg/metrics`), on prom-client. Which piece to use when:
 *
 * - A {@link Manager}: creates all of them on its `registry` and serves `/metrics`; each
 *   {@link Controller} added to it records there (unless its `metrics` option says
 *   otherwise); give `mgr.metricFactory` to the program's own metrics.
 * - {@link PrometheusMetricFactory}: kubekit's `MetricFactory` on a prom-client registry,
 *   for a program that serves metrics without a manager; the providers below record into it.
 * - {@link controllerMetricsProvider}: a Controller's `metrics` option: its work queue's
 *   metrics and its reconcile metrics (`controller_runtime_reconcile_total`, ...).
 * - {@link workqueueMetricsProvider}: the `metrics` option of a bare work queue (client-go's
 *   `workqueue_*` metrics, no reconcile metrics).
 * - {@link restClientMetrics}: a `RESTClientOptions.metrics` (`rest_client_requests_total`,
 *   `rest_client_request_duration_seconds`) for clients other than the manager's own.
 *
 * The leader election gauge lives with leader election (`leaderElectionStatusMetric`).
 *
 * @packageDocumentation
 */
export { MetricRegistrationError, PrometheusMetricFactory } from "./prometheus-metric-factory.js";
export {
  RECONCILE_TIME_BUCKETS,
  controllerMetricsProvider,
  type ControllerMetricsProvider,
  type ReconcileMetrics,
  type ReconcileOutcome,
} from "./controller-metrics.js";
export { WORKQUEUE_DURATION_BUCKETS, workqueueMetricsProvider } from "./workqueue-metrics.js";
export { REST_CLIENT_DURATION_BUCKETS, restClientMetrics } from "./rest-client-metrics.js";
