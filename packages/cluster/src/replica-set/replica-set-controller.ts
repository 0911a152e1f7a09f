/**
 * kube-controller-manager's ReplicaSet controller (`pkg/controller/replicaset/replica_set.go`),
 * written with kubekit's Controller toolkit: it keeps `spec.replicas` active pods for every
 * ReplicaSet, owns them through a controller owner reference, and reports their counts in
 * the ReplicaSet's status.
 */
import type { ReplicaSet, ReplicaSetStatus } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { Controller } from "kubekit";
import {
  LabelSelector,
  controllerOf,
  splitKey,
  type AppsV1ReplicaSetLister,
  type Clientset,
  type CoreV1PodLister,
  type EventRecorder,
  type ReconcileResult,
  type ResourceInformer,
  type Runnable,
} from "kubekit";
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
import { errorMessage, namespaceOf } from "kubekit/apimachinery";
import { orphanAdopterKeys } from "../controller-support/orphan-adopters.js";
import { ownerController } from "../controller-support/owner-controller.js";
import { OwnWrites } from "../controller-support/own-writes.js";
import { createPod, deletePod, type PodControl } from "../controller-support/pod-control.js";
import { podsToDelete } from "./pod-deletion-order.js";
import { isPodActive, msUntilNextAvailable } from "../controller-support/pod-state.js";
import { podFromTemplate } from "../controller-support/pod-template.js";
import { requeueOnConflict } from "../controller-support/requeue-on-conflict.js";
import {
  replicaSetStatus,
  replicaSetStatusUnchanged,
  withObservedGeneration,
} from "./replica-set-status.js";
import {
  SLOW_START_INITIAL_BATCH_SIZE,
  slowStartBatch,
} from "../controller-support/slow-start-batch.js";
import { workloadSelector } from "../controller-support/workload-selector.js";
import { APPS_V1 } from "../controller-support/api-versions.js";

const KIND = "ReplicaSet";

/** kube-controller-manager's `--concurrent-replicaset-syncs` default. */
const WORKERS = 5;

/** At most this many pods are created or deleted in one sync (kube's `BurstReplicas`). */
const BURST_REPLICAS = 500;

/**
 * The simulated ReplicaSet controller. Per ReplicaSet, level-triggered from the listers:
 *
 * - claims pods (`ControllerRefManager`): keeps the active pods it controls that its
 *   selector matches, releases those it no longer matches, adopts matching orphans (after
 *   re-reading the ReplicaSet from the API server);
 * - creates missing pods from its template in slow-start batches (1, 2, 4, …, at most 500 a
 *   sync; a failing batch ends the sync), deletes surplus pods least valuable first (kube's
 *   ranking: unassigned, Pending, not Ready, low deletion cost, crowded node, Ready for less
 *   time, more restarts, newer), recording `SuccessfulCreate`/`FailedCreate`/
 *   `SuccessfulDelete`/`FailedDelete` Events as `replicaset-controller`;
 * - writes `status` (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas,
 *   observedGeneration, the `ReplicaFailure` condition) when it changed;
 * - waits until its caches have observed its own writes before the next sync of the key
 *   (the role of kube's expectations), so it never creates a pod twice;
 * - with `minReadySeconds`, syncs again on the cluster's clock when the next Ready pod
 *   becomes available.
 *
 * Pods of a ReplicaSet are found through the pod cache's controller-uid and orphan indices,
 * so a sync costs O(its pods + the orphans of its namespace). A failed create or delete is
 * retried with the controller's back-off; a conflict requeues quietly.
 */
export function replicaSetController(ctx: ClusterContext): Runnable {
  return new ReplicaSetController(ctx).controller;
}

/** The controller's informers and clients, and the steps of one sync (kube's syncReplicaSet). */
class ReplicaSetController {
  readonly controller: Controller;
  readonly #ctx: ClusterContext;
  readonly #clientset: Clientset;
  readonly #replicaSets: ResourceInformer<ReplicaSet, AppsV1ReplicaSetLister>;
  readonly #pods: ResourceInformer<Pod, CoreV1PodLister>;
  readonly #recorder: EventRecorder;

  constructor(ctx: ClusterContext) {
    this.#ctx = ctx;
    this.#clientset = ctx.clientset("kube-controller-manager");
    this.#replicaSets = ctx.factory.appsV1.replicaSets();
    this.#pods = ctx.factory.coreV1.pods();
    ensureControllerRefIndexes(this.#pods.informer);
    ensureControllerRefIndexes(this.#replicaSets.informer);
    this.#recorder = ctx.recorder("replicaset-controller", "kube-controller-manager");
    const replicaSets = this.#replicaSets;
    this.controller = ownerController(ctx, {
      name: "replicaset",
      workers: WORKERS,
      reconcile: (key, signal) => this.#syncReplicaSet(key, signal),
      owners: replicaSets.informer,
      ownerKind: { group: "apps", kind: KIND },
      owned: [this.#pods.informer],
    });
    // An orphan wakes every ReplicaSet of its namespace whose selector matches it (kube's
    // getPodReplicaSets), so one of them adopts it.
    this.controller.watch(this.#pods.informer, {
      map: (pod: Pod) =>
        isPodActive(pod)
          ? orphanAdopterKeys(
              pod,
              (namespace: string) => replicaSets.lister.replicaSets(namespace).list(),
              workloadSelector,
            )
          : [],
    });
  }

  /** One sync of the ReplicaSet of `key`: claim its pods, manage replicas, write the status. */
  async #syncReplicaSet(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { namespace, name } = splitKey(key);
    const rs = cachedObject(this.#replicaSets.lister.replicaSets(namespace), name);
    if (rs === undefined) return; // deleted: the garbage collector removes its pods
    let selector: LabelSelector;
    try {
      selector = LabelSelector.fromLabelSelector(rs.spec?.selector);
    } catch (err) {
      this.#ctx.logger.warn("replicaset: invalid selector; not synced", {
        key,
        error: errorMessage(err),
      });
      return;
    }
    const writes = new OwnWrites(this.#ctx.clock);
    const rsClient = this.#clientset.appsV1.replicaSets(namespace);
    const logger = this.#ctx.logger;
    const conflictRequeue = { controller: "replicaset", key, writes, signal, logger };
    return requeueOnConflict(conflictRequeue, async () => {
      const owned = await claimCached({
        owner: rs,
        ownerType: { apiVersion: APPS_V1, kind: KIND },
        selector,
        informer: this.#pods.informer,
        filter: isPodActive,
        client: this.#clientset.coreV1.pods(namespace),
        canAdopt: recheckDeletionTimestamp(rs, () => rsClient.get(name, { signal })),
        writes,
        signal,
      });
      const manageError =
        rs.metadata?.deletionTimestamp === undefined
          ? await this.#manageReplicas(rs, owned, writes, signal)
          : undefined;
      const nowMs = this.#ctx.clock.now();
      const status = replicaSetStatus({ rs, pods: owned, manageError, nowMs });
      if (!replicaSetStatusUnchanged(rs, status)) {
        writes.record(this.#replicaSets.informer, await this.#writeStatus(rs, status, signal));
      }
      const observed = await writes.observed(signal);
      if (manageError !== undefined) throw manageError;
      if (!observed) return { requeue: true };
      const wait = msUntilNextAvailable(owned, rs.spec?.minReadySeconds ?? 0, nowMs);
      return wait !== undefined ? { requeueAfterMs: wait } : undefined;
    });
  }

  /** Creates or deletes pods towards `spec.replicas`; resolves with the first failure. */
  async #manageReplicas(
    rs: ReplicaSet,
    owned: readonly Pod[],
    writes: OwnWrites,
    signal: AbortSignal,
  ): Promise<unknown> {
    const control: PodControl = {
      podClient: this.#clientset.coreV1.pods(namespaceOf(rs)),
      recorder: this.#recorder,
      subject: { ...rs, apiVersion: APPS_V1, kind: KIND },
      onWrite: (pod) => writes.record(this.#pods.informer, pod),
      signal,
    };
    const diff = owned.length - (rs.spec?.replicas ?? 1);
    if (diff < 0) {
      const { error } = await slowStartBatch(
        Math.min(-diff, BURST_REPLICAS),
        SLOW_START_INITIAL_BATCH_SIZE,
        () =>
          createPod(
            control,
            podFromTemplate(rs.spec?.template, { apiVersion: APPS_V1, kind: KIND, object: rs }),
          ),
      );
      return error;
    }
    if (diff > 0) {
      const victims = podsToDelete(
        owned,
        this.#relatedPods(rs),
        Math.min(diff, BURST_REPLICAS),
        this.#ctx.clock.now(),
      );
      const outcomes = await Promise.allSettled(victims.map((pod) => deletePod(control, pod)));
      const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
      return failure?.reason;
    }
    return undefined;
  }

  /** The pods of every ReplicaSet sharing `rs`'s controller (a Deployment's other revisions). */
  #relatedPods(rs: ReplicaSet): Pod[] {
    const owner = controllerOf(rs);
    if (owner === undefined) return [];
    return controlledBy(this.#replicaSets.informer, owner.uid).flatMap((sibling) =>
      controlledBy(this.#pods.informer, sibling.metadata?.uid ?? ""),
    );
  }

  async #writeStatus(
    rs: ReplicaSet,
    status: ReplicaSetStatus,
    signal: AbortSignal,
  ): Promise<ReplicaSet> {
    return this.#clientset.appsV1
      .replicaSets(namespaceOf(rs))
      .updateStatus(
        { ...rs, apiVersion: APPS_V1, kind: KIND, status: withObservedGeneration(rs, status) },
        { signal },
      );
  }
}
