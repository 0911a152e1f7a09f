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
  /** Bindings in flight, by pod key. */
  readonly #assumed = new Map<string, Assumption>();

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
    const pod = this.#pods.informer.indexer.getByKey(key);
    if (pod === undefined || !awaitsScheduling(pod)) {
      this.#assumed.delete(key);
      return;
    }
    const uid = pod.metadata?.uid ?? "";
    if (this.#assumed.get(key)?.uid === uid) return; // bound; the cache has not seen it yet
    const allNodes = this.#nodes.lister.list();
    const { feasible, reasons } = feasibleNodes(pod, allNodes);
    const chosen = this.#leastLoaded(feasible);
    if (chosen === undefined) {
      return this.#handleSchedulingFailure(pod, fitErrorMessage(allNodes.length, reasons), signal);
    }
    this.#assumed.set(key, { uid, node: chosen });
    try {
      await this.#bind(pod, chosen, signal);
    } catch (err) {
      this.#assumed.delete(key);
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

  /** The node with the fewest pods, then by name (natural order: node-2 before node-10). */
  #leastLoaded(feasible: readonly Node[]): string | undefined {
    let best: { name: string; count: number } | undefined;
    for (const node of feasible) {
      const name = nameOf(node);
      const count = this.#podCount(name);
      const better =
        best === undefined ||
        count < best.count ||
        (count === best.count && name.localeCompare(best.name, "en", { numeric: true }) < 0);
      if (better) best = { name, count };
    }
    return best?.name;
  }

  /** The live pods on `node`, counting bindings in flight (stale assumptions are dropped). */
  #podCount(node: string): number {
    const pods = this.#pods.informer;
    let count = podsOnNode(pods, node).filter((p) => !isPodTerminated(p)).length;
    for (const [key, assumption] of this.#assumed) {
      if (assumption.node !== node) continue;
      const cached = pods.indexer.getByKey(key);
      if (cached?.metadata?.uid !== assumption.uid || (cached.spec?.nodeName ?? "") !== "") {
        this.#assumed.delete(key);
      } else count++;
    }
    return count;
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

/** The nodes that pass every filter, and why each other node does not (findNodesThatFitPod). */
function feasibleNodes(pod: Pod, nodes: readonly Node[]): { feasible: Node[]; reasons: string[] } {
  const feasible: Node[] = [];
  const reasons: string[] = [];
  for (const node of nodes) {
    const failure = nodeFitFailure(pod, node);
    if (failure === undefined) feasible.push(node);
    else reasons.push(failure);
  }
  return { feasible, reasons };
}
