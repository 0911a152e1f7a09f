/**
 * kube-controller-manager's DaemonSet controller (`pkg/controller/daemon/daemon_controller.go`
 * and `update.go`), written with kubekit's Controller toolkit: one pod per eligible Node,
 * rolled to new template revisions kept as ControllerRevisions, and the status `kubectl get
 * ds` and `kubectl rollout status|history|undo` read.
 */
import type { ControllerRevision, DaemonSet, DaemonSetStatus } from "kubernetes-types/apps/v1.js";
import type { Node, Pod } from "kubernetes-types/core/v1.js";
import { deepEqual, nameOf, namespaceOf } from "kubekit/apimachinery";
import {
  PatchTypes,
  splitKey,
  type AppsV1DaemonSetLister,
  type Clientset,
  type Controller,
  type CoreV1NodeLister,
  type EventRecorder,
  type LabelSelector,
  type Predicate,
  type ReconcileResult,
  type ResourceInformer,
  type Runnable,
  type SharedIndexInformer,
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
import {
  CONTROLLER_REVISION_HASH_LABEL,
  sortRevisions,
} from "../controller-support/controller-revisions.js";
import { newDaemonPod } from "./daemon-pod.js";
import {
  cleanupDaemonSetHistory,
  constructDaemonSetHistory,
  type DaemonSetHistory,
} from "./daemon-set-history.js";
import { planDaemonPods, podsByNode } from "./daemon-set-node-plan.js";
import { rollingUpdateStep } from "./daemon-set-rolling-update.js";
import {
  daemonSetStatus,
  daemonSetStatusPatch,
  daemonSetStatusUnchanged,
} from "./daemon-set-status.js";
import { FailedPodBackoff } from "./failed-pod-backoff.js";
import { orphanAdopterKeys } from "../controller-support/orphan-adopters.js";
import { ownerController } from "../controller-support/owner-controller.js";
import { OwnWrites } from "../controller-support/own-writes.js";
import { createPod, deletePod, type PodControl } from "../controller-support/pod-control.js";
import { msUntilNextAvailable } from "../controller-support/pod-state.js";
import { requeueOnConflict } from "../controller-support/requeue-on-conflict.js";
import {
  SLOW_START_INITIAL_BATCH_SIZE,
  slowStartBatch,
} from "../controller-support/slow-start-batch.js";
import { workloadSelector } from "../controller-support/workload-selector.js";
import { APPS_V1 } from "../controller-support/api-versions.js";

const KIND = "DaemonSet";

/** kube-controller-manager's `--concurrent-daemonset-syncs` default. */
const WORKERS = 2;

/** Each condition type of the node with its status. */
function conditionStatuses(node: Node): Record<string, string> {
  return Object.fromEntries((node.status?.conditions ?? []).map((c) => [c.type, c.status]));
}

/**
 * Node updates that can change where DaemonSets run (`shouldIgnoreNodeUpdate` lets the others
 * pass only when more than heartbeats changed): labels, spec (taints, unschedulable) and the
 * statuses of the node's conditions.
 */
const nodePlacementChanged: Predicate<Node> = {
  update: (oldNode, newNode) =>
    !deepEqual(oldNode.metadata?.labels ?? {}, newNode.metadata?.labels ?? {}) ||
    !deepEqual(oldNode.spec ?? {}, newNode.spec ?? {}) ||
    !deepEqual(conditionStatuses(oldNode), conditionStatuses(newNode)),
};

/**
 * The simulated DaemonSet controller (source `daemonset-controller`). Per DaemonSet,
 * level-triggered from the listers:
 *
 * - claims its pods and ControllerRevisions (adopting matching orphans after re-reading the
 *   DaemonSet from the API server, releasing pods it no longer selects);
 * - keeps the template history: the revision `<name>-<hash>` of the current template (data =
 *   the template under `spec.template` with `$patch: replace`, labels = the template's plus
 *   `controller-revision-hash`, the DaemonSet's annotations), renumbered as newest on a
 *   rollback, old revisions beyond `revisionHistoryLimit` deleted unless a pod still uses them;
 * - keeps one pod on every Node it should run on ({@link planDaemonPods}: nodeSelector,
 *   required node affinity, taints against the template's tolerations plus the ones kube
 *   adds to daemon pods), each pinned to its node with a required node affinity on
 *   `metadata.name` for the scheduler to honour, labelled `controller-revision-hash` (and
 *   `pod-template-generation` when the DaemonSet carries kube-apiserver's template generation
 *   annotation); created in slow-start batches; a Node added gets its pod, a Node gone
 *   loses it; Events `SuccessfulCreate` ("Created pod: …"), `SuccessfulDelete`,
 *   `FailedCreate`, `FailedDelete`, `FailedDaemonPod`;
 * - when that pass wrote nothing, takes the next RollingUpdate step ({@link rollingUpdateStep}:
 *   `maxUnavailable`, `maxSurge`); `OnDelete` replaces only pods deleted by hand;
 * - waits until its caches have observed its writes, then writes `status`
 *   (desiredNumberScheduled, currentNumberScheduled, numberReady, numberAvailable,
 *   numberUnavailable, updatedNumberScheduled, numberMisscheduled, observedGeneration,
 *   collisionCount) when it changed;
 * - with `minReadySeconds`, syncs again on the cluster's clock when the next pod becomes
 *   available; a failed pod's replacement waits out its back-off on the clock.
 *
 * Caveats: pods bound to a Node that was deleted are deleted at once by this controller (in
 * kube the pod garbage collector does it, for every pod, after 40 s); Node updates are
 * compared on labels, spec and condition statuses only.
 */
export function daemonSetController(ctx: ClusterContext): Runnable {
  return new DaemonSetController(ctx).controller;
}

/** What one pass over the nodes left to do: a failure to report, a back-off to wait out. */
interface ManageOutcome {
  readonly error?: unknown;
  readonly retryAfterMs?: number | undefined;
}

/** The controller's informers and clients, and the steps of one sync (kube's syncDaemonSet). */
class DaemonSetController {
  readonly controller: Controller;
  readonly #ctx: ClusterContext;
  readonly #clientset: Clientset;
  readonly #daemonSets: ResourceInformer<DaemonSet, AppsV1DaemonSetLister>;
  readonly #pods: SharedIndexInformer<Pod>;
  readonly #nodes: ResourceInformer<Node, CoreV1NodeLister>;
  readonly #revisions: SharedIndexInformer<ControllerRevision>;
  readonly #recorder: EventRecorder;
  readonly #backoff = new FailedPodBackoff();

  constructor(ctx: ClusterContext) {
    this.#ctx = ctx;
    this.#clientset = ctx.clientset("kube-controller-manager");
    const daemonSets = ctx.factory.appsV1.daemonSets();
    this.#daemonSets = daemonSets;
    this.#pods = ctx.factory.coreV1.pods().informer;
    this.#nodes = ctx.factory.coreV1.nodes();
    this.#revisions = ctx.factory.appsV1.controllerRevisions().informer;
    ensureControllerRefIndexes(this.#pods);
    ensureControllerRefIndexes(this.#revisions);
    this.#recorder = ctx.recorder("daemonset-controller", "kube-controller-manager");
    this.controller = ownerController(ctx, {
      name: "daemonset",
      workers: WORKERS,
      reconcile: (key, signal) => this.#syncDaemonSet(key, signal),
      owners: daemonSets.informer,
      ownerKind: { group: "apps", kind: KIND },
      owned: [this.#pods, this.#revisions],
    });
    const allDaemonSets = (): string[] =>
      daemonSets.lister.list().map((ds) => `${namespaceOf(ds)}/${nameOf(ds)}`);
    // An orphan wakes the DaemonSets of its namespace that select it, so one of them adopts it.
    this.controller.watch(this.#pods, {
      map: (pod: Pod) =>
        orphanAdopterKeys(
          pod,
          (namespace: string) => daemonSets.lister.daemonSets(namespace).list(),
          workloadSelector,
        ),
    });
    // A Node added, removed or changed may change where every DaemonSet runs.
    this.controller.watch(this.#nodes.informer, {
      map: allDaemonSets,
      predicates: [nodePlacementChanged],
    });
  }

  /**
   * One sync of the DaemonSet of `key`: claim its pods and revisions, build its history, keep
   * one pod per eligible node (then a rolling-update step), write the status.
   */
  async #syncDaemonSet(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { namespace, name } = splitKey(key);
    const ds = cachedObject(this.#daemonSets.lister.daemonSets(namespace), name);
    if (ds === undefined) return; // deleted: the garbage collector removes its pods
    const selector = workloadSelector(ds);
    const logger = this.#ctx.logger;
    if (selector === undefined) {
      logger.warn("daemonset: invalid or empty selector; not synced", { key });
      return;
    }
    const writes = new OwnWrites();
    const conflictRequeue = { controller: "daemonset", key, writes, signal, logger };
    return requeueOnConflict(conflictRequeue, async () => {
      const { owned, history } = await this.#claim(ds, selector, writes, signal);
      const hash = history.current.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? "";
      const deleting = ds.metadata?.deletionTimestamp !== undefined;
      const outcome: ManageOutcome = deleting
        ? {}
        : await this.#manage(ds, { key, owned, history, hash, writes, signal });
      const observed = await writes.observed(signal);
      const after = controlledBy(this.#pods, ds.metadata?.uid ?? "");
      const nowMs = this.#ctx.clock.now();
      const status = daemonSetStatus({
        ds,
        nodes: this.#nodes.lister.list(),
        byNode: podsByNode(after, false),
        hash,
        nowMs,
        observeGeneration: !deleting,
        collisionCount: history.collisionCount,
      });
      if (!daemonSetStatusUnchanged(ds, status)) {
        writes.record(this.#daemonSets.informer, await this.#writeStatus(ds, status, signal));
      }
      const statusObserved = await writes.observed(signal);
      if (outcome.error !== undefined) throw outcome.error;
      if (!observed || !statusObserved) return { requeue: true };
      const waits = [
        outcome.retryAfterMs,
        msUntilNextAvailable(after, ds.spec?.minReadySeconds ?? 0, nowMs),
      ].filter((ms): ms is number => ms !== undefined);
      return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : undefined;
    });
  }

  /** Claims the DaemonSet's pods and revisions and builds its history from them. */
  async #claim(
    ds: DaemonSet,
    selector: LabelSelector,
    writes: OwnWrites,
    signal: AbortSignal,
  ): Promise<{ owned: Pod[]; history: DaemonSetHistory }> {
    const namespace = namespaceOf(ds);
    const clientset = this.#clientset;
    const dsClient = clientset.appsV1.daemonSets(namespace);
    const canAdopt = recheckDeletionTimestamp(ds, () => dsClient.get(nameOf(ds), { signal }));
    const ownerType = { apiVersion: APPS_V1, kind: KIND };
    const claim = { owner: ds, ownerType, selector, canAdopt, writes, signal };
    const owned = await claimCached({
      ...claim,
      informer: this.#pods,
      client: clientset.coreV1.pods(namespace),
    });
    const ownedRevisions = await claimCached({
      ...claim,
      informer: this.#revisions,
      client: clientset.appsV1.controllerRevisions(namespace),
    });
    const history = await constructDaemonSetHistory(ds, sortRevisions(ownedRevisions), owned, {
      clientset,
      recordRevision: (revision) => writes.record(this.#revisions, revision),
      recordPod: (pod) => writes.record(this.#pods, pod),
      signal,
    });
    return { owned, history };
  }

  /**
   * Keeps one pod on every node the DaemonSet should run on (kube's manage), then, when that
   * wrote nothing, takes a RollingUpdate step, and cleans up old revisions; a failure is
   * returned, not thrown, so the status is still written.
   */
  async #manage(
    ds: DaemonSet,
    sync: {
      readonly key: string;
      readonly owned: readonly Pod[];
      readonly history: DaemonSetHistory;
      readonly hash: string;
      readonly writes: OwnWrites;
      readonly signal: AbortSignal;
    },
  ): Promise<ManageOutcome> {
    const { key, owned, history, hash, writes, signal } = sync;
    let retryAfterMs: number | undefined;
    try {
      const nodeList = this.#nodes.lister.list();
      const byNode = podsByNode(owned, false);
      const nowMs = this.#ctx.clock.now();
      const backoff = this.#backoff;
      const plan = planDaemonPods({ ds, nodes: nodeList, byNode, hash, nowMs, backoff, key });
      retryAfterMs = plan.retryAfterMs;
      for (const event of plan.events) {
        this.#recorder.event(
          { ...ds, apiVersion: APPS_V1, kind: KIND },
          event.type,
          event.reason,
          event.message,
        );
      }
      const managed = await this.#syncNodes(ds, plan, hash, writes, signal);
      if (!managed && ds.spec?.updateStrategy?.type === "RollingUpdate") {
        const step = rollingUpdateStep(ds, nodeList, byNode, hash, nowMs);
        await this.#syncNodes(ds, step, hash, writes, signal);
      }
      const pods = [...podsByNode(owned, true).values()].flat();
      await cleanupDaemonSetHistory(this.#clientset, ds, history.old, pods, signal);
      return { retryAfterMs };
    } catch (err) {
      if (signal.aborted) throw err;
      return { error: err, retryAfterMs };
    }
  }

  /**
   * Creates pods on `createOn` (slow start) and deletes `remove` (at once, concurrently),
   * as kube's syncNodes does, with the Events of kube's pod control; `removeNow` are deleted
   * without grace. Resolves with whether anything was written; rejects with the first failure
   * once every write settled.
   */
  async #syncNodes(
    ds: DaemonSet,
    plan: { createOn: readonly string[]; remove: readonly Pod[]; removeNow?: readonly Pod[] },
    hash: string,
    writes: OwnWrites,
    signal: AbortSignal,
  ): Promise<boolean> {
    const control: PodControl = {
      podClient: this.#clientset.coreV1.pods(ds.metadata?.namespace ?? "default"),
      recorder: this.#recorder,
      subject: { ...ds, apiVersion: APPS_V1, kind: KIND },
      onWrite: (pod) => writes.record(this.#pods, pod),
      signal,
    };
    const created = await slowStartBatch(plan.createOn.length, SLOW_START_INITIAL_BATCH_SIZE, (i) =>
      createPod(control, newDaemonPod(ds, plan.createOn[i] ?? "", hash)),
    );
    const deleted = await Promise.allSettled([
      ...plan.remove.map((pod) => deletePod(control, pod, { uidPrecondition: true })),
      ...(plan.removeNow ?? []).map((pod) =>
        deletePod(control, pod, { uidPrecondition: true, force: true }),
      ),
    ]);
    const failure =
      created.error ??
      deleted.find((r): r is PromiseRejectedResult => r.status === "rejected")?.reason;
    if (failure !== undefined) throw failure;
    return created.successes > 0 || deleted.length > 0;
  }

  async #writeStatus(
    ds: DaemonSet,
    status: DaemonSetStatus,
    signal: AbortSignal,
  ): Promise<DaemonSet> {
    return this.#clientset.appsV1
      .daemonSets(namespaceOf(ds))
      .patch(nameOf(ds), PatchTypes.merge, daemonSetStatusPatch(status), {
        subresource: "status",
        signal,
      });
  }
}
