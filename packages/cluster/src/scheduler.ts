import type { Node, Pod, PodCondition } from "kubernetes-types/core/v1.js";
import { formatTime } from "kubekit/apimachinery";
import {
  Controller,
  isConflict,
  isNotFound,
  type Predicate,
  type ReconcileResult,
  type Runnable,
} from "kubekit";
import type { ClusterContext } from "./cluster-context.js";
import { ensurePodNodeNameIndex, podsOnNode } from "./pod-node-index.js";
import { isPodTerminated, podCondition } from "./pod-state.js";
import { fitErrorMessage, nodeFitFailure } from "./scheduler-filters.js";

/** The scheduler name pods get by default, and the only one this scheduler serves. */
const DEFAULT_SCHEDULER = "default-scheduler";

/** Concurrent bindings (kube-scheduler binds asynchronously, one goroutine per pod). */
const SCHEDULER_WORKERS = 16;

/**
 * How long an unschedulable pod waits before it is tried again without any cluster change
 * (`pkg/scheduler/backend/queue/scheduling_queue.go` DefaultPodMaxInUnschedulablePodsDuration).
 */
const UNSCHEDULABLE_RETRY_MS = 5 * 60_000;

/** Whether the pod waits for this scheduler: unbound, live, and for `default-scheduler`. */
function awaitsScheduling(pod: Pod): boolean {
  const schedulerName = pod.spec?.schedulerName ?? "";
  return (
    (pod.spec?.nodeName ?? "") === "" &&
    pod.metadata?.deletionTimestamp === undefined &&
    !isPodTerminated(pod) &&
    (schedulerName === "" || schedulerName === DEFAULT_SCHEDULER)
  );
}

/**
 * Pod notifications the scheduler acts on: pods waiting for it, and the update that binds
 * one (so its in-flight assumption is dropped).
 */
const schedulingPredicate: Predicate<Pod> = {
  create: awaitsScheduling,
  update: (oldPod, newPod) => awaitsScheduling(oldPod) || awaitsScheduling(newPod),
  delete: awaitsScheduling,
};

/** The pod as an Event subject (cached objects carry no apiVersion/kind). */
function podSubject(pod: Pod): Pod {
  return { ...pod, apiVersion: "v1", kind: "Pod" };
}

/** A pod whose binding was sent but is not in the cache yet (kube-scheduler's "assumed" pods). */
interface Assumption {
  readonly uid: string;
  readonly node: string;
}

/**
 * kube-scheduler, simulated (`pkg/scheduler/schedule_one.go`): every live pod without
 * `spec.nodeName` whose `schedulerName` is `default-scheduler` (or unset) is bound, through
 * the `pods/binding` subresource, to a node that passes the filters of
 * {@link nodeFitFailure} (cordoned nodes, nodeSelector and required node affinity, NoSchedule
 * and NoExecute taints, nodes that are not Ready), choosing the node with the fewest pods
 * (then by name) to spread them, and records the `Scheduled` Event. Pods created with a
 * `spec.nodeName` are never touched (the kubelet of that node runs them).
 *
 * A pod that fits nowhere gets `PodScheduled=False` (reason `Unschedulable`, kube's
 * "0/3 nodes are available: …" message) and a `FailedScheduling` Warning, and is tried again
 * whenever a Node is added or changes (and every 5 minutes on the clock).
 *
 * Guarantees: pods are bound concurrently (16 workers, no client
 * throttling); bindings sent but not observed yet count on their node, so concurrent
 * decisions still spread. Caveats: no resource fit (requests, the node's `pods` capacity),
 * no inter-pod affinity, topology spread, priorities or preemption.
 */
export function scheduler(ctx: ClusterContext): Runnable {
  const pods = ctx.factory.coreV1.pods();
  const nodes = ctx.factory.coreV1.nodes();
  ensurePodNodeNameIndex(pods.informer);
  const client = ctx.clientset("kube-scheduler");
  const recorder = ctx.recorder(DEFAULT_SCHEDULER, "kube-scheduler");
  const assumed = new Map<string, Assumption>();

  /** The live pods on `node`, counting bindings in flight (stale assumptions are dropped). */
  const podCount = (node: string): number => {
    let count = podsOnNode(pods.informer, node).filter((p) => !isPodTerminated(p)).length;
    for (const [key, assumption] of assumed) {
      if (assumption.node !== node) continue;
      const cached = pods.informer.indexer.getByKey(key);
      if (cached?.metadata?.uid !== assumption.uid || (cached.spec?.nodeName ?? "") !== "") {
        assumed.delete(key);
      } else count++;
    }
    return count;
  };

  const markUnschedulable = async (
    pod: Pod,
    message: string,
    signal: AbortSignal,
  ): Promise<void> => {
    recorder.event(podSubject(pod), "Warning", "FailedScheduling", message);
    const current = podCondition(pod, "PodScheduled");
    if (current?.status === "False" && current.message === message) return;
    const condition: PodCondition = {
      type: "PodScheduled",
      status: "False",
      reason: "Unschedulable",
      message,
      lastTransitionTime:
        current?.status === "False" && current.lastTransitionTime !== undefined
          ? current.lastTransitionTime
          : formatTime(ctx.clock.now()),
    };
    const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== "PodScheduled");
    await client.coreV1
      .pods(pod.metadata?.namespace ?? "")
      .updateStatus(
        { ...pod, status: { ...pod.status, conditions: [...conditions, condition] } },
        { signal },
      );
  };

  const bind = async (pod: Pod, node: string, signal: AbortSignal): Promise<void> => {
    const namespace = pod.metadata?.namespace ?? "";
    const name = pod.metadata?.name ?? "";
    await client.coreV1.pods(namespace).bind(name, node, {
      ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
      signal,
    });
  };

  const reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const pod = pods.informer.indexer.getByKey(key);
    if (pod === undefined || !awaitsScheduling(pod)) {
      assumed.delete(key);
      return;
    }
    const uid = pod.metadata?.uid ?? "";
    if (assumed.get(key)?.uid === uid) return; // bound; the cache has not seen it yet
    const allNodes = nodes.lister.list();
    const feasible: Node[] = [];
    const reasons: string[] = [];
    for (const node of allNodes) {
      const failure = nodeFitFailure(pod, node);
      if (failure === undefined) feasible.push(node);
      else reasons.push(failure);
    }
    if (feasible.length === 0) {
      try {
        await markUnschedulable(pod, fitErrorMessage(allNodes.length, reasons), signal);
      } catch (err) {
        if (isNotFound(err)) return;
        // The pod changed meanwhile: its watch event brings the key back at once, with the
        // newer pod (the requeue only matters if none arrives). Quietly.
        if (isConflict(err)) return { requeue: true };
        throw err;
      }
      return { requeueAfterMs: UNSCHEDULABLE_RETRY_MS };
    }
    // The fewest pods first, then the name (natural order: node-2 before node-10).
    let best: { name: string; count: number } | undefined;
    for (const node of feasible) {
      const name = node.metadata?.name ?? "";
      const count = podCount(name);
      const better =
        best === undefined ||
        count < best.count ||
        (count === best.count && name.localeCompare(best.name, "en", { numeric: true }) < 0);
      if (better) best = { name, count };
    }
    if (best === undefined) return;
    const chosen = best.name;
    assumed.set(key, { uid, node: chosen });
    try {
      await bind(pod, chosen, signal);
    } catch (err) {
      assumed.delete(key);
      // Gone, or bound by someone else meanwhile: nothing left to do.
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
    recorder.event(
      podSubject(pod),
      "Normal",
      "Scheduled",
      `Successfully assigned ${pod.metadata?.namespace}/${pod.metadata?.name} to ${chosen}`,
    );
  };

  const controller = new Controller({
    name: "scheduler",
    workers: SCHEDULER_WORKERS,
    reconcile,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  controller.watch(pods.informer, { predicates: [schedulingPredicate] });
  // A Node added or changed may make waiting pods schedulable (kube-scheduler moves its
  // unschedulable pods back to the active queue on Node events).
  controller.watch(nodes.informer, {
    map: () =>
      podsOnNode(pods.informer, "")
        .filter(awaitsScheduling)
        .map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`),
  });
  return controller;
}
