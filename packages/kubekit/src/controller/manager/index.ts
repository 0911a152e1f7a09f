/**
 * The {@link Manager}: runs controllers the way replicas of a controller Deployment must run
 * them (controller-runtime's `pkg/manager`). Which piece to use when:
 *
 * - {@link Manager}: a controller program deployed in a cluster. Add the informer factories
 *   and the controllers, then `start(signalHandler())`: caches first, leader election
 *   (`leaderElection` option), `/metrics`, `/healthz`, `/readyz`, and a bounded graceful
 *   stop. Its `clientset` is rate-limited as controller-runtime's clients are, and its
 *   `metrics` is the provider to give each {@link Controller}. Without a manager, a
 *   controller is run with `controller.run(signal)` after starting its factory (tests,
 *   scripts, controllers embedded in another program).
 * - {@link signalHandler}: the signal to give `start` in a process: aborts on SIGTERM (what
 *   the kubelet sends) or SIGINT.
 * - {@link Runnable}: anything else the manager should run and stop with the controllers; set
 *   `needLeaderElection: false` for work every replica does.
 * - {@link HealthCheck}: a check to add with `addHealthzCheck` (fail it only when a restart
 *   would help) or `addReadyzCheck` (fail it while the replica should get no traffic).
 *
 * Internals, not exported: the HTTP server of the endpoints and the `/healthz`/`/readyz`
 * check sets.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_GRACEFUL_SHUTDOWN_MS,
  INFORMER_SYNC_CHECK,
  MANAGER_DEFAULT_BURST,
  MANAGER_DEFAULT_QPS,
  Manager,
  type InformerFactoryLike,
  type ManagerLeaderElectionOptions,
  type ManagerOptions,
  type Runnable,
} from "./manager.js";
export { ManagerError, type ManagerErrorReason } from "./manager-error.js";
export { signalHandler, type SignalHandlerOptions, type SignalSource } from "./signal-handler.js";
export type { HealthCheck } from "./health-checks.js";
