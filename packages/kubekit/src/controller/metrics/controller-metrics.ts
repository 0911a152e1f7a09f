/**
 * A controller's own metrics, with controller-runtime's names and meanings
 * (`pkg/internal/controller/metrics/metrics.go`, recorded by `reconcileHandler` in
 * `pkg/internal/controller/controller.go`), and the provider that gives a {@link Controller}
 * both them and its queue's workqueue metrics.
 */
import type { GaugeMetric, MetricFactory } from "../../core/metrics.js";
import type { MetricsProvider } from "../../workqueue/index.js";
import { workqueueMetricsProvider } from "./workqueue-metrics.js";

/**
 * How a reconcile ended, as controller-runtime labels it: `error` (threw, terminal errors and
 * aborts included), `requeue_after` (`requeueAfterMs > 0`), `requeue` (`requeue: true`), or
 * `success`.
 */
export type ReconcileOutcome = "success" | "error" | "requeue" | "requeue_after";

/** The outcomes, in the order their series are created (each starts at 0). */
const OUTCOMES: readonly ReconcileOutcome[] = ["success", "error", "requeue", "requeue_after"];

/** The reconcile metrics of one controller. */
export interface ReconcileMetrics {
  /** The controller's worker count (`controller_runtime_max_concurrent_reconciles`). */
  setMaxConcurrentReconciles(workers: number): void;
  /** Workers busy with a reconcile (`controller_runtime_active_workers`). */
  readonly activeWorkers: GaugeMetric;
  /**
   * One reconcile ended after `seconds`: counted by outcome, its duration observed, and an
   * error counted (a terminal one twice: in the errors and in the terminal errors).
   */
  reconciled(outcome: ReconcileOutcome, seconds: number, terminal: boolean): void;
  /**
   * A reconcile, or a source's predicate, handler or map function, panicked
   * (`controller_runtime_reconcile_panics_total`; see `Controller` for what counts).
   */
  panicked(): void;
  /** A reconcile outlived `reconcileTimeoutMs` (`controller_runtime_reconcile_timeouts_total`). */
  timedOut(): void;
}

/**
 * What a {@link Controller}'s `metrics` option takes: a workqueue {@link MetricsProvider}
 * (the queue's metrics under the controller's name) that may also create the controller's
 * {@link ReconcileMetrics}. A plain workqueue provider records the queue only.
 */
export interface ControllerMetricsProvider extends MetricsProvider {
  /**
   * Creates the reconcile metrics of the controller named `controller` (called once: at
   * construction, or when a manager gives the controller its provider).
   */
  newReconcileMetrics?(controller: string): ReconcileMetrics;
}

/**
 * controller-runtime's reconcile time buckets, in seconds (5 ms to 60 s), from
 * `pkg/internal/controller/metrics/metrics.go`.
 */
export const RECONCILE_TIME_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
  1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/**
 * The controller metrics in `factory`, under controller-runtime's names:
 * `controller_runtime_reconcile_total{controller,result}`,
 * `controller_runtime_reconcile_errors_total{controller}`,
 * `controller_runtime_terminal_reconcile_errors_total{controller}`,
 * `controller_runtime_reconcile_panics_total{controller}`,
 * `controller_runtime_reconcile_timeouts_total{controller}`,
 * `controller_runtime_reconcile_time_seconds{controller}` (histogram),
 * `controller_runtime_max_concurrent_reconciles{controller}`,
 * `controller_runtime_active_workers{controller}`; and the workqueue's (see
 * {@link workqueueMetricsProvider}). As in controller-runtime, every series of a controller
 * exists (at 0) from its construction, so a rate over them is defined before the first error.
 */
export function controllerMetricsProvider(factory: MetricFactory): ControllerMetricsProvider {
  const total = factory.counter({
    name: "controller_runtime_reconcile_total",
    help: "Total number of reconciliations per controller",
    labelNames: ["controller", "result"],
  });
  const errors = factory.counter({
    name: "controller_runtime_reconcile_errors_total",
    help: "Total number of reconciliation errors per controller",
    labelNames: ["controller"],
  });
  const terminalErrors = factory.counter({
    name: "controller_runtime_terminal_reconcile_errors_total",
    help: "Total number of terminal reconciliation errors per controller",
    labelNames: ["controller"],
  });
  const panics = factory.counter({
    name: "controller_runtime_reconcile_panics_total",
    help: "Total number of reconciliation panics per controller",
    labelNames: ["controller"],
  });
  const timeouts = factory.counter({
    name: "controller_runtime_reconcile_timeouts_total",
    help: "Total number of reconciliation timeouts per controller",
    labelNames: ["controller"],
  });
  const time = factory.histogram({
    name: "controller_runtime_reconcile_time_seconds",
    help: "Length of time per reconciliation per controller",
    labelNames: ["controller"],
    buckets: RECONCILE_TIME_BUCKETS,
  });
  const maxConcurrent = factory.gauge({
    name: "controller_runtime_max_concurrent_reconciles",
    help: "Maximum number of concurrent reconciles per controller",
    labelNames: ["controller"],
  });
  const active = factory.gauge({
    name: "controller_runtime_active_workers",
    help: "Number of currently used workers per controller",
    labelNames: ["controller"],
  });
  return {
    ...workqueueMetricsProvider(factory),
    newReconcileMetrics(controller: string): ReconcileMetrics {
      const byOutcome = new Map(OUTCOMES.map((o) => [o, total.labels(controller, o)] as const));
      const errorCount = errors.labels(controller);
      const terminalCount = terminalErrors.labels(controller);
      const panicCount = panics.labels(controller);
      const timeoutCount = timeouts.labels(controller);
      const duration = time.labels(controller);
      const workers = maxConcurrent.labels(controller);
      const activeWorkers = active.labels(controller);
      return {
        setMaxConcurrentReconciles: (n) => workers.set(n),
        activeWorkers,
        reconciled(outcome, seconds, terminal) {
          byOutcome.get(outcome)?.inc();
          duration.observe(seconds);
          if (outcome === "error") errorCount.inc();
          if (terminal) terminalCount.inc();
        },
        panicked: () => panicCount.inc(),
        timedOut: () => timeoutCount.inc(),
      };
    },
  };
}
