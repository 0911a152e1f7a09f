import type {
  ReplicaSet,
  ReplicaSetCondition,
  ReplicaSetStatus,
} from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { deepEqual, formatTime, errorMessage } from "kubekit/apimachinery";
import { LabelSelector } from "kubekit";
import { isPodAvailable, isPodReady } from "../controller-support/pod-state.js";

/** The condition a ReplicaSet gets when it fails to create or delete pods. */
export const REPLICA_FAILURE = "ReplicaFailure";

/** What {@link replicaSetStatus} computes from. */
export interface ReplicaSetStatusInput {
  readonly rs: ReplicaSet;
  /** The active pods the ReplicaSet controls (before this sync's creates and deletes). */
  readonly pods: readonly Pod[];
  /** The error of this sync's creates or deletes, if any. */
  readonly manageError: unknown;
  readonly nowMs: number;
}

/**
 * The ReplicaSet's status after a sync (`pkg/controller/replicaset/replica_set_utils.go`
 * calculateStatus): `replicas` = active pods, `fullyLabeledReplicas` = those carrying every
 * template label, `readyReplicas`, `availableReplicas` (Ready for `minReadySeconds`), and a
 * `ReplicaFailure` condition (reason `FailedCreate` when short of pods, `FailedDelete` when
 * over, the error as message) added on a failure and removed after a clean sync; an existing
 * failure condition is kept as it is. `observedGeneration` is left as it was (set when
 * written, see {@link withObservedGeneration}).
 */
export function replicaSetStatus(input: ReplicaSetStatusInput): ReplicaSetStatus {
  const { rs, pods, manageError, nowMs } = input;
  const templateLabels = LabelSelector.fromSet(rs.spec?.template?.metadata?.labels ?? {});
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    if (templateLabels.matches(pod.metadata?.labels)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySeconds, nowMs)) available++;
    }
  }
  const status: ReplicaSetStatus = { ...rs.status, replicas: pods.length };
  let conditions = rs.status?.conditions ?? [];
  const failure = conditions.find((c) => c.type === REPLICA_FAILURE);
  if (manageError !== undefined && failure === undefined) {
    const diff = pods.length - (rs.spec?.replicas ?? 1);
    const condition: ReplicaSetCondition = {
      type: REPLICA_FAILURE,
      status: "True",
      lastTransitionTime: formatTime(nowMs),
      reason: diff < 0 ? "FailedCreate" : diff > 0 ? "FailedDelete" : "",
      message: errorMessage(manageError),
    };
    conditions = [...conditions, condition];
  } else if (manageError === undefined && failure !== undefined) {
    conditions = conditions.filter((c) => c.type !== REPLICA_FAILURE);
  }
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
  setCount(status, "fullyLabeledReplicas", fullyLabeled);
  setCount(status, "readyReplicas", ready);
  setCount(status, "availableReplicas", available);
  return status;
}

/** Sets an optional count, leaving it out when 0 (`omitempty`, as the API server prints it). */
function setCount(
  status: ReplicaSetStatus,
  field: "fullyLabeledReplicas" | "readyReplicas" | "availableReplicas",
  value: number,
): void {
  if (value > 0) status[field] = value;
  else delete status[field];
}

/**
 * Whether writing `next` would change nothing (`updateReplicaSetStatus`'s steady state): same
 * counts and conditions, and the generation already observed.
 */
export function replicaSetStatusUnchanged(rs: ReplicaSet, next: ReplicaSetStatus): boolean {
  const cur: ReplicaSetStatus = rs.status ?? { replicas: 0 };
  return (
    (cur.replicas ?? 0) === (next.replicas ?? 0) &&
    (cur.fullyLabeledReplicas ?? 0) === (next.fullyLabeledReplicas ?? 0) &&
    (cur.readyReplicas ?? 0) === (next.readyReplicas ?? 0) &&
    (cur.availableReplicas ?? 0) === (next.availableReplicas ?? 0) &&
    rs.metadata?.generation === cur.observedGeneration &&
    deepEqual(cur.conditions ?? [], next.conditions ?? [])
  );
}

/** `status` stamped with the generation the sync acted on. */
export function withObservedGeneration(rs: ReplicaSet, status: ReplicaSetStatus): ReplicaSetStatus {
  return { ...status, observedGeneration: rs.metadata?.generation ?? 0 };
}
