/**
 * Leader election among the replicas of a controller through a lock object in the API
 * server (client-go's `tools/leaderelection`). Which piece to use when:
 *
 * - A {@link Manager} with its `leaderElection` option: what a controller program uses. The
 *   manager competes for the Lease, runs its controllers only while it leads, keeps the
 *   informers warm on standbys, exposes `leader_election_master_status` and releases the
 *   Lease on a graceful stop.
 * - {@link LeaderElector}: leader-only work outside a manager, or a program that must decide
 *   what to do when leadership ends (a manager always stops). It calls `onStartedLeading`
 *   with a signal that aborts the moment this candidate stops believing it leads; `run()`
 *   returns once leadership is lost.
 * - {@link LeaseLock}: the lock an elector competes for, a coordination.k8s.io/v1 Lease (the
 *   only lock kube components use today). Implement {@link ResourceLock} only for another
 *   store with optimistic concurrency.
 * - {@link LeaderHealthzAdaptor}: a `/healthz` check that fails when the leader has not
 *   renewed within its lease duration plus a tolerance (a manager adds it).
 * - {@link leaderElectionStatusMetric}: the `leader_election_master_status` gauge, for a
 *   program that runs its own {@link LeaderElector} and serves metrics (a manager creates it).
 *
 * @packageDocumentation
 */
export {
  LEADER_ELECTION_JITTER_FACTOR,
  type LeaderCallbacks,
  LeaderElector,
  type LeaderElectorOptions,
} from "./leader-elector.js";
export { LeaderElectionError, type LeaderElectionErrorReason } from "./leader-election-error.js";
export { LeaseLock, type LeaseLockOptions } from "./lease-lock.js";
export { LeaderHealthzAdaptor } from "./healthz-adaptor.js";
export type {
  LeaderElectionRecord,
  ObservedLeaderElectionRecord,
  ResourceLock,
} from "./resource-lock.js";
export { leaderElectionStatusMetric } from "./leader-election-metrics.js";
