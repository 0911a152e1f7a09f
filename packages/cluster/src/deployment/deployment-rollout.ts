/**
 * The two rollout strategies of kube's deployment controller
 * (`pkg/controller/deployment/rolling.go`, `pkg/controller/deployment/recreate.go`).
 */
import type { ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { ReconcileResult } from "kubekit";
import {
  activeReplicaSets,
  actualReplicaSum,
  availableReplicaSum,
  byCreationTimestamp,
  specReplicaSum,
  specReplicas,
} from "./deployment-replica-sets.js";
import { deploymentComplete } from "./deployment-status.js";
import type { DeploymentSync } from "./deployment-sync.js";
import { maxUnavailable, newReplicaSetReplicas } from "./rolling-update-bounds.js";

/**
 * A RollingUpdate step (`rolloutRolling`): creates the new ReplicaSet if needed, scales it up
 * within `spec.replicas + maxSurge`, else scales old ReplicaSets down while at least
 * `spec.replicas - maxUnavailable` pods stay available (unhealthy old pods first); once the
 * rollout is complete, removes old ReplicaSets beyond `revisionHistoryLimit`; then writes the
 * rollout status. One kind of move per sync: the ReplicaSets' new status triggers the next.
 */
export async function rolloutRolling(sync: DeploymentSync): Promise<ReconcileResult | void> {
  const { newRS, oldRSs } = await sync.replicaSetsAndSyncRevision(true);
  if (newRS !== undefined && (await reconcileNewReplicaSet(sync, newRS))) {
    return sync.syncRolloutStatus(sync.replicaSets, sync.current(newRS));
  }
  if (
    newRS !== undefined &&
    (await reconcileOldReplicaSets(sync, activeReplicaSets(oldRSs), newRS))
  ) {
    return sync.syncRolloutStatus(sync.replicaSets, sync.current(newRS));
  }
  if (
    sync.deployment.status !== undefined &&
    deploymentComplete(sync.deployment, sync.deployment.status)
  ) {
    await sync.cleanup(oldRSs.map((rs) => sync.current(rs)));
  }
  return sync.syncRolloutStatus(sync.replicaSets, sync.current(newRS));
}

/** Scales the new ReplicaSet towards `spec.replicas` within the surge (`reconcileNewReplicaSet`). */
async function reconcileNewReplicaSet(sync: DeploymentSync, newRS: ReplicaSet): Promise<boolean> {
  const replicas = sync.replicas;
  const current = specReplicas(newRS);
  if (current === replicas) return false;
  const target =
    current > replicas ? replicas : newReplicaSetReplicas(sync.deployment, sync.replicaSets, newRS);
  return (await sync.scaleAndRecord(newRS, target)).scaled;
}

/**
 * Scales old ReplicaSets down as far as availability allows (`reconcileOldReplicaSets`):
 * first their unavailable pods, which cost no availability, then available ones down to
 * `spec.replicas - maxUnavailable` available pods in all. Resolves whether anything shrank.
 */
async function reconcileOldReplicaSets(
  sync: DeploymentSync,
  activeOldRSs: readonly ReplicaSet[],
  newRS: ReplicaSet,
): Promise<boolean> {
  if (specReplicaSum(activeOldRSs) === 0) return false;
  const minAvailable = sync.replicas - maxUnavailable(sync.deployment);
  const newUnavailable = specReplicas(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = specReplicaSum([...activeOldRSs, newRS]) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;
  const cleaned = await cleanupUnhealthyReplicas(sync, activeOldRSs, maxScaledDown);
  const scaledDown = await scaleDownOldReplicaSets(
    sync,
    [...cleaned.oldRSs, sync.current(newRS)],
    cleaned.oldRSs,
  );
  return cleaned.scaledDown + scaledDown > 0;
}

/**
 * Scales old ReplicaSets (oldest first) down by their unavailable pods, at most
 * `maxCleanup` in all (`cleanupUnhealthyReplicas`): the ReplicaSet controller deletes
 * not-ready pods first, so this never lowers availability, and a broken old revision never
 * blocks the rollout.
 */
async function cleanupUnhealthyReplicas(
  sync: DeploymentSync,
  oldRSs: readonly ReplicaSet[],
  maxCleanup: number,
): Promise<{ oldRSs: ReplicaSet[]; scaledDown: number }> {
  const sorted = [...oldRSs].sort(byCreationTimestamp);
  let total = 0;
  for (const [i, rs] of sorted.entries()) {
    if (total >= maxCleanup) break;
    const size = specReplicas(rs);
    const unhealthy = size - (rs.status?.availableReplicas ?? 0);
    if (size === 0 || unhealthy <= 0) continue;
    const count = Math.min(maxCleanup - total, unhealthy);
    sorted[i] = (await sync.scaleAndRecord(rs, size - count)).rs;
    total += count;
  }
  return { oldRSs: sorted, scaledDown: total };
}

/**
 * Scales old ReplicaSets (oldest first) down by as many pods as are available beyond
 * `spec.replicas - maxUnavailable` (`scaleDownOldReplicaSetsForRollingUpdate`).
 */
async function scaleDownOldReplicaSets(
  sync: DeploymentSync,
  allRSs: readonly ReplicaSet[],
  oldRSs: readonly ReplicaSet[],
): Promise<number> {
  const minAvailable = sync.replicas - maxUnavailable(sync.deployment);
  const available = availableReplicaSum(allRSs);
  if (available <= minAvailable) return 0;
  const toScaleDown = available - minAvailable;
  let total = 0;
  for (const rs of [...oldRSs].sort(byCreationTimestamp)) {
    if (total >= toScaleDown) break;
    const size = specReplicas(rs);
    if (size === 0) continue;
    const count = Math.min(size, toScaleDown - total);
    await sync.scaleAndRecord(rs, size - count);
    total += count;
  }
  return total;
}

/**
 * A Recreate step (`rolloutRecreate`): scales every old ReplicaSet to 0, waits until none of
 * their pods is left (terminating ones included; only Succeeded or Failed pods do not count),
 * then creates or scales the new ReplicaSet to `spec.replicas`; writes the rollout status.
 *
 * @param podsByReplicaSet the Deployment's pods by their ReplicaSet's uid, as the sync began.
 */
export async function rolloutRecreate(
  sync: DeploymentSync,
  podsByReplicaSet: ReadonlyMap<string, readonly Pod[]>,
): Promise<ReconcileResult | void> {
  let { newRS, oldRSs } = await sync.replicaSetsAndSyncRevision(false);
  let scaledDown = false;
  for (const rs of activeReplicaSets(oldRSs)) {
    if ((await sync.scaleAndRecord(rs, 0)).scaled) scaledDown = true;
  }
  if (scaledDown || oldPodsRunning(newRS, oldRSs, podsByReplicaSet)) {
    return sync.syncRolloutStatus(sync.replicaSets, sync.current(newRS));
  }
  if (newRS === undefined) ({ newRS, oldRSs } = await sync.replicaSetsAndSyncRevision(true));
  if (newRS !== undefined) await sync.scaleAndRecord(newRS, sync.replicas);
  if (
    sync.deployment.status !== undefined &&
    deploymentComplete(sync.deployment, sync.deployment.status)
  ) {
    await sync.cleanup(oldRSs.map((rs) => sync.current(rs)));
  }
  return sync.syncRolloutStatus(sync.replicaSets, sync.current(newRS));
}

/** Whether any pod of an old ReplicaSet may still run (`oldPodsRunning`). */
function oldPodsRunning(
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
  podsByReplicaSet: ReadonlyMap<string, readonly Pod[]>,
): boolean {
  if (actualReplicaSum(oldRSs) > 0) return true;
  for (const [uid, pods] of podsByReplicaSet) {
    if (uid === newRS?.metadata?.uid) continue;
    if (pods.some((pod) => pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed")) {
      return true;
    }
  }
  return false;
}
