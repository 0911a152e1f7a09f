/**
 * The revision bookkeeping of Deployments and their ReplicaSets
 * (`pkg/controller/deployment/util/deployment_util.go`): the annotations kube's deployment
 * controller writes and `kubectl rollout history|undo` reads.
 */
import type { Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import { annotationOf } from "kubekit/apimachinery";

/** The revision of a ReplicaSet (and, copied, of its Deployment). */
export const REVISION_ANNOTATION = "deployment.kubernetes.io/revision";
/** The revisions a ReplicaSet had before it was rolled back to, comma-separated. */
export const REVISION_HISTORY_ANNOTATION = "deployment.kubernetes.io/revision-history";
/** The Deployment's `spec.replicas` when the ReplicaSet was last scaled. */
export const DESIRED_REPLICAS_ANNOTATION = "deployment.kubernetes.io/desired-replicas";
/** The Deployment's `spec.replicas + maxSurge` when the ReplicaSet was last scaled. */
export const MAX_REPLICAS_ANNOTATION = "deployment.kubernetes.io/max-replicas";
/** The label that tells a Deployment's ReplicaSets (and their pods) apart. */
export const POD_TEMPLATE_HASH_LABEL = "pod-template-hash";

/** kube's cap on the revision-history annotation (`maxRevHistoryLengthInChars`). */
const MAX_REVISION_HISTORY_CHARS = 2000;

/** Deployment annotations never copied to its ReplicaSets (`annotationsToSkip`). */
const ANNOTATIONS_NOT_COPIED: ReadonlySet<string> = new Set([
  "kubectl.kubernetes.io/last-applied-configuration",
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  "deprecated.deployment.rollback.to",
]);

/** A decimal int64 annotation as a number, or undefined when absent or not one. */
function integerAnnotation(value: string | undefined): number | undefined {
  if (value === undefined || !/^[+-]?\d+$/.test(value)) return undefined;
  return Number(value);
}

/** The ReplicaSet's revision (0 when it has none or it does not parse, as kube's `Revision` errs). */
export function revisionOf(rs: ReplicaSet): number {
  return integerAnnotation(annotationOf(rs, REVISION_ANNOTATION)) ?? 0;
}

/** The highest revision of `replicaSets` (0 for none). */
export function maxRevision(replicaSets: readonly ReplicaSet[]): number {
  return replicaSets.reduce((max, rs) => Math.max(max, revisionOf(rs)), 0);
}

/** The ReplicaSet's desired-replicas annotation, when it has a valid one. */
export function desiredReplicasOf(rs: ReplicaSet): number | undefined {
  return integerAnnotation(annotationOf(rs, DESIRED_REPLICAS_ANNOTATION));
}

/** The ReplicaSet's max-replicas annotation, when it has a valid one. */
export function maxReplicasOf(rs: ReplicaSet): number | undefined {
  return integerAnnotation(annotationOf(rs, MAX_REPLICAS_ANNOTATION));
}

/**
 * Sets the desired-replicas and max-replicas annotations on `annotations` (mutated);
 * returns whether they changed (`SetReplicasAnnotations`).
 */
export function setReplicasAnnotations(
  annotations: Record<string, string>,
  desired: number,
  max: number,
): boolean {
  let changed = false;
  for (const [key, value] of [
    [DESIRED_REPLICAS_ANNOTATION, String(desired)],
    [MAX_REPLICAS_ANNOTATION, String(max)],
  ] as const) {
    if (annotations[key] !== value) {
      annotations[key] = value;
      changed = true;
    }
  }
  return changed;
}

/** Whether the replica annotations differ from `desired` and `max` (`ReplicasAnnotationsNeedUpdate`). */
export function replicasAnnotationsNeedUpdate(
  rs: ReplicaSet,
  desired: number,
  max: number,
): boolean {
  const annotations = rs.metadata?.annotations ?? {};
  return (
    annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired) ||
    annotations[MAX_REPLICAS_ANNOTATION] !== String(max)
  );
}

/**
 * Brings the annotations of a Deployment's new ReplicaSet up to date (`SetNewReplicaSetAnnotations`;
 * `annotations` is the ReplicaSet's copy, mutated); returns whether anything changed:
 *
 * - the Deployment's annotations are copied, except the ones kube skips (the revision and
 *   replica annotations, kubectl's last-applied configuration), so `kubernetes.io/change-cause`
 *   travels to the revision;
 * - the revision becomes `newRevision` when that is higher; a ReplicaSet that already had a
 *   revision (a rollback to it) keeps the old one in `revision-history` (oldest dropped past
 *   2000 characters);
 * - a ReplicaSet about to be created (`exists` false) gets the replica annotations.
 */
export function setNewReplicaSetAnnotations(
  deployment: Deployment,
  annotations: Record<string, string>,
  newRevision: number,
  exists: boolean,
  maxSurge: number,
): boolean {
  let changed = false;
  for (const [key, value] of Object.entries(deployment.metadata?.annotations ?? {})) {
    if (ANNOTATIONS_NOT_COPIED.has(key) || annotations[key] === value) continue;
    annotations[key] = value;
    changed = true;
  }
  const oldRevisionText = annotations[REVISION_ANNOTATION];
  const oldRevision = integerAnnotation(oldRevisionText);
  if (oldRevisionText !== undefined && oldRevision === undefined) return changed;
  if ((oldRevision ?? 0) < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (oldRevisionText !== undefined) recordOldRevision(annotations, oldRevisionText);
  }
  const replicas = deployment.spec?.replicas ?? 1;
  if (!exists && setReplicasAnnotations(annotations, replicas, replicas + maxSurge)) changed = true;
  return changed;
}

/** Appends `oldRevision` to the revision-history annotation, within its length cap. */
function recordOldRevision(annotations: Record<string, string>, oldRevision: string): void {
  const history = annotations[REVISION_HISTORY_ANNOTATION] ?? "";
  if (history === "") {
    annotations[REVISION_HISTORY_ANNOTATION] = oldRevision;
    return;
  }
  const revisions = history.split(",");
  let total = history.length + oldRevision.length + 1;
  let start = 0;
  while (total > MAX_REVISION_HISTORY_CHARS && start < revisions.length) {
    total -= (revisions[start] ?? "").length + 1;
    start++;
  }
  if (total <= MAX_REVISION_HISTORY_CHARS) {
    annotations[REVISION_HISTORY_ANNOTATION] = [...revisions.slice(start), oldRevision].join(",");
  }
}
