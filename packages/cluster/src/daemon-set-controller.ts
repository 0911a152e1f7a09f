/**
 * kube-controller-manager's DaemonSet controller (`pkg/controller/daemon/daemon_controller.go`
 * and `update.go`), written with kubekit's Controller toolkit: one pod per eligible Node,
 * rolled to new template revisions kept as ControllerRevisions, and the status `kubectl get
 * ds` and `kubectl rollout status|history|undo` read.
 */
import type { DaemonSet } from "kubernetes-types/apps/v1.js";
import type { Node, Pod } from "kubernetes-types/core/v1.js";
import { deepEqual } from "kubekit/apimachinery";
import { PatchTypes, splitKey, type Predicate, type ReconcileResult, type Runnable } from "kubekit";
import { cachedObject } from "./cached-object.js";
import type { ClusterContext } from "./cluster-context.js";
import { claimCached, recheckDeletionTimestamp } from "./controller-ref-manager.js";
import { controlledBy, ensureControllerRefIndexes } from "./controller-ref-index.js";
import { CONTROLLER_REVISION_HASH_LABEL, sortRevisions } from "./controller-revisions.js";
import { newDaemonPod } from "./daemon-pod.js";
import { cleanupDaemonSetHistory, constructDaemonSetHistory } from "./daemon-set-history.js";
import { planDaemonPods, podsByNode } from "./daemon-set-node-plan.js";
import { rollingUpdateStep } from "./daemon-set-rolling-update.js";
import {
  daemonSetStatus,
  daemonSetStatusPatch,
  daemonSetStatusUnchanged,
} from "./daemon-set-status.js";
import { FailedPodBackoff } from "./failed-pod-backoff.js";
import { orphanAdopterKeys } from "./orphan-adopters.js";
import { ownerController } from "./owner-controller.js";
import { OwnWrites } from "./own-writes.js";
import { createPod, deletePod, type PodControl } from "./pod-control.js";
import { msUntilNextAvailable } from "./pod-state.js";
import { requeueOnConflict } from "./requeue-on-conflict.js";
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from "./slow-start-batch.js";
import { workloadSelector } from "./workload-selector.js";

const APPS_V1 = "apps/v1";
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
  const clientset = ctx.clientset("kube-controller-manager");
  const daemonSets = ctx.factory.appsV1.daemonSets();
  const pods = ctx.factory.coreV1.pods();
  const nodes = ctx.factory.coreV1.nodes();
  const revisions = ctx.factory.appsV1.controllerRevisions();
  ensureControllerRefIndexes(pods.informer);
  ensureControllerRefIndexes(revisions.informer);
  const recorder = ctx.recorder("daemonset-controller", "kube-controller-manager");
  const logger = ctx.logger;
  const backoff = new FailedPodBackoff();

  /**
   * Creates pods on `createOn` (slow start) and deletes `remove` (at once, concurrently),
   * as kube's syncNodes does, with the Events of kube's pod control; `removeNow` are deleted
   * without grace. Resolves with whether anything was written; rejects with the first failure
   * once every write settled.
   */
  const syncNodes = async (
    ds: DaemonSet,
    plan: { createOn: readonly string[]; remove: readonly Pod[]; removeNow?: readonly Pod[] },
    hash: string,
    writes: OwnWrites,
    signal: AbortSignal,
  ): Promise<boolean> => {
    const control: PodControl = {
      podClient: clientset.coreV1.pods(ds.metadata?.namespace ?? "default"),
      recorder,
      subject: { ...ds, apiVersion: APPS_V1, kind: KIND },
      onWrite: (pod) => writes.record(pods.informer, pod),
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
  };

  const reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const { namespace, name } = splitKey(key);
    const ds = cachedObject(daemonSets.lister.daemonSets(namespace), name);
    if (ds === undefined) return; // deleted: the garbage collector removes its pods
    const selector = workloadSelector(ds);
    if (selector === undefined) {
      logger.warn("daemonset: invalid or empty selector; not synced", { key });
      return;
    }
    const uid = ds.metadata?.uid ?? "";
    const writes = new OwnWrites();
    const dsClient = clientset.appsV1.daemonSets(namespace);
    const canAdopt = recheckDeletionTimestamp(ds, () => dsClient.get(name, { signal }));
    const ownerType = { apiVersion: APPS_V1, kind: KIND };
    const conflictRequeue = { controller: "daemonset", key, writes, signal, logger };
    return requeueOnConflict(conflictRequeue, async () => {
      const claim = { owner: ds, ownerType, selector, canAdopt, writes, signal };
      const owned = await claimCached({
        ...claim,
        informer: pods.informer,
        client: clientset.coreV1.pods(namespace),
      });
      const ownedRevisions = await claimCached({
        ...claim,
        informer: revisions.informer,
        client: clientset.appsV1.controllerRevisions(namespace),
      });
      const history = await constructDaemonSetHistory(ds, sortRevisions(ownedRevisions), owned, {
        clientset,
        recordRevision: (revision) => writes.record(revisions.informer, revision),
        recordPod: (pod) => writes.record(pods.informer, pod),
        signal,
      });
      const hash = history.current.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? "";
      const deleting = ds.metadata?.deletionTimestamp !== undefined;
      let syncError: unknown;
      let retryAfterMs: number | undefined;
      if (!deleting) {
        try {
          const nodeList = nodes.lister.list();
          const byNode = podsByNode(owned, false);
          const nowMs = ctx.clock.now();
          const plan = planDaemonPods({ ds, nodes: nodeList, byNode, hash, nowMs, backoff, key });
          retryAfterMs = plan.retryAfterMs;
          for (const event of plan.events) {
            recorder.event(
              { ...ds, apiVersion: APPS_V1, kind: KIND },
              event.type,
              event.reason,
              event.message,
            );
          }
          const managed = await syncNodes(ds, plan, hash, writes, signal);
          if (!managed && ds.spec?.updateStrategy?.type === "RollingUpdate") {
            const step = rollingUpdateStep(ds, nodeList, byNode, hash, nowMs);
            await syncNodes(ds, step, hash, writes, signal);
          }
          await cleanupDaemonSetHistory(
            clientset,
            ds,
            history.old,
            [...podsByNode(owned, true).values()].flat(),
            signal,
          );
        } catch (err) {
          if (signal.aborted) throw err;
          syncError = err;
        }
      }
      const observed = await writes.observed(signal);
      const after = controlledBy(pods.informer, uid);
      const nowMs = ctx.clock.now();
      const status = daemonSetStatus({
        ds,
        nodes: nodes.lister.list(),
        byNode: podsByNode(after, false),
        hash,
        nowMs,
        observeGeneration: !deleting,
        collisionCount: history.collisionCount,
      });
      if (!daemonSetStatusUnchanged(ds, status)) {
        const written = await dsClient.patch(name, PatchTypes.merge, daemonSetStatusPatch(status), {
          subresource: "status",
          signal,
        });
        writes.record(daemonSets.informer, written);
      }
      const statusObserved = await writes.observed(signal);
      if (syncError !== undefined) throw syncError;
      if (!observed || !statusObserved) return { requeue: true };
      const waits = [
        retryAfterMs,
        msUntilNextAvailable(after, ds.spec?.minReadySeconds ?? 0, nowMs),
      ].filter((ms): ms is number => ms !== undefined);
      return waits.length > 0 ? { requeueAfterMs: Math.min(...waits) } : undefined;
    });
  };

  const controller = ownerController(ctx, {
    name: "daemonset",
    workers: WORKERS,
    reconcile,
    owners: daemonSets.informer,
    ownerKind: { group: "apps", kind: KIND },
    owned: [pods.informer, revisions.informer],
  });
  const allDaemonSets = (): string[] =>
    daemonSets.lister.list().map((ds) => `${ds.metadata?.namespace}/${ds.metadata?.name}`);
  // An orphan wakes the DaemonSets of its namespace that select it, so one of them adopts it.
  controller.watch(pods.informer, {
    map: (pod: Pod) =>
      orphanAdopterKeys(
        pod,
        (namespace: string) => daemonSets.lister.daemonSets(namespace).list(),
        workloadSelector,
      ),
  });
  // A Node added, removed or changed may change where every DaemonSet runs.
  controller.watch(nodes.informer, { map: allDaemonSets, predicates: [nodePlacementChanged] });
  return controller;
}
