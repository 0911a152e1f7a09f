import type { Pod } from "kubernetes-types/core/v1.js";
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from "kubernetes-types/policy/v1.js";
import {
  Controller,
  LabelSelector,
  isConflict,
  isNotFound,
  objectKey,
  splitKey,
  type ReconcileResult,
  type Runnable,
} from "kubekit";
import { deepEqual, errorMessage } from "kubekit/apimachinery";
import type { ClusterContext } from "../cluster-context.js";
import { controllerScales } from "./controller-scales.js";
import { budgetStatus, failSafeStatus } from "./disruption-status.js";

/** kube-controller-manager's `--concurrent-...` equivalent for the disruption controller (one worker upstream). */
const WORKERS = 1;

/** The pods a budget covers: its namespace's pods its selector matches (policy/v1: `{}` matches all, none matches nothing). */
function selectorOf(pdb: PodDisruptionBudget): LabelSelector {
  try {
    return LabelSelector.fromLabelSelector(pdb.spec?.selector);
  } catch {
    return LabelSelector.nothing();
  }
}

/**
 * kube-controller-manager's `disruption` controller (`pkg/controller/disruption/disruption.go`),
 * written with kubekit's Controller: for every PodDisruptionBudget it counts the pods its
 * selector matches and writes `status` — `currentHealthy` (Ready, not being deleted, not
 * pending a disruption), `desiredHealthy`, `expectedPods` (the scale of the pods' controllers
 * — Deployment, ReplicaSet, StatefulSet, ReplicationController — or the matching pod count
 * for an integer `minAvailable`), `disruptionsAllowed`, `disruptedPods` (evictions recorded by
 * the Eviction subresource, dropped once the pod is deleted or after 2 minutes),
 * `observedGeneration` and the `DisruptionAllowed` condition (`SufficientPods`,
 * `InsufficientPods`, or `SyncFailed` when a pod's controller cannot be found). Reconciles by
 * budget key when a budget or a pod it covers changes, and again when a recorded disruption
 * expires. Other controllers with a scale subresource (custom resources) are not resolved:
 * such a budget reports `SyncFailed`, as kube does when the scale cannot be read.
 */
export function disruptionController(ctx: ClusterContext): Runnable {
  const client = ctx.clientset("kube-controller-manager");
  const budgets = ctx.factory.policyV1.podDisruptionBudgets();
  const pods = ctx.factory.coreV1.pods();
  const { scaleOf, watchCaches } = controllerScales(ctx);

  const reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const { namespace, name } = splitKey(key);
    let pdb: PodDisruptionBudget;
    try {
      pdb = budgets.lister.podDisruptionBudgets(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const selector = selectorOf(pdb);
    const matched = pods.lister
      .pods(namespace)
      .list()
      .filter((pod) => selector.matches(pod.metadata?.labels));
    let status: PodDisruptionBudgetStatus;
    let requeueAfterMs: number | undefined;
    try {
      const result = budgetStatus(pdb, matched, (p) => scaleOf(namespace, p), ctx.clock);
      status = result.status;
      requeueAfterMs = result.recheckAfterMs;
    } catch (err) {
      status = failSafeStatus(pdb, errorMessage(err), ctx.clock);
    }
    if (!deepEqual(pdb.status ?? {}, status)) {
      try {
        await client.policyV1
          .podDisruptionBudgets(namespace)
          .updateStatus(
            { ...pdb, apiVersion: "policy/v1", kind: "PodDisruptionBudget", status },
            { signal },
          );
      } catch (err) {
        if (isConflict(err)) return { requeue: true };
        if (isNotFound(err)) return;
        throw err;
      }
    }
    return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
  };

  const controller = new Controller({
    name: "disruption",
    workers: WORKERS,
    reconcile,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  controller.watch(budgets.informer);
  // A pod's change: every budget of its namespace whose selector matches it (kube's getPdbForPod).
  controller.watch(pods.informer, {
    map: (pod: Pod) =>
      budgets.lister
        .podDisruptionBudgets(pod.metadata?.namespace ?? "")
        .list()
        .filter((pdb) => selectorOf(pdb).matches(pod.metadata?.labels))
        .map((pdb) => objectKey(pdb)),
  });
  // Controllers' scale changes reach the budgets through their pods; the listers only need syncing.
  watchCaches(controller);
  return controller;
}
