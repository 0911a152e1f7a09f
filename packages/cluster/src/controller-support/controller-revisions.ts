/**
 * The template history StatefulSets and DaemonSets keep as apps/v1 ControllerRevisions
 * (`pkg/controller/history/controller_history.go`, the revisions of
 * `pkg/controller/statefulset/stateful_set_utils.go` newRevision and
 * `pkg/controller/daemon/update.go` snapshot). A revision stores, as `data`, the strategic
 * merge patch that puts its template back on the workload: `{spec: {template: {…,
 * $patch: replace}}}`. That is what `kubectl rollout history` shows and what `kubectl rollout
 * undo` patches the workload with (`staging/src/k8s.io/kubectl/pkg/polymorphichelpers/
 * history.go`, `rollback.go`).
 */
import type { ControllerRevision } from "kubernetes-types/apps/v1.js";
import type { PodTemplateSpec } from "kubernetes-types/core/v1.js";
import {
  type JsonObject,
  isAlreadyExists,
  setControllerReference,
  type Clientset,
  type ObjectWithMetadata,
} from "kubekit";
import { deepEqual, isJsonObject, nameOf } from "kubekit/apimachinery";
import { APPS_V1 } from "./api-versions.js";

/** The label naming a revision's hash, on revisions and on the pods made from them. */
export const CONTROLLER_REVISION_HASH_LABEL = "controller-revision-hash";

/** The longest name prefix a revision keeps (`history.ControllerRevisionName`: 253 − 30). */
const MAX_REVISION_PREFIX = 223;

/** A workload that keeps ControllerRevisions: its object, apiVersion and kind. */
export interface RevisionOwner {
  readonly object: ObjectWithMetadata;
  readonly apiVersion: string;
  readonly kind: string;
}

/**
 * The patch a revision stores for `template` (`getPatch` of both controllers): the template
 * under `spec.template`, marked `$patch: replace` so that applying it replaces the whole
 * template rather than merging into it.
 */
export function templatePatch(template: PodTemplateSpec | undefined): JsonObject {
  const copy = structuredClone(template ?? {}) as JsonObject;
  return { spec: { template: { ...copy, $patch: "replace" } } };
}

/**
 * The pod template a revision restores: its `data.spec.template` without the `$patch`
 * directive, i.e. the workload's template once the patch is applied (`ApplyRevision`).
 * `undefined` when the data holds no template.
 */
export function revisionTemplate(revision: ControllerRevision): PodTemplateSpec | undefined {
  const data: unknown = revision.data;
  if (!isJsonObject(data)) return undefined;
  const spec = data["spec"];
  const template = isJsonObject(spec) ? spec["template"] : undefined;
  if (!isJsonObject(template)) return undefined;
  const { $patch: _directive, ...rest } = template;
  return structuredClone(rest) as PodTemplateSpec;
}

/** `<prefix>-<hash>`, the prefix cut to 223 characters (`history.ControllerRevisionName`). */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > MAX_REVISION_PREFIX ? prefix.slice(0, MAX_REVISION_PREFIX) : prefix}-${hash}`;
}

/**
 * Revisions oldest first (`history.SortControllerRevisions`): by `revision`, then creation
 * time, then name. Returns a new array.
 */
export function sortRevisions(revisions: readonly ControllerRevision[]): ControllerRevision[] {
  return [...revisions].sort(
    (a, b) =>
      a.revision - b.revision ||
      (a.metadata?.creationTimestamp ?? "").localeCompare(b.metadata?.creationTimestamp ?? "") ||
      nameOf(a).localeCompare(nameOf(b)),
  );
}

/** The revision number after the newest of `sorted` (1 when there is none): `nextRevision`. */
export function nextRevisionNumber(sorted: readonly ControllerRevision[]): number {
  return (sorted.at(-1)?.revision ?? 0) + 1;
}

/**
 * Whether two revisions hold the same state (`history.EqualRevision`: kube compares the
 * stored bytes; this compares the JSON values, so key order does not matter).
 */
export function equalRevisionData(a: ControllerRevision, b: ControllerRevision): boolean {
  return deepEqual(a.data ?? null, b.data ?? null);
}

/** What {@link newControllerRevision} builds a revision from. */
export interface RevisionDraft {
  /** The owner; the revision is created in its namespace, controlled by it. */
  readonly owner: RevisionOwner;
  /** The stored patch ({@link templatePatch}). */
  readonly data: JsonObject;
  /** The revision number. */
  readonly revision: number;
  /** The revision's labels before the hash label is added (the template's labels). */
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** Copied to the revision (kube copies the owner's, so `kubernetes.io/change-cause` shows in `rollout history`). */
  readonly annotations: Readonly<Record<string, string>> | undefined;
}

/**
 * A revision named `<owner>-<hash>` with the hash label, the draft's labels, annotations,
 * data and number, and a controller reference to the owner (`history.NewControllerRevision`).
 */
export function newControllerRevision(draft: RevisionDraft, hash: string): ControllerRevision {
  const meta = draft.owner.object.metadata;
  const revision: ControllerRevision = {
    apiVersion: APPS_V1,
    kind: "ControllerRevision",
    metadata: {
      name: controllerRevisionName(meta?.name ?? "", hash),
      namespace: meta?.namespace ?? "default",
      labels: { ...(draft.labels ?? {}), [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ...(draft.annotations !== undefined ? { annotations: { ...draft.annotations } } : {}),
    },
    data: structuredClone(draft.data),
    revision: draft.revision,
  };
  return setControllerReference(draft.owner.object, revision, {
    apiVersion: draft.owner.apiVersion,
    kind: draft.owner.kind,
  });
}

/** What {@link createControllerRevision} stored, and the collision count it ended with. */
export interface CreatedRevision {
  readonly revision: ControllerRevision;
  readonly collisionCount: number;
}

/**
 * Creates the draft's revision (`history.realHistory.CreateControllerRevision`): the name's
 * hash is `hashOf(collisionCount)`; when the name is taken by a revision with the same data,
 * that one is the answer; when it is taken by different data (a hash collision), the
 * collision count goes up by one and the next name is tried. The caller stores the returned
 * collision count in the owner's `status.collisionCount`.
 */
export async function createControllerRevision(
  clientset: Clientset,
  draft: RevisionDraft,
  hashOf: (collisionCount: number) => string,
  collisionCount: number,
  signal: AbortSignal,
): Promise<CreatedRevision> {
  const namespace = draft.owner.object.metadata?.namespace ?? "default";
  const client = clientset.appsV1.controllerRevisions(namespace);
  for (let count = collisionCount; ; count++) {
    const wanted = newControllerRevision(draft, hashOf(count));
    try {
      return { revision: await client.create(wanted, { signal }), collisionCount: count };
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    const existing = await client.get(nameOf(wanted), { signal });
    if (equalRevisionData(existing, wanted)) return { revision: existing, collisionCount: count };
  }
}
