/**
 * What a DaemonSet's pods need node by node (`pkg/controller/daemon/daemon_controller.go`
 * manage, podsShouldBeOnNode, getNodesToDaemonPods and getUnscheduledPodsWithoutNode): where
 * pods are missing, which are surplus, failed or on a node they no longer fit.
 */
import type { DaemonSet } from "kubernetes-types/apps/v1.js";
import { nameOf } from "kubekit/apimachinery";
import type { Node, Pod } from "kubernetes-types/core/v1.js";
import { CONTROLLER_REVISION_HASH_LABEL } from "../controller-support/controller-revisions.js";
import { oldestDaemonPodsFirst, targetNodeOf } from "./daemon-pod.js";
import { daemonPlacement } from "./daemon-set-placement.js";
import type { FailedPodBackoff } from "./failed-pod-backoff.js";
import { scaledIntOrPercent } from "../controller-support/int-or-percent.js";
import { isPodAvailable, isPodReady, isPodTerminated } from "../controller-support/pod-state.js";

/**
 * The DaemonSet's pods by the node they are for ({@link targetNodeOf}); pods naming no node
 * are left out, and so are terminated pods being deleted unless `includeDeletedTerminal`.
 */
export function podsByNode(
  pods: readonly Pod[],
  includeDeletedTerminal: boolean,
): Map<string, Pod[]> {
  const byNode = new Map<string, Pod[]>();
  for (const pod of pods) {
    if (
      !includeDeletedTerminal &&
      isPodTerminated(pod) &&
      pod.metadata?.deletionTimestamp !== undefined
    ) {
      continue;
    }
    const node = targetNodeOf(pod);
    if (node === undefined) continue;
    byNode.set(node, [...(byNode.get(node) ?? []), pod]);
  }
  return byNode;
}

/**
 * Whether the DaemonSet may run a new pod next to an old one on a node during a rolling
 * update (`AllowsSurge`: RollingUpdate with a non-zero `maxSurge`).
 */
export function allowsSurge(ds: DaemonSet): boolean {
  const strategy = ds.spec?.updateStrategy;
  if (strategy?.type !== "RollingUpdate") return false;
  return scaledIntOrPercent(strategy.rollingUpdate?.maxSurge, 1, true) !== 0;
}

/** An Event the plan asks for (recorded on the DaemonSet). */
export interface PlannedEvent {
  readonly type: "Normal" | "Warning";
  readonly reason: string;
  readonly message: string;
}

/** What {@link planDaemonPods} decided. */
export interface DaemonPodPlan {
  /** Nodes that need a daemon pod. */
  readonly createOn: string[];
  /** Pods to delete: surplus, failed or succeeded, or on a node they no longer fit. */
  readonly remove: Pod[];
  /**
   * Pods bound to a Node that no longer exists, to delete at once (kube's pod garbage
   * collector does this for every pod; it is not simulated).
   */
  readonly removeNow: Pod[];
  readonly events: PlannedEvent[];
  /** When a failed pod waits out its back-off: sync again after this long. */
  readonly retryAfterMs: number | undefined;
}

/** What {@link planDaemonPods} plans from. */
export interface DaemonPodPlanInput {
  readonly ds: DaemonSet;
  readonly nodes: readonly Node[];
  /** The DaemonSet's pods by node ({@link podsByNode} without deleted terminal pods). */
  readonly byNode: ReadonlyMap<string, readonly Pod[]>;
  /** The current revision's hash. */
  readonly hash: string;
  readonly nowMs: number;
  /** Back-off between replacements of failed pods, per DaemonSet and node. */
  readonly backoff: FailedPodBackoff;
  /** The DaemonSet's key, prefix of its back-off keys. */
  readonly key: string;
}

/**
 * The pods to create and delete so that every node the DaemonSet should run on has one daemon
 * pod and no other node has any (`manage`):
 *
 * - a node that should run a pod and has none (not even one being deleted) gets one;
 * - on a node where pods may stay: a Failed pod is deleted (Warning `FailedDaemonPod`; the
 *   next replacement on that node waits 1 s, doubling to 15 min), a Succeeded one too
 *   (`SucceededDaemonPod`); without surge all but the oldest running pod are deleted; with
 *   surge an old and a new pod may coexist until the new one is available (or the old one is
 *   not Ready), every other pod is deleted;
 * - on a node where pods may not stay, every pod is deleted;
 * - a pod for a node that no longer exists is deleted: an unbound one as kube's DaemonSet
 *   controller does, a bound one at once (as kube's pod garbage collector would).
 */
export function planDaemonPods(input: DaemonPodPlanInput): DaemonPodPlan {
  const { ds, byNode, hash, nowMs, backoff } = input;
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  const surge = allowsSurge(ds);
  const createOn: string[] = [];
  const remove: Pod[] = [];
  const removeNow: Pod[] = [];
  const events: PlannedEvent[] = [];
  let retryAfterMs: number | undefined;
  const nodeNames = new Set<string>();

  for (const node of input.nodes) {
    const nodeName = nameOf(node);
    nodeNames.add(nodeName);
    const { shouldRun, shouldContinueRunning } = daemonPlacement(ds, node);
    const pods = byNode.get(nodeName) ?? [];
    const exists = pods.length > 0;
    if (shouldRun && !exists) {
      createOn.push(nodeName);
    } else if (shouldContinueRunning) {
      const running: Pod[] = [];
      for (const pod of pods) {
        if (pod.metadata?.deletionTimestamp !== undefined) continue;
        const phase = pod.status?.phase;
        const podName = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
        if (phase === "Failed") {
          const backoffKey = `${input.key}/${nodeName}`;
          const wait = backoff.remainingMs(backoffKey, nowMs);
          if (wait > 0) {
            retryAfterMs = Math.min(retryAfterMs ?? wait, wait);
            continue;
          }
          backoff.next(backoffKey, nowMs);
          events.push({
            type: "Warning",
            reason: "FailedDaemonPod",
            message: `Found failed daemon pod ${podName} on node ${nodeName}, will try to kill it`,
          });
          remove.push(pod);
        } else if (phase === "Succeeded") {
          events.push({
            type: "Normal",
            reason: "SucceededDaemonPod",
            message: `Found succeeded daemon pod ${podName} on node ${nodeName}, will try to delete it`,
          });
          remove.push(pod);
        } else {
          running.push(pod);
        }
      }
      if (running.length <= 1) continue;
      const oldestFirst = oldestDaemonPodsFirst(running);
      if (!surge) {
        remove.push(...oldestFirst.slice(1));
        continue;
      }
      let oldestNew: Pod | undefined;
      let oldestOld: Pod | undefined;
      for (const pod of oldestFirst) {
        const isNew = pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash;
        if (isNew && oldestNew === undefined) oldestNew = pod;
        else if (!isNew && oldestOld === undefined) oldestOld = pod;
        else remove.push(pod);
      }
      if (
        oldestNew !== undefined &&
        oldestOld !== undefined &&
        (!isPodReady(oldestOld) || isPodAvailable(oldestNew, minReadySeconds, nowMs))
      ) {
        remove.push(oldestOld);
      }
    } else if (exists) {
      remove.push(...pods.filter((pod) => pod.metadata?.deletionTimestamp === undefined));
    }
  }

  for (const [nodeName, pods] of byNode) {
    if (nodeNames.has(nodeName)) continue;
    for (const pod of pods) {
      if ((pod.spec?.nodeName ?? "") === "") remove.push(pod);
      else removeNow.push(pod);
    }
  }
  return { createOn, remove, removeNow, events, retryAfterMs };
}
