/**
 * How far a Deployment may go above and below `spec.replicas` while it rolls out
 * (`pkg/controller/deployment/util/deployment_util.go` ResolveFenceposts, MaxSurge,
 * MaxUnavailable, NewRSNewReplicas).
 */
import type { Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import { specReplicaSum, specReplicas } from "./deployment-replica-sets.js";
import { scaledIntOrPercent } from "../controller-support/int-or-percent.js";

/** Whether the Deployment rolls out with the RollingUpdate strategy (the API server's default). */
export function isRollingUpdate(deployment: Deployment): boolean {
  return (deployment.spec?.strategy?.type ?? "RollingUpdate") === "RollingUpdate";
}

/**
 * `maxSurge` and `maxUnavailable` against `spec.replicas`: surge rounded up, unavailable
 * rounded down, and, when both come out 0, an unavailable of 1 so the rollout can move
 * (`ResolveFenceposts`).
 *
 * @throws {TypeError} for a value that is neither an integer nor a percentage.
 */
export function resolveFenceposts(deployment: Deployment): { surge: number; unavailable: number } {
  const rolling = deployment.spec?.strategy?.rollingUpdate;
  const desired = deployment.spec?.replicas ?? 1;
  const surge = scaledIntOrPercent(rolling?.maxSurge ?? "25%", desired, true);
  let unavailable = scaledIntOrPercent(rolling?.maxUnavailable ?? "25%", desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** The pods a rolling Deployment may run above `spec.replicas` (0 for Recreate; `MaxSurge`). */
export function maxSurge(deployment: Deployment): number {
  return isRollingUpdate(deployment) ? resolveFenceposts(deployment).surge : 0;
}

/**
 * The pods a rolling Deployment may lack below `spec.replicas`, at most `spec.replicas`
 * (0 for Recreate or no replicas; `MaxUnavailable`).
 */
export function maxUnavailable(deployment: Deployment): number {
  const replicas = deployment.spec?.replicas ?? 1;
  if (!isRollingUpdate(deployment) || replicas === 0) return 0;
  return Math.min(resolveFenceposts(deployment).unavailable, replicas);
}

/**
 * The size the new ReplicaSet may grow to now (`NewRSNewReplicas`): with RollingUpdate, up to
 * what keeps every ReplicaSet's total within `spec.replicas + maxSurge`, never past
 * `spec.replicas`; with Recreate, `spec.replicas` at once.
 */
export function newReplicaSetReplicas(
  deployment: Deployment,
  allRSs: readonly ReplicaSet[],
  newRS: ReplicaSet,
): number {
  const replicas = deployment.spec?.replicas ?? 1;
  if (!isRollingUpdate(deployment)) return replicas;
  const surge = scaledIntOrPercent(
    deployment.spec?.strategy?.rollingUpdate?.maxSurge ?? "25%",
    replicas,
    true,
  );
  const current = specReplicaSum(allRSs);
  const maxTotal = replicas + surge;
  if (current >= maxTotal) return specReplicas(newRS);
  const scaleUp = Math.min(maxTotal - current, replicas - specReplicas(newRS));
  return specReplicas(newRS) + scaleUp;
}
