/**
 * kube-controller-manager's StatefulSet controller (`pkg/controller/statefulset/stateful_set.go`
 * and `stateful_set_control.go`), written with kubekit's Controller toolkit: ordinal pods with
 * stable names, hostnames and claims, created and removed in order, rolled to new template
 * revisions kept as ControllerRevisions, and the status `kubectl rollout status|history|undo`
 * read.
 */
import type {
  ControllerRevision,
  StatefulSet,
  StatefulSetStatus,
} from "kubernetes-types/apps/v1.js";
import type { PersistentVolumeClaim, Pod } from "kubernetes-types/core/v1.js";
import {
  PatchTypes,
  splitKey,
  type AppsV1StatefulSetLister,
  type Clientset,
  type Controller,
  type EventRecorder,
  type LabelSelector,
  type ReconcileResult,
  type Runnable,
  type SharedIndexInformer,
} from "kubekit";
import { nameOf, namespaceOf } from "kubekit/apimachinery";
import { cachedObject } from "../controller-support/cached-object.js";
import type { ClusterContext } from "../cluster-context.js";
import {
  claimCached,
  recheckDeletionTimestamp,
} from "../controller-support/controller-ref-manager.js";
import {
  controlledBy,
  ensureControllerRefIndexes,
} from "../controller-support/controller-ref-index.js";
import { revisionTemplate, sortRevisions } from "../controller-support/controller-revisions.js";
import { orphanAdopterKeys } from "../controller-support/orphan-adopters.js";
import { ownerController } from "../controller-support/owner-controller.js";
import { OwnWrites } from "../controller-support/own-writes.js";
import { StatefulPodControl } from "./stateful-pod-control.js";
import { isMemberOf } from "./stateful-set-identity.js";
import {
  resolveStatefulSetRevisions,
  truncateStatefulSetHistory,
} from "./stateful-set-revisions.js";
import { msUntilNextAvailable } from "../controller-support/pod-state.js";
import { requeueOnConflict } from "../controller-support/requeue-on-conflict.js";
import {
  statefulSetStatus,
  statefulSetStatusUnchanged,
  statusMergePatch,
} from "./stateful-set-status.js";
import { updateStatefulSetPods } from "./stateful-set-update.js";
import { workloadSelector } from "../controller-support/workload-selector.js";
import { APPS_V1 } from "../controller-support/api-versions.js";

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
  return new StatefulSetController(ctx).controller;
}

/** The controller's informers and clients, and the steps of one sync (kube's syncStatefulSet). */
class StatefulSetController {
  readonly controller: Controller;
  readonly #ctx: ClusterContext;
  readonly #clientset: Clientset;
  readonly #sets: SharedIndexInformer<StatefulSet>;
  readonly #setLister: AppsV1StatefulSetLister;
  readonly #pods: SharedIndexInformer<Pod>;
  readonly #revisions: SharedIndexInformer<ControllerRevision>;
  readonly #claims: SharedIndexInformer<PersistentVolumeClaim>;
  readonly #recorder: EventRecorder;

  constructor(ctx: ClusterContext) {
    this.#ctx = ctx;
    this.#clientset = ctx.clientset("kube-controller-manager");
    const sets = ctx.factory.appsV1.statefulSets();
    this.#sets = sets.informer;
    this.#setLister = sets.lister;
    this.#pods = ctx.factory.coreV1.pods().informer;
    this.#revisions = ctx.factory.appsV1.controllerRevisions().informer;
    this.#claims = ctx.factory.coreV1.persistentVolumeClaims().informer;
    ensureControllerRefIndexes(this.#pods);
    ensureControllerRefIndexes(this.#revisions);
    this.#recorder = ctx.recorder("statefulset-controller", "kube-controller-manager");
    this.controller = ownerController(ctx, {
      name: "statefulset",
      workers: WORKERS,
      reconcile: (key, signal) => this.#syncStatefulSet(key, signal),
      owners: this.#sets,
      ownerKind: { group: "apps", kind: KIND },
      owned: [this.#pods],
    });
    // An orphan named like a member wakes the sets of its namespace that select it (kube's
    // getPodStatefulSets), so one of them adopts it.
    this.controller.watch(this.#pods, {
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
  }

  /**
   * One sync of the StatefulSet of `key`: claim its pods and revisions, resolve the current
   * and update revisions, run one pass of the update algorithm, then write the status and
   * truncate the history.
   */
  async #syncStatefulSet(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { namespace, name } = splitKey(key);
    const set = cachedObject(this.#setLister.statefulSets(namespace), name);
    if (set === undefined) return; // deleted: the garbage collector removes its pods
    const selector = workloadSelector(set);
    const logger = this.#ctx.logger;
    if (selector === undefined) {
      logger.warn("statefulset: invalid or empty selector; not synced", { key });
      return;
    }
    const writes = new OwnWrites();
    const clientset = this.#clientset;
    const conflictRequeue = { controller: "statefulset", key, writes, signal, logger };
    return requeueOnConflict(conflictRequeue, async () => {
      const { members, history } = await this.#claim(set, selector, writes, signal);
      const resolved = await resolveStatefulSetRevisions(clientset, set, history, signal);
      if (resolved.written !== undefined) writes.record(this.#revisions, resolved.written);
      const current = nameOf(resolved.current);
      const update = nameOf(resolved.update);
      const updateError = await this.#updatePods(set, members, resolved, writes, signal);
      const observed = await writes.observed(signal);
      const after = this.#membersOf(set);
      const nowMs = this.#ctx.clock.now();
      const status = statefulSetStatus(
        set,
        after,
        { current, update, collisionCount: resolved.collisionCount },
        nowMs,
      );
      if (!statefulSetStatusUnchanged(set, status)) {
        writes.record(this.#sets, await this.#writeStatus(set, status, signal));
      }
      await truncateStatefulSetHistory(clientset, set, after, history, resolved, signal);
      const statusObserved = await writes.observed(signal);
      if (updateError !== undefined) throw updateError;
      if (!observed || !statusObserved) return { requeue: true };
      const wait = msUntilNextAvailable(after, set.spec?.minReadySeconds ?? 0, nowMs);
      return wait !== undefined ? { requeueAfterMs: wait } : undefined;
    });
  }

  /** Claims the set's member pods and its ControllerRevisions (sorted, oldest first). */
  async #claim(
    set: StatefulSet,
    selector: LabelSelector,
    writes: OwnWrites,
    signal: AbortSignal,
  ): Promise<{ members: Pod[]; history: ControllerRevision[] }> {
    const namespace = namespaceOf(set);
    const setClient = this.#clientset.appsV1.statefulSets(namespace);
    const canAdopt = recheckDeletionTimestamp(set, () => setClient.get(nameOf(set), { signal }));
    const ownerType = { apiVersion: APPS_V1, kind: KIND };
    const claim = { owner: set, ownerType, selector, canAdopt, writes, signal };
    const members = await claimCached({
      ...claim,
      informer: this.#pods,
      client: this.#clientset.coreV1.pods(namespace),
      filter: (pod) => isMemberOf(set, pod),
    });
    const history = sortRevisions(
      await claimCached({
        ...claim,
        informer: this.#revisions,
        client: this.#clientset.appsV1.controllerRevisions(namespace),
      }),
    );
    return { members, history };
  }

  /** One pass of kube's update algorithm; resolves with its failure, if any (not thrown yet). */
  async #updatePods(
    set: StatefulSet,
    members: readonly Pod[],
    resolved: { readonly current: ControllerRevision; readonly update: ControllerRevision },
    writes: OwnWrites,
    signal: AbortSignal,
  ): Promise<unknown> {
    try {
      await updateStatefulSetPods({
        set,
        pods: members,
        current: { name: nameOf(resolved.current), template: revisionTemplate(resolved.current) },
        update: { name: nameOf(resolved.update), template: revisionTemplate(resolved.update) },
        control: new StatefulPodControl({
          clientset: this.#clientset,
          recorder: this.#recorder,
          pods: this.#pods,
          claims: this.#claims,
          writes,
          signal,
        }),
        nowMs: this.#ctx.clock.now(),
      });
      return undefined;
    } catch (err) {
      if (signal.aborted) throw err;
      return err;
    }
  }

  /** The member pods the set controls, as the cache has them now. */
  #membersOf(set: StatefulSet): Pod[] {
    return controlledBy(this.#pods, set.metadata?.uid ?? "").filter((pod) => isMemberOf(set, pod));
  }

  async #writeStatus(
    set: StatefulSet,
    status: StatefulSetStatus,
    signal: AbortSignal,
  ): Promise<StatefulSet> {
    return this.#clientset.appsV1
      .statefulSets(namespaceOf(set))
      .patch(nameOf(set), PatchTypes.merge, statusMergePatch(status), {
        subresource: "status",
        signal,
      });
  }
}
