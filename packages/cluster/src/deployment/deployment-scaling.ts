/**
 * Scaling a Deployment without rolling it out (`pkg/controller/deployment/sync.go` sync,
 * scale, isScalingEvent; `deployment_util.go` GetProportion): a new `spec.replicas` while
 * paused or mid-rollout is spread over the ReplicaSets in proportion to their sizes.
 */
import type { ReplicaSet } from "kubernetes-types/apps/v1.js";
import { nameOf } from "kubekit/apimachinery";
import {
  activeReplicaSets,
  bySizeNewer,
  bySizeOlder,
  findActiveOrLatest,
  isSaturated,
  specReplicaSum,
  specReplicas,
} from "./deployment-replica-sets.js";
import { desiredReplicasOf, maxReplicasOf } from "./deployment-revision.js";
import type { DeploymentSync } from "./deployment-sync.js";
import { isRollingUpdate, maxSurge } from "./rolling-update-bounds.js";

/**
 * Whether `spec.replicas` changed since the active ReplicaSets were last scaled: one of them
 * has a desired-replicas annotation that differs (`isScalingEvent`). Syncs the new
 * ReplicaSet's annotations and the revision on the way, as kube does.
 */
export async function isScalingEvent(sync: DeploymentSync): Promise<boolean> {
  const { newRS, oldRSs } = await sync.replicaSetsAndSyncRevision(false);
  return activeReplicaSets([...oldRSs, newRS]).some((rs) => {
    const desired = desiredReplicasOf(rs);
    return desired !== undefined && desired !== sync.replicas;
  });
}

/**
 * A sync that scales but does not roll out (`sync`: paused Deployments and scaling events):
 * proportional scaling, then, when paused, cleanup of old ReplicaSets beyond
 * `revisionHistoryLimit`, then the plain status (no Progressing update).
 */
export async function syncScaling(sync: DeploymentSync): Promise<void> {
  const { newRS, oldRSs } = await sync.replicaSetsAndSyncRevision(false);
  await scale(sync, newRS, oldRSs);
  if (sync.deployment.spec?.paused === true) {
    await sync.cleanup(oldRSs.map((rs) => sync.current(rs)));
  }
  await sync.syncStatus(sync.replicaSets, sync.current(newRS));
}

/**
 * Brings the ReplicaSets' sizes to the Deployment's (`scale`): the only active (or latest)
 * ReplicaSet takes `spec.replicas`; a saturated new ReplicaSet leaves the old ones at 0;
 * otherwise, with RollingUpdate, the difference between `spec.replicas + maxSurge` and the
 * current total is shared out in proportion to each ReplicaSet's size (larger first; ties:
 * newer first when growing, older first when shrinking), the rounding leftover going to the
 * first.
 */
async function scale(
  sync: DeploymentSync,
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
): Promise<void> {
  const replicas = sync.replicas;
  const activeOrLatest = findActiveOrLatest(newRS, oldRSs);
  if (activeOrLatest !== undefined) {
    if (specReplicas(activeOrLatest) !== replicas) {
      await sync.scaleAndRecord(activeOrLatest, replicas);
    }
    return;
  }
  if (isSaturated(sync.deployment, newRS)) {
    for (const old of activeReplicaSets(oldRSs)) await sync.scaleAndRecord(old, 0);
    return;
  }
  if (!isRollingUpdate(sync.deployment)) return;
  const all = activeReplicaSets([...oldRSs, newRS]);
  const allowed = replicas > 0 ? replicas + maxSurge(sync.deployment) : 0;
  const toAdd = allowed - specReplicaSum(all);
  let operation: "up" | "down" | "" = "";
  if (toAdd > 0) {
    all.sort(bySizeNewer);
    operation = "up";
  } else if (toAdd < 0) {
    all.sort(bySizeOlder);
    operation = "down";
  }
  const sizes = new Map<string, number>();
  let added = 0;
  for (const rs of all) {
    const share = toAdd !== 0 ? proportion(sync, rs, toAdd, added) : 0;
    sizes.set(nameOf(rs), specReplicas(rs) + share);
    added += share;
  }
  for (const [i, rs] of all.entries()) {
    const name = nameOf(rs);
    let size = sizes.get(name) ?? specReplicas(rs);
    if (i === 0 && toAdd !== 0) size = Math.max(0, size + toAdd - added);
    await sync.scale(rs, size, operation);
  }
}

/**
 * The replicas `rs` gains (or loses) of `toAdd` (`GetProportion`): its size scaled from the
 * Deployment's previous maximum (its max-replicas annotation, else the Deployment's current
 * `status.replicas`) to the new one, bounded by what is left to share out.
 */
function proportion(sync: DeploymentSync, rs: ReplicaSet, toAdd: number, added: number): number {
  if (specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(sync, rs);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/** `getReplicaSetFraction`: `rs`'s new size minus its current one, rounded half away from zero. */
function replicaSetFraction(sync: DeploymentSync, rs: ReplicaSet): number {
  const replicas = sync.replicas;
  if (replicas === 0) return -specReplicas(rs);
  const maxNow = replicas + maxSurge(sync.deployment);
  let maxBefore = maxReplicasOf(rs);
  if (maxBefore === undefined || maxBefore === 0) maxBefore = sync.deployment.status?.replicas ?? 0;
  if (maxBefore === 0) return 0;
  const scaled = (specReplicas(rs) * maxNow) / maxBefore;
  return Math.sign(scaled) * Math.round(Math.abs(scaled)) - specReplicas(rs);
}
