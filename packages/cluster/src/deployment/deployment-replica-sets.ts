/**
 * How a Deployment sees its ReplicaSets (`pkg/controller/deployment/util/deployment_util.go`,
 * `pkg/controller/controller_utils.go` ReplicaSetsBy*): which one is new, which are old, their
 * orderings and replica sums.
 */
import type { Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import { nameOf } from "kubekit/apimachinery";
import type { PodTemplateSpec } from "kubernetes-types/core/v1.js";
import { POD_TEMPLATE_HASH_LABEL, desiredReplicasOf, revisionOf } from "./deployment-revision.js";

/** `spec.replicas` of a ReplicaSet (the API server defaults it to 1). */
export function specReplicas(rs: ReplicaSet): number {
  return rs.spec?.replicas ?? 1;
}

/** Whether two JSON values are equal, an absent value counting as equal to `null`, `{}` or `[]` (Semantic.DeepEqual's nil = empty). */
function semanticEqual(a: unknown, b: unknown): boolean {
  const empty = (v: unknown): boolean =>
    v === undefined ||
    v === null ||
    (Array.isArray(v) && v.length === 0) ||
    (typeof v === "object" && !Array.isArray(v) && Object.keys(v as object).length === 0);
  if (empty(a) && empty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => semanticEqual(v, b[i]));
  }
  if (
    a !== null &&
    b !== null &&
    typeof a === "object" &&
    typeof b === "object" &&
    !Array.isArray(a) &&
    !Array.isArray(b)
  ) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
    for (const key of keys) if (!semanticEqual(ra[key], rb[key])) return false;
    return true;
  }
  return a === b;
}

/** The template without the pod-template-hash label. */
function withoutHash(template: PodTemplateSpec | undefined): PodTemplateSpec {
  const labels = { ...template?.metadata?.labels };
  delete labels[POD_TEMPLATE_HASH_LABEL];
  return { ...template, metadata: { ...template?.metadata, labels } };
}

/**
 * Whether two pod templates are equal but for the pod-template-hash label (`EqualIgnoreHash`):
 * how a Deployment recognizes the ReplicaSet of its current template, including after
 * `kubectl rollout undo` copied an old ReplicaSet's template back.
 */
export function equalIgnoreHash(
  a: PodTemplateSpec | undefined,
  b: PodTemplateSpec | undefined,
): boolean {
  return semanticEqual(withoutHash(a), withoutHash(b));
}

/** Creation time in ms (0 when unknown). */
function createdMs(rs: ReplicaSet): number {
  const ms = Date.parse(rs.metadata?.creationTimestamp ?? "");
  return Number.isFinite(ms) ? ms : 0;
}

/** Older first, then by name (`ReplicaSetsByCreationTimestamp`). */
export function byCreationTimestamp(a: ReplicaSet, b: ReplicaSet): number {
  const diff = createdMs(a) - createdMs(b);
  if (diff !== 0) return diff;
  const na = nameOf(a);
  const nb = nameOf(b);
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** Lower revision first; equal revisions by creation (`ReplicaSetsByRevision`). */
export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  const diff = revisionOf(a) - revisionOf(b);
  return diff !== 0 ? diff : byCreationTimestamp(a, b);
}

/** Larger first; equal sizes older first (`ReplicaSetsBySizeOlder`). */
export function bySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  const diff = specReplicas(b) - specReplicas(a);
  return diff !== 0 ? diff : byCreationTimestamp(a, b);
}

/** Larger first; equal sizes newer first (`ReplicaSetsBySizeNewer`). */
export function bySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  const diff = specReplicas(b) - specReplicas(a);
  return diff !== 0 ? diff : byCreationTimestamp(b, a);
}

/**
 * The Deployment's new ReplicaSet: the oldest whose template equals the Deployment's but for
 * the hash label (`FindNewReplicaSet`), or undefined.
 */
export function findNewReplicaSet(
  deployment: Deployment,
  replicaSets: readonly ReplicaSet[],
): ReplicaSet | undefined {
  return [...replicaSets]
    .sort(byCreationTimestamp)
    .find((rs) => equalIgnoreHash(rs.spec?.template, deployment.spec?.template));
}

/** The ReplicaSets that are not `newRS`. */
export function oldReplicaSets(
  replicaSets: readonly ReplicaSet[],
  newRS: ReplicaSet | undefined,
): ReplicaSet[] {
  return replicaSets.filter((rs) => rs.metadata?.uid !== newRS?.metadata?.uid);
}

/** The ReplicaSets with `spec.replicas > 0` (`FilterActiveReplicaSets`). */
export function activeReplicaSets(replicaSets: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
  return replicaSets.filter((rs): rs is ReplicaSet => rs !== undefined && specReplicas(rs) > 0);
}

/** Sum of `spec.replicas` (`GetReplicaCountForReplicaSets`). */
export function specReplicaSum(replicaSets: readonly (ReplicaSet | undefined)[]): number {
  return replicaSets.reduce((sum, rs) => sum + (rs ? specReplicas(rs) : 0), 0);
}

/** Sum of `status.replicas` (`GetActualReplicaCountForReplicaSets`). */
export function actualReplicaSum(replicaSets: readonly (ReplicaSet | undefined)[]): number {
  return replicaSets.reduce((sum, rs) => sum + (rs?.status?.replicas ?? 0), 0);
}

/** Sum of `status.readyReplicas` (`GetReadyReplicaCountForReplicaSets`). */
export function readyReplicaSum(replicaSets: readonly (ReplicaSet | undefined)[]): number {
  return replicaSets.reduce((sum, rs) => sum + (rs?.status?.readyReplicas ?? 0), 0);
}

/** Sum of `status.availableReplicas` (`GetAvailableReplicaCountForReplicaSets`). */
export function availableReplicaSum(replicaSets: readonly (ReplicaSet | undefined)[]): number {
  return replicaSets.reduce((sum, rs) => sum + (rs?.status?.availableReplicas ?? 0), 0);
}

/**
 * The only active ReplicaSet, or, when none is active, the new one or else the newest old one
 * (`FindActiveOrLatest`); undefined when several are active.
 */
export function findActiveOrLatest(
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
): ReplicaSet | undefined {
  if (newRS === undefined && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreationTimestamp(b, a));
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

/**
 * Whether the new ReplicaSet runs the whole Deployment: its size, its desired-replicas
 * annotation and its available pods all equal `spec.replicas` (`IsSaturated`).
 */
export function isSaturated(deployment: Deployment, rs: ReplicaSet | undefined): boolean {
  if (rs === undefined) return false;
  const replicas = deployment.spec?.replicas ?? 1;
  return (
    specReplicas(rs) === replicas &&
    desiredReplicasOf(rs) === replicas &&
    (rs.status?.availableReplicas ?? 0) === replicas
  );
}
