/**
 * The leader election status gauge (client-go's `tools/leaderelection/metrics.go`,
 * registered by controller-runtime in `pkg/metrics/leaderelection.go`).
 */
import type { MetricFactory, SettableGaugeMetric } from "../../core/metrics.js";

/**
 * `leader_election_master_status{name}` of the lock `name` in `factory`: 1 while this
 * process leads, 0 otherwise (exposed at 0 from creation).
 */
export function leaderElectionStatusMetric(
  factory: MetricFactory,
  name: string,
): SettableGaugeMetric {
  return factory
    .gauge({
      name: "leader_election_master_status",
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
      labelNames: ["name"],
    })
    .labels(name);
}
