/**
 * A Deployment's status and conditions (`pkg/controller/deployment/sync.go` calculateStatus,
 * `pkg/controller/deployment/progress.go` syncRolloutStatus,
 * `pkg/controller/deployment/util/deployment_util.go` conditions and progress checks), with
 * kube's reasons and messages, which `kubectl rollout status` and `kubectl wait` read.
 */
import type {
  Deployment,
  DeploymentCondition,
  DeploymentStatus,
  ReplicaSet,
} from "kubernetes-types/apps/v1.js";
import { formatTime } from "kubekit/apimachinery";
import {
  actualReplicaSum,
  availableReplicaSum,
  readyReplicaSum,
  specReplicaSum,
} from "./deployment-replica-sets.js";
import { maxUnavailable } from "./rolling-update-bounds.js";

/** The reasons of kube's deployment conditions (`deployment_util.go`). */
export const DeploymentReasons = {
  /** Progressing: a new ReplicaSet was created. */
  newReplicaSetCreated: "NewReplicaSetCreated",
  /** Progressing: the new ReplicaSet already existed. */
  foundNewReplicaSet: "FoundNewReplicaSet",
  /** Progressing: the rollout moved (pods updated, ready or available). */
  replicaSetUpdated: "ReplicaSetUpdated",
  /** Progressing: the rollout is complete. */
  newReplicaSetAvailable: "NewReplicaSetAvailable",
  /** Progressing False: no progress within `progressDeadlineSeconds`. */
  timedOut: "ProgressDeadlineExceeded",
  /** Progressing False: the new ReplicaSet could not be created. */
  failedReplicaSetCreate: "ReplicaSetCreateError",
  /** Progressing Unknown: paused. */
  paused: "DeploymentPaused",
  /** Progressing Unknown: resumed. */
  resumed: "DeploymentResumed",
  /** Available True. */
  minimumReplicasAvailable: "MinimumReplicasAvailable",
  /** Available False. */
  minimumReplicasUnavailable: "MinimumReplicasUnavailable",
} as const;

/** The condition of `type`, if any. */
export function deploymentCondition(
  status: DeploymentStatus | undefined,
  type: string,
): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** A condition stamped `nowMs` for both its update and transition times (`NewDeploymentCondition`). */
export function newDeploymentCondition(
  type: string,
  status: "True" | "False" | "Unknown",
  reason: string,
  message: string,
  nowMs: number,
): DeploymentCondition {
  const now = formatTime(nowMs);
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/**
 * Sets `condition` on `status` (mutated; `SetDeploymentCondition`): nothing changes when the
 * condition already has that status and reason; with the same status its transition time is
 * kept; the condition moves to the end of the list.
 */
export function setDeploymentCondition(
  status: DeploymentStatus,
  condition: DeploymentCondition,
): void {
  const current = deploymentCondition(status, condition.type);
  if (current?.status === condition.status && current.reason === condition.reason) return;
  const next =
    current?.status === condition.status && current.lastTransitionTime !== undefined
      ? { ...condition, lastTransitionTime: current.lastTransitionTime }
      : condition;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

/** Removes the condition of `type` from `status` (mutated). */
export function removeDeploymentCondition(status: DeploymentStatus, type: string): void {
  if (status.conditions === undefined) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
  if (status.conditions.length === 0) delete status.conditions;
}

/** Whether the Deployment has a progress deadline (`HasProgressDeadline`; MaxInt32 means none). */
export function hasProgressDeadline(deployment: Deployment): boolean {
  const seconds = deployment.spec?.progressDeadlineSeconds;
  return seconds !== undefined && seconds !== 2147483647;
}

/**
 * The Deployment's status from its ReplicaSets (`calculateStatus`): replica counts (updated =
 * the new ReplicaSet's pods; unavailable = desired total minus available, at least 0), the
 * generation observed, the collision count, the conditions it had, and `Available` set from
 * whether at least `spec.replicas - maxUnavailable` pods are available.
 */
export function calculateDeploymentStatus(
  deployment: Deployment,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  nowMs: number,
): DeploymentStatus {
  const available = availableReplicaSum(allRSs);
  // Counts of 0 are left out, as kube-apiserver prints them (`omitempty`).
  const counts = Object.entries({
    observedGeneration: deployment.metadata?.generation ?? 0,
    replicas: actualReplicaSum(allRSs),
    updatedReplicas: actualReplicaSum([newRS]),
    readyReplicas: readyReplicaSum(allRSs),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, specReplicaSum(allRSs) - available),
  }).filter(([, value]) => value !== 0);
  const status: DeploymentStatus = {
    ...Object.fromEntries(counts),
    ...(deployment.status?.collisionCount !== undefined
      ? { collisionCount: deployment.status.collisionCount }
      : {}),
    ...(deployment.status?.conditions ? { conditions: [...deployment.status.conditions] } : {}),
  };
  const replicas = deployment.spec?.replicas ?? 1;
  const condition =
    available >= replicas - maxUnavailable(deployment)
      ? newDeploymentCondition(
          "Available",
          "True",
          DeploymentReasons.minimumReplicasAvailable,
          "Deployment has minimum availability.",
          nowMs,
        )
      : newDeploymentCondition(
          "Available",
          "False",
          DeploymentReasons.minimumReplicasUnavailable,
          "Deployment does not have minimum availability.",
          nowMs,
        );
  setDeploymentCondition(status, condition);
  return status;
}

/**
 * Whether the rollout is complete: every replica updated and available, none old, and the
 * current generation observed (`DeploymentComplete`).
 */
export function deploymentComplete(deployment: Deployment, status: DeploymentStatus): boolean {
  const replicas = deployment.spec?.replicas ?? 1;
  return (
    (status.updatedReplicas ?? 0) === replicas &&
    (status.replicas ?? 0) === replicas &&
    (status.availableReplicas ?? 0) === replicas &&
    (status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0)
  );
}

/**
 * Whether `status` shows progress over the Deployment's current status: more updated, ready or
 * available pods, or fewer old ones (`DeploymentProgressing`).
 */
export function deploymentProgressing(deployment: Deployment, status: DeploymentStatus): boolean {
  const old = deployment.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (status.replicas ?? 0) - (status.updatedReplicas ?? 0);
  return (
    (status.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (status.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (status.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/**
 * Whether the rollout has made no progress for `progressDeadlineSeconds` since the
 * Progressing condition was last updated (`DeploymentTimedOut`); a complete rollout never
 * times out, a timed-out one stays so.
 */
export function deploymentTimedOut(
  deployment: Deployment,
  status: DeploymentStatus,
  nowMs: number,
): boolean {
  if (!hasProgressDeadline(deployment)) return false;
  const condition = deploymentCondition(status, "Progressing");
  if (condition === undefined) return false;
  if (condition.reason === DeploymentReasons.newReplicaSetAvailable) return false;
  if (condition.reason === DeploymentReasons.timedOut) return true;
  const from = Date.parse(condition.lastUpdateTime ?? "");
  const deadlineMs = (deployment.spec?.progressDeadlineSeconds ?? 0) * 1000;
  return Number.isFinite(from) && from + deadlineMs < nowMs;
}

/** `ReplicaSet "<name>"` or `Deployment "<name>"`, as kube's progress messages name them. */
function subjectOf(deployment: Deployment, newRS: ReplicaSet | undefined): string {
  return newRS !== undefined
    ? `ReplicaSet "${newRS.metadata?.name}"`
    : `Deployment "${deployment.metadata?.name}"`;
}

/**
 * The status `syncRolloutStatus` writes: {@link calculateDeploymentStatus}, then, for a
 * Deployment with a progress deadline whose rollout is not already complete, the Progressing
 * condition: `NewReplicaSetAvailable` (`… has successfully progressed.`) once complete,
 * `ReplicaSetUpdated` (`… is progressing.`, update time refreshed, transition time kept) on
 * progress, `ProgressDeadlineExceeded` (`… has timed out progressing.`) past the deadline;
 * and the first ReplicaSet's `ReplicaFailure` condition mirrored (or removed). Without a
 * progress deadline there is no Progressing condition.
 */
export function rolloutStatus(
  deployment: Deployment,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  nowMs: number,
): DeploymentStatus {
  const status = calculateDeploymentStatus(deployment, allRSs, newRS, nowMs);
  if (!hasProgressDeadline(deployment)) removeDeploymentCondition(status, "Progressing");
  const current = deploymentCondition(deployment.status, "Progressing");
  const complete =
    status.replicas === status.updatedReplicas &&
    current?.reason === DeploymentReasons.newReplicaSetAvailable;
  if (hasProgressDeadline(deployment) && !complete) {
    const subject = subjectOf(deployment, newRS);
    if (deploymentComplete(deployment, status)) {
      setDeploymentCondition(
        status,
        newDeploymentCondition(
          "Progressing",
          "True",
          DeploymentReasons.newReplicaSetAvailable,
          `${subject} has successfully progressed.`,
          nowMs,
        ),
      );
    } else if (deploymentProgressing(deployment, status)) {
      let condition = newDeploymentCondition(
        "Progressing",
        "True",
        DeploymentReasons.replicaSetUpdated,
        `${subject} is progressing.`,
        nowMs,
      );
      // Progress refreshes the update time even when the reason stays the same.
      if (current !== undefined) {
        if (current.status === "True" && current.lastTransitionTime !== undefined) {
          condition = { ...condition, lastTransitionTime: current.lastTransitionTime };
        }
        removeDeploymentCondition(status, "Progressing");
      }
      setDeploymentCondition(status, condition);
    } else if (deploymentTimedOut(deployment, status, nowMs)) {
      setDeploymentCondition(
        status,
        newDeploymentCondition(
          "Progressing",
          "False",
          DeploymentReasons.timedOut,
          `${subject} has timed out progressing.`,
          nowMs,
        ),
      );
    }
  }
  const failure = replicaFailure(allRSs, newRS);
  if (failure !== undefined) setDeploymentCondition(status, failure);
  else removeDeploymentCondition(status, "ReplicaFailure");
  return status;
}

/**
 * The ReplicaFailure condition of the new ReplicaSet, else of the first old one that has one
 * (`getReplicaFailures`), as a Deployment condition.
 */
function replicaFailure(
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
): DeploymentCondition | undefined {
  const ordered = newRS !== undefined ? [newRS, ...allRSs.filter((rs) => rs !== newRS)] : allRSs;
  for (const rs of ordered) {
    const failure = rs?.status?.conditions?.find((c) => c.type === "ReplicaFailure");
    if (failure !== undefined) {
      return {
        type: "ReplicaFailure",
        status: failure.status,
        ...(failure.lastTransitionTime !== undefined
          ? {
              lastUpdateTime: failure.lastTransitionTime,
              lastTransitionTime: failure.lastTransitionTime,
            }
          : {}),
        ...(failure.reason !== undefined ? { reason: failure.reason } : {}),
        ...(failure.message !== undefined ? { message: failure.message } : {}),
      };
    }
  }
  return undefined;
}

/**
 * When to look at a rollout again for its progress deadline (`requeueStuckDeployment`): never
 * (undefined) without a deadline or Progressing condition, or when complete or already timed
 * out; otherwise the time left until the deadline, in ms (0: now, with back-off).
 */
export function stuckRequeueMs(
  deployment: Deployment,
  status: DeploymentStatus,
  nowMs: number,
): number | undefined {
  const condition = deploymentCondition(status, "Progressing");
  if (!hasProgressDeadline(deployment) || condition === undefined) return undefined;
  if (deploymentComplete(deployment, status) || condition.reason === DeploymentReasons.timedOut) {
    return undefined;
  }
  const from = Date.parse(condition.lastUpdateTime ?? "");
  if (!Number.isFinite(from)) return undefined;
  const after = from + (deployment.spec?.progressDeadlineSeconds ?? 0) * 1000 - nowMs;
  return after < 1000 ? 0 : after;
}
