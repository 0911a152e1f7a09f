/**
 * A StatefulSet's current and update revisions and its revision history limit
 * (`pkg/controller/statefulset/stateful_set_control.go` getStatefulSetRevisions and
 * truncateHistory).
 */
import type { ControllerRevision, StatefulSet } from "kubernetes-types/apps/v1.js";
import { nameOf } from "kubekit/apimachinery";
import type { Pod } from "kubernetes-types/core/v1.js";
import { isNotFound, PatchTypes, type Clientset } from "kubekit";
import {
  createControllerRevision,
  equalRevisionData,
  newControllerRevision,
  nextRevisionNumber,
  templatePatch,
  type RevisionDraft,
} from "../controller-support/controller-revisions.js";
import { podRevision } from "./stateful-set-identity.js";
import { templateHash } from "../controller-support/template-hash.js";
import { APPS_V1 } from "../controller-support/api-versions.js";

/** kube's default `spec.revisionHistoryLimit`. */
const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** The revisions a StatefulSet's pods are reconciled against. */
export interface StatefulSetRevisions {
  /** The revision of `status.currentRevision` (the update revision when there is none yet). */
  readonly current: ControllerRevision;
  /** The revision of the set's template as it is now. */
  readonly update: ControllerRevision;
  /** The collision count to store in `status.collisionCount`. */
  readonly collisionCount: number;
  /** The revision as written (created or renumbered), if this call wrote one. */
  readonly written: ControllerRevision | undefined;
}

/**
 * Finds or makes the set's update revision: the newest revision when it holds the set's
 * template; an older one holding it renumbered as the newest (a rollback, e.g. `kubectl
 * rollout undo`); otherwise a new revision `<set>-<hash>` numbered after the newest, its hash
 * that of its data and the collision count. `sorted` are the set's revisions, oldest first.
 */
export async function resolveStatefulSetRevisions(
  clientset: Clientset,
  set: StatefulSet,
  sorted: readonly ControllerRevision[],
  signal: AbortSignal,
): Promise<StatefulSetRevisions> {
  const draft: RevisionDraft = {
    owner: { object: set, apiVersion: APPS_V1, kind: "StatefulSet" },
    data: templatePatch(set.spec?.template),
    revision: nextRevisionNumber(sorted),
    labels: set.spec?.template?.metadata?.labels,
    annotations: set.metadata?.annotations,
  };
  const hashOf = (count: number): string => templateHash(draft.data, count);
  let collisionCount = set.status?.collisionCount ?? 0;
  const candidate = newControllerRevision(draft, hashOf(collisionCount));
  const equal = sorted.filter((revision) => equalRevisionData(revision, candidate));
  const newest = sorted.at(-1);
  const newestEqual = equal.at(-1);
  let update: ControllerRevision;
  let written: ControllerRevision | undefined;
  if (newest !== undefined && newestEqual !== undefined && equalRevisionData(newest, newestEqual)) {
    update = newest;
  } else if (newestEqual !== undefined) {
    update = await clientset.appsV1
      .controllerRevisions(set.metadata?.namespace ?? "default")
      .patch(nameOf(newestEqual), PatchTypes.merge, { revision: draft.revision }, { signal });
    written = update;
  } else {
    const created = await createControllerRevision(
      clientset,
      draft,
      hashOf,
      collisionCount,
      signal,
    );
    update = created.revision;
    collisionCount = created.collisionCount;
    written = update;
  }
  const current =
    sorted.find((revision) => revision.metadata?.name === set.status?.currentRevision) ?? update;
  return { current, update, collisionCount, written };
}

/**
 * Deletes the oldest revisions beyond `spec.revisionHistoryLimit` (default 10) that are not
 * live: the current and update revisions and every revision a pod of the set is at stay.
 */
export async function truncateStatefulSetHistory(
  clientset: Clientset,
  set: StatefulSet,
  pods: readonly Pod[],
  sorted: readonly ControllerRevision[],
  revisions: StatefulSetRevisions,
  signal: AbortSignal,
): Promise<void> {
  const live = new Set([
    revisions.current.metadata?.name,
    revisions.update.metadata?.name,
    ...pods.map(podRevision),
  ]);
  const history = sorted.filter((revision) => !live.has(revision.metadata?.name));
  const limit = set.spec?.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT;
  const client = clientset.appsV1.controllerRevisions(set.metadata?.namespace ?? "default");
  for (const revision of history.slice(0, Math.max(0, history.length - limit))) {
    try {
      await client.delete(nameOf(revision), { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
