import type { Node, Pod, PodCondition } from "kubernetes-types/core/v1.js";
import { formatTime, nameOf, namespaceOf } from "kubekit/apimachinery";
import {
  Controller,
  isConflict,
  isNotFound,
  type Clientset,
  type Clock,
  type CoreV1NodeLister,
  type CoreV1PodLister,
  type EventRecorder,
  type Predicate,
  type ReconcileResult,
  type ResourceInformer,
  type Runnable,
} from "kubekit";
import type { ClusterContext } from "../cluster-context.js";
import { ensurePodNodeNameIndex, podsOnNode } from "./pod-node-index.js";
import { isPodTerminated, podCondition } from "../controller-support/pod-state.js";
import { fitErrorMessage, nodeFitFailure } from "./scheduler-filters.js";
import { hasNodeConstraints, NodeSnapshot, type NodeEntry } from "./node-snapshot.js";
import { SchedulerCache } from "./scheduler-cache.js";

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
 * Guarantees: pods are bound concurrently (16 workers, no client throttling); bindings sent
 * but not observed yet count on their node, so concurrent decisions still spread; a decision
 * costs O(nodes), however many pods exist or are being bound (per-node counts are kept by
 * {@link SchedulerCache} from the pod informer's notifications, the nodes are a
 * {@link NodeSnapshot} rebuilt only when a Node changes). Caveats: no resource fit
 * (requests, the node's `pods` capacity), no inter-pod affinity, topology spread, priorities
 * or preemption.
 */
export function scheduler(ctx: ClusterContext): Runnable {
  return new Scheduler(ctx).controller;
}

/** The scheduler's state and its steps (`pkg/scheduler/schedule_one.go` scheduleOne). */
class Scheduler {
  readonly controller: Controller;
  readonly #pods: ResourceInformer<Pod, CoreV1PodLister>;
  readonly #nodes: ResourceInformer<Node, CoreV1NodeLister>;
  readonly #client: Clientset;
  readonly #recorder: EventRecorder;
  readonly #clock: Clock;
  /** Pods per node, bindings in flight included. */
  readonly #cache = new SchedulerCache();
  readonly #snapshot = new NodeSnapshot((name) => this.#cache.loadOf(name));

  constructor(ctx: ClusterContext) {
    this.#pods = ctx.factory.coreV1.pods();
    this.#nodes = ctx.factory.coreV1.nodes();
    ensurePodNodeNameIndex(this.#pods.informer);
    this.#client = ctx.clientset("kube-scheduler");
    this.#recorder = ctx.recorder(DEFAULT_SCHEDULER, "kube-scheduler");
    this.#clock = ctx.clock;
    this.controller = new Controller({
      name: "scheduler",
      workers: SCHEDULER_WORKERS,
      reconcile: (key, signal) => this.#scheduleOne(key, signal),
      clock: ctx.clock,
      logger: ctx.logger,
    });
    const pods = this.#pods.informer;
    pods.addEventHandler(this.#cache.handler);
    this.controller.watch(pods, { predicates: [schedulingPredicate] });
    // A Node added or changed may make waiting pods schedulable (kube-scheduler moves its
    // unschedulable pods back to the active queue on Node events).
    this.controller.watch(this.#nodes.informer, {
      map: () =>
        podsOnNode(pods, "")
          .filter(awaitsScheduling)
          .map((p) => `${namespaceOf(p)}/${nameOf(p)}`),
    });
  }

  /** Schedules the pod of `key`: binds it to the best feasible node, or marks it unschedulable. */
  async #scheduleOne(key: string, signal: AbortSignal): Promise<ReconcileResult | void> {
    // A pod bound or gone meanwhile: its assumption, if any, is dropped by the cache's handler
    // when the informer's notification shows it (dropping it here, before that, would
    // undercount the node for a moment).
    const pod = this.#pods.informer.indexer.getByKey(key);
    if (pod === undefined || !awaitsScheduling(pod)) return;
    const uid = pod.metadata?.uid ?? "";
    if (this.#cache.isAssumed(key, uid)) return; // bound; the cache has not seen it yet
    const nodes = this.#snapshot.update(this.#nodes.informer.indexer.list());
    const { chosen, reasons } = selectNode(pod, nodes);
    if (chosen === undefined) {
      return this.#handleSchedulingFailure(pod, fitErrorMessage(nodes.length, reasons), signal);
    }
    this.#cache.assume(key, uid, chosen);
    try {
      await this.#bind(pod, chosen, signal);
    } catch (err) {
      this.#cache.forget(key);
      // Gone, or bound by someone else meanwhile: nothing left to do.
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
    this.#recorder.event(
      podSubject(pod),
      "Normal",
      "Scheduled",
      `Successfully assigned ${namespaceOf(pod)}/${nameOf(pod)} to ${chosen}`,
    );
  }

  /** A pod that fits nowhere: marked unschedulable, tried again later (handleSchedulingFailure). */
  async #handleSchedulingFailure(
    pod: Pod,
    message: string,
    signal: AbortSignal,
  ): Promise<ReconcileResult | void> {
    try {
      await this.#markUnschedulable(pod, message, signal);
    } catch (err) {
      if (isNotFound(err)) return;
      // The pod changed meanwhile: its watch event brings the key back at once, with the
      // newer pod (the requeue only matters if none arrives). Quietly.
      if (isConflict(err)) return { requeue: true };
      throw err;
    }
    return { requeueAfterMs: UNSCHEDULABLE_RETRY_MS };
  }

  /** The FailedScheduling Event and `PodScheduled=False` (reason Unschedulable). */
  async #markUnschedulable(pod: Pod, message: string, signal: AbortSignal): Promise<void> {
    this.#recorder.event(podSubject(pod), "Warning", "FailedScheduling", message);
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
          : formatTime(this.#clock.now()),
    };
    const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== "PodScheduled");
    await this.#client.coreV1
      .pods(namespaceOf(pod))
      .updateStatus(
        { ...pod, status: { ...pod.status, conditions: [...conditions, condition] } },
        { signal },
      );
  }

  /** Binds the pod to `node` through `pods/binding`, with the pod's UID as precondition. */
  async #bind(pod: Pod, node: string, signal: AbortSignal): Promise<void> {
    await this.#client.coreV1.pods(namespaceOf(pod)).bind(nameOf(pod), node, {
      ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
      signal,
    });
  }
}

/**
 * The feasible node with the fewest pods, the first in the snapshot's natural name order
 * (node-2 before node-10) among equals, or none with why each node does not fit
 * (findNodesThatFitPod, then scoring): one pass over the nodes, no allocation per fitting node.
 */
function selectNode(pod: Pod, nodes: readonly NodeEntry[]): { chosen?: string; reasons: string[] } {
  const plain = !hasNodeConstraints(pod);
  const reasons: string[] = [];
  let chosen: string | undefined;
  let fewest = Infinity;
  for (const entry of nodes) {
    const failure = plain ? entry.plainFailure : nodeFitFailure(pod, entry.node);
    if (failure !== undefined) {
      reasons.push(failure);
      continue;
    }
    const count = entry.load.bound + entry.load.assumed;
    if (count < fewest) {
      chosen = entry.name;
      fewest = count;
    }
  }
  return chosen === undefined ? { reasons } : { chosen, reasons };
}
