/**
 * kube-controller-manager's StatefulSet controller (`pkg/controller/statefulset/stateful_set.go`
 * and `stateful_set_control.go`), written with kubekit's Controller toolkit: ordinal pods with
 * stable names, hostnames and claims, created and removed in order, rolled to new template
 * revisions kept as ControllerRevisions, and the status `kubectl rollout status|history|undo`
 * read.
 */
import type { StatefulSet } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { PatchTypes, splitKey, type ReconcileResult, type Runnable } from "kubekit";
import { cachedObject } from "./cached-object.js";
import type { ClusterContext } from "./cluster-context.js";
import { claimCached, recheckDeletionTimestamp } from "./controller-ref-manager.js";
import { controlledBy, ensureControllerRefIndexes } from "./controller-ref-index.js";
import { revisionTemplate, sortRevisions } from "./controller-revisions.js";
import { orphanAdopterKeys } from "./orphan-adopters.js";
import { ownerController } from "./owner-controller.js";
import { OwnWrites } from "./own-writes.js";
import { StatefulPodControl } from "./stateful-pod-control.js";
import { isMemberOf } from "./stateful-set-identity.js";
import {
  resolveStatefulSetRevisions,
  truncateStatefulSetHistory,
} from "./stateful-set-revisions.js";
import { msUntilNextAvailable } from "./pod-state.js";
import { requeueOnConflict } from "./requeue-on-conflict.js";
import {
  statefulSetStatus,
  statefulSetStatusUnchanged,
  statusMergePatch,
} from "./stateful-set-status.js";
import { updateStatefulSetPods } from "./stateful-set-update.js";
import { workloadSelector } from "./workload-selector.js";

const APPS_V1 = "apps/v1";
const KIND = "StatefulSet";

/** kube-controller-manager's `--concurrent-statefulset-syncs` default. */
const WORKERS = 5;

/**
 * The simulated StatefulSet controller (source `statefulset-controller`). Per StatefulSet,
 * level-triggered from the listers:
 *
 * - claims its pods (`<name>-<ordinal>` pods its selector matches: adopts such orphans after
 *   re-reading the set from the API server, releases owned pods it no longer selects) and its
 *   ControllerRevisions;
 * - keeps the template history: the update revision `<name>-<hash>` (data = the template
 *   under `spec.template` with `$patch: replace`, labels = the template's plus
 *   `controller-revision-hash`, the set's annotations), an older equal revision renumbered
 *   as newest on a rollback, at most `revisionHistoryLimit` revisions besides the live ones;
 * - runs one pass of kube's update algorithm ({@link updateStatefulSetPods}): ordinal pods
 *   with hostname/subdomain, the pod-name, pod-index and revision labels and one claim
 *   `<claim>-<name>-<ordinal>` per volumeClaimTemplate created before the pod; OrderedReady
 *   or Parallel management; RollingUpdate from the highest ordinal down honouring the
 *   partition, or OnDelete; Events `SuccessfulCreate` ("create Pod web-0 in StatefulSet web
 *   successful"), `SuccessfulDelete`, `FailedCreate`, `FailedDelete`;
 * - waits until its caches have observed its writes, then writes `status` from them
 *   (replicas, readyReplicas, availableReplicas, currentReplicas, updatedReplicas,
 *   currentRevision, updateRevision, observedGeneration, collisionCount) when it changed;
 * - with `minReadySeconds`, syncs again on the cluster's clock when the next pod becomes
 *   available.
 *
 * Caveats: claims are created but nothing binds them (no volume provisioner: they stay
 * `Pending`, and the simulated scheduler does not wait for them); the claim retention policy
 * (`persistentVolumeClaimRetentionPolicy`) is not applied (claims are always retained, as
 * with the default `Retain`); the alpha `maxUnavailable` of RollingUpdate is ignored
 * (one pod at a time); pods the set owns but that are not named `<name>-<ordinal>` are
 * ignored rather than released.
 */
export function statefulSetController(ctx: ClusterContext): Runnable {
  const clientset = ctx.clientset("kube-controller-manager");
  const sets = ctx.factory.appsV1.statefulSets();
  const pods = ctx.factory.coreV1.pods();
  const revisions = ctx.factory.appsV1.controllerRevisions();
  const claims = ctx.factory.coreV1.persistentVolumeClaims();
  ensureControllerRefIndexes(pods.informer);
  ensureControllerRefIndexes(revisions.informer);
  const recorder = ctx.recorder("statefulset-controller", "kube-controller-manager");
  const logger = ctx.logger;

  /** The member pods the set controls, as the cache has them now. */
  const membersOf = (set: StatefulSet): Pod[] =>
    controlledBy(pods.informer, set.metadata?.uid ?? "").filter((pod) => isMemberOf(set, pod));

  const reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const { namespace, name } = splitKey(key);
    const set = cachedObject(sets.lister.statefulSets(namespace), name);
    if (set === undefined) return; // deleted: the garbage collector removes its pods
    const selector = workloadSelector(set);
    if (selector === undefined) {
      logger.warn("statefulset: invalid or empty selector; not synced", { key });
      return;
    }
    const writes = new OwnWrites();
    const setClient = clientset.appsV1.statefulSets(namespace);
    const canAdopt = recheckDeletionTimestamp(set, () => setClient.get(name, { signal }));
    const ownerType = { apiVersion: APPS_V1, kind: KIND };
    const conflictRequeue = { controller: "statefulset", key, writes, signal, logger };
    return requeueOnConflict(conflictRequeue, async () => {
      const claim = { owner: set, ownerType, selector, canAdopt, writes, signal };
      const members = await claimCached({
        ...claim,
        informer: pods.informer,
        client: clientset.coreV1.pods(namespace),
        filter: (pod) => isMemberOf(set, pod),
      });
      const history = sortRevisions(
        await claimCached({
          ...claim,
          informer: revisions.informer,
          client: clientset.appsV1.controllerRevisions(namespace),
        }),
      );
      const resolved = await resolveStatefulSetRevisions(clientset, set, history, signal);
      if (resolved.written !== undefined) writes.record(revisions.informer, resolved.written);
      const current = resolved.current.metadata?.name ?? "";
      const update = resolved.update.metadata?.name ?? "";
      let updateError: unknown;
      try {
        await updateStatefulSetPods({
          set,
          pods: members,
          current: { name: current, template: revisionTemplate(resolved.current) },
          update: { name: update, template: revisionTemplate(resolved.update) },
          control: new StatefulPodControl({
            clientset,
            recorder,
            pods: pods.informer,
            claims: claims.informer,
            writes,
            signal,
          }),
          nowMs: ctx.clock.now(),
        });
      } catch (err) {
        if (signal.aborted) throw err;
        updateError = err;
      }
      const observed = await writes.observed(signal);
      const after = membersOf(set);
      const nowMs = ctx.clock.now();
      const status = statefulSetStatus(
        set,
        after,
        { current, update, collisionCount: resolved.collisionCount },
        nowMs,
      );
      if (!statefulSetStatusUnchanged(set, status)) {
        const written = await setClient.patch(name, PatchTypes.merge, statusMergePatch(status), {
          subresource: "status",
          signal,
        });
        writes.record(sets.informer, written);
      }
      await truncateStatefulSetHistory(clientset, set, after, history, resolved, signal);
      const statusObserved = await writes.observed(signal);
      if (updateError !== undefined) throw updateError;
      if (!observed || !statusObserved) return { requeue: true };
      const wait = msUntilNextAvailable(after, set.spec?.minReadySeconds ?? 0, nowMs);
      return wait !== undefined ? { requeueAfterMs: wait } : undefined;
    });
  };

  const controller = ownerController(ctx, {
    name: "statefulset",
    workers: WORKERS,
    reconcile,
    owners: sets.informer,
    ownerKind: { group: "apps", kind: KIND },
    owned: [pods.informer],
  });
  // An orphan named like a member wakes the sets of its namespace that select it (kube's
  // getPodStatefulSets), so one of them adopts it.
  controller.watch(pods.informer, {
    map: (pod: Pod) =>
      orphanAdopterKeys(
        pod,
        (namespace: string) =>
          sets.lister
            .statefulSets(namespace)
            .list()
            .filter((set) => isMemberOf(set, pod)),
        workloadSelector,
      ),
  });
  return controller;
}
