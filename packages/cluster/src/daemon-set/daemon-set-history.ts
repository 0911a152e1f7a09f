/**
 * A DaemonSet's template history as ControllerRevisions (`pkg/controller/daemon/update.go`
 * constructHistory, snapshot, dedupCurHistories and cleanupHistory).
 */
import type { ControllerRevision, DaemonSet } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { deepEqual, nameOf } from "kubekit/apimachinery";
import { isNotFound, PatchTypes, type Clientset } from "kubekit";
import {
  CONTROLLER_REVISION_HASH_LABEL,
  createControllerRevision,
  sortRevisions,
  templatePatch,
} from "../controller-support/controller-revisions.js";
import { templateHash } from "../controller-support/template-hash.js";
import { APPS_V1 } from "../controller-support/api-versions.js";

/** kube's default `spec.revisionHistoryLimit`. */
const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** The DaemonSet's revisions once its history is built. */
export interface DaemonSetHistory {
  /** The revision of the current template. */
  readonly current: ControllerRevision;
  /** The other revisions. */
  readonly old: ControllerRevision[];
  /** The collision count the current revision's name was made with. */
  readonly collisionCount: number;
}

/** Where {@link constructDaemonSetHistory} writes, for one sync. */
export interface DaemonSetHistoryWriter {
  readonly clientset: Clientset;
  /** Records revision and pod writes for the sync's read-your-writes wait. */
  readonly recordRevision: (revision: ControllerRevision) => void;
  readonly recordPod: (pod: Pod) => void;
  readonly signal: AbortSignal;
}

/**
 * Finds or makes the revision of `ds`'s current template among `revisions` (the set's own,
 * oldest first): revisions lacking the hash label get it (their name); the current revision is
 * the one whose data is the template's patch, numbered after every other revision (renumbered
 * on a rollback); without one, a new revision `<ds>-<hash>` (hash of the template and the
 * collision count, labels = template labels + `controller-revision-hash`, the DaemonSet's
 * annotations) is created; duplicates of the current revision are deleted after their pods
 * are relabelled to it.
 */
export async function constructDaemonSetHistory(
  ds: DaemonSet,
  revisions: readonly ControllerRevision[],
  pods: readonly Pod[],
  writer: DaemonSetHistoryWriter,
): Promise<DaemonSetHistory> {
  const { clientset, signal } = writer;
  const namespace = ds.metadata?.namespace ?? "default";
  const client = clientset.appsV1.controllerRevisions(namespace);
  const data = templatePatch(ds.spec?.template);
  const current: ControllerRevision[] = [];
  const old: ControllerRevision[] = [];
  for (let revision of revisions) {
    if (revision.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === undefined) {
      revision = await client.patch(
        nameOf(revision),
        PatchTypes.merge,
        { metadata: { labels: { [CONTROLLER_REVISION_HASH_LABEL]: revision.metadata?.name } } },
        { signal },
      );
      writer.recordRevision(revision);
    }
    (deepEqual(revision.data ?? null, data) ? current : old).push(revision);
  }
  const nextNumber = Math.max(0, ...old.map((r) => r.revision)) + 1;
  let collisionCount = ds.status?.collisionCount ?? 0;
  let cur: ControllerRevision;
  if (current.length === 0) {
    const template = ds.spec?.template;
    const created = await createControllerRevision(
      clientset,
      {
        owner: { object: ds, apiVersion: APPS_V1, kind: "DaemonSet" },
        data,
        revision: nextNumber,
        labels: template?.metadata?.labels,
        annotations: ds.metadata?.annotations,
      },
      (count) => templateHash(template, count),
      collisionCount,
      signal,
    );
    cur = created.revision;
    collisionCount = created.collisionCount;
    writer.recordRevision(cur);
  } else {
    cur = await keepOneCurrent(sortRevisions(current), pods, writer);
    if (cur.revision < nextNumber) {
      cur = await client.patch(nameOf(cur), PatchTypes.merge, { revision: nextNumber }, { signal });
      writer.recordRevision(cur);
    }
  }
  return { current: cur, old, collisionCount };
}

/**
 * The newest of several revisions holding the current template; the others are deleted, and
 * the pods labelled with their hashes relabelled to the kept one's (`dedupCurHistories`).
 */
async function keepOneCurrent(
  sorted: readonly ControllerRevision[],
  pods: readonly Pod[],
  writer: DaemonSetHistoryWriter,
): Promise<ControllerRevision> {
  const keep = sorted.at(-1) as ControllerRevision;
  const keepHash = keep.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? "";
  const namespace = keep.metadata?.namespace ?? "default";
  for (const duplicate of sorted.slice(0, -1)) {
    const hash = duplicate.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
    for (const pod of pods) {
      if (pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== hash) continue;
      try {
        writer.recordPod(
          await writer.clientset.coreV1
            .pods(namespace)
            .patch(
              nameOf(pod),
              PatchTypes.merge,
              { metadata: { labels: { [CONTROLLER_REVISION_HASH_LABEL]: keepHash } } },
              { signal: writer.signal },
            ),
        );
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    await deleteRevision(writer.clientset, duplicate, writer.signal);
  }
  return keep;
}

async function deleteRevision(
  clientset: Clientset,
  revision: ControllerRevision,
  signal: AbortSignal,
): Promise<void> {
  try {
    await clientset.appsV1
      .controllerRevisions(revision.metadata?.namespace ?? "default")
      .delete(nameOf(revision), { signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/**
 * Deletes the oldest of the `old` revisions beyond `spec.revisionHistoryLimit` (default 10)
 * whose hash no pod of the DaemonSet (terminated ones included) carries (`cleanupHistory`).
 */
export async function cleanupDaemonSetHistory(
  clientset: Clientset,
  ds: DaemonSet,
  old: readonly ControllerRevision[],
  pods: readonly Pod[],
  signal: AbortSignal,
): Promise<void> {
  let excess = old.length - (ds.spec?.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT);
  if (excess <= 0) return;
  const liveHashes = new Set(
    pods.map((pod) => pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? ""),
  );
  for (const revision of sortRevisions(old)) {
    if (excess <= 0) break;
    if (liveHashes.has(revision.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? "")) {
      continue;
    }
    await deleteRevision(clientset, revision, signal);
    excess--;
  }
}
