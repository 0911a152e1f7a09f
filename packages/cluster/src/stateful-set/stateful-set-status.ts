/**
 * A StatefulSet's status from its pods (`pkg/controller/statefulset/stateful_set_control.go`
 * computeReplicaStatus, completeRollingUpdate and inconsistentStatus): the fields
 * `kubectl rollout status statefulset/<name>` reads
 * (`staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go` StatefulSetStatusViewer).
 */
import type { StatefulSet, StatefulSetStatus } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { isPodAvailable, isPodReady } from "../controller-support/pod-state.js";
import { podRevision } from "./stateful-set-identity.js";

/** Whether the API server has the pod (it has a phase; a pod about to be created has none): `isCreated`. */
export function isCreated(pod: Pod): boolean {
  return (pod.status?.phase ?? "") !== "";
}

/** Whether the pod is being deleted (`isTerminating`). */
export function isTerminating(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined;
}

/** Whether the pod runs with its Ready condition True (`isRunningAndReady`). */
export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === "Running" && isPodReady(pod);
}

/** Whether the pod runs and has been Ready for `minReadySeconds` (`isRunningAndAvailable`). */
export function isRunningAndAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  return pod.status?.phase === "Running" && isPodAvailable(pod, minReadySeconds, nowMs);
}

/** Whether the pod runs, is Ready and is not being deleted (`isHealthy`). */
export function isHealthy(pod: Pod): boolean {
  return isRunningAndReady(pod) && !isTerminating(pod);
}

/** The revisions a status names. */
export interface StatusRevisions {
  readonly current: string;
  readonly update: string;
  readonly collisionCount: number;
}

/**
 * The status of `set` with `pods` (the members it owns): `replicas` counts created pods,
 * `readyReplicas` those Running and Ready, `availableReplicas` those also Ready for
 * `minReadySeconds`, `currentReplicas`/`updatedReplicas` the live pods at the current and the
 * update revision. A RollingUpdate whose pods are all updated and Ready completes: the update
 * revision becomes the current one.
 */
export function statefulSetStatus(
  set: StatefulSet,
  pods: readonly Pod[],
  revisions: StatusRevisions,
  nowMs: number,
): StatefulSetStatus {
  const minReadySeconds = set.spec?.minReadySeconds ?? 0;
  let replicas = 0;
  let readyReplicas = 0;
  let availableReplicas = 0;
  let currentReplicas = 0;
  let updatedReplicas = 0;
  for (const pod of pods) {
    if (isCreated(pod)) replicas++;
    if (isRunningAndReady(pod)) {
      readyReplicas++;
      if (isRunningAndAvailable(pod, minReadySeconds, nowMs)) availableReplicas++;
    }
    if (isCreated(pod) && !isTerminating(pod)) {
      if (podRevision(pod) === revisions.current) currentReplicas++;
      if (podRevision(pod) === revisions.update) updatedReplicas++;
    }
  }
  let currentRevision = revisions.current;
  if (
    set.spec?.updateStrategy?.type !== "OnDelete" &&
    updatedReplicas === replicas &&
    readyReplicas === replicas
  ) {
    currentReplicas = updatedReplicas;
    currentRevision = revisions.update;
  }
  return {
    observedGeneration: set.metadata?.generation ?? 0,
    replicas,
    readyReplicas,
    availableReplicas,
    currentReplicas,
    updatedReplicas,
    currentRevision,
    updateRevision: revisions.update,
    collisionCount: revisions.collisionCount,
  };
}

/** The status fields `kubectl` and the controller compare; the rest (conditions) is kept as is. */
const STATUS_FIELDS = [
  "observedGeneration",
  "replicas",
  "readyReplicas",
  "availableReplicas",
  "currentReplicas",
  "updatedReplicas",
  "currentRevision",
  "updateRevision",
  "collisionCount",
] as const;

/** Fields Go omits when zero (`omitempty`); the others are always written. */
const OMITTED_WHEN_ZERO = new Set<string>([
  "observedGeneration",
  "readyReplicas",
  "currentReplicas",
  "updatedReplicas",
  "currentRevision",
  "updateRevision",
]);

/** Whether `set` already has `status` (`inconsistentStatus` is false). */
export function statefulSetStatusUnchanged(set: StatefulSet, status: StatefulSetStatus): boolean {
  const stored = set.status ?? { replicas: 0 };
  return STATUS_FIELDS.every((field) => (stored[field] ?? 0) === (status[field] ?? 0));
}

/**
 * The merge patch of the status subresource that writes `status`: zero values of fields Go
 * omits are removed (null), so the stored status reads as kube-controller-manager's does.
 */
export function statusMergePatch(status: StatefulSetStatus): { status: Record<string, unknown> } {
  const body: Record<string, unknown> = {};
  for (const field of STATUS_FIELDS) {
    const value = status[field];
    body[field] = OMITTED_WHEN_ZERO.has(field) && (value === 0 || value === "") ? null : value;
  }
  return { status: body };
}
