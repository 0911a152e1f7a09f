/**
 * Which Nodes a DaemonSet runs on (`pkg/controller/daemon/daemon_controller.go`
 * NodeShouldRunDaemonPod and predicates).
 */
import type { DaemonSet } from "kubernetes-types/apps/v1.js";
import { nameOf } from "kubekit/apimachinery";
import type { Node, Taint } from "kubernetes-types/core/v1.js";
import { withDaemonTolerations } from "./daemon-pod.js";
import { matchesNodeAffinity, tolerates } from "../scheduler/scheduler-filters.js";

/** Whether a DaemonSet wants a pod on a node, and whether a pod it has there may stay. */
export interface DaemonPlacement {
  /** A daemon pod should run on the node. */
  readonly shouldRun: boolean;
  /** A daemon pod already on the node may keep running (it tolerates the node's NoExecute taints). */
  readonly shouldContinueRunning: boolean;
}

/**
 * Where `ds` runs: on `node` when the template's `nodeName` (if any) is the node, its
 * `nodeSelector` and required node affinity match the node, and the template with the daemon
 * tolerations tolerates every NoSchedule and NoExecute taint of the node. A pod already there
 * may keep running on a node it no longer fits only because of NoSchedule taints. Whether the
 * node is Ready or cordoned does not matter (daemon pods tolerate both).
 */
export function daemonPlacement(ds: DaemonSet, node: Node): DaemonPlacement {
  const nodeName = nameOf(node);
  const templateSpec = ds.spec?.template?.spec ?? { containers: [] };
  const wantedNode = templateSpec.nodeName ?? "";
  if (wantedNode !== "" && wantedNode !== nodeName) {
    return { shouldRun: false, shouldContinueRunning: false };
  }
  const spec = withDaemonTolerations({ ...templateSpec, nodeName });
  if (!matchesNodeAffinity({ spec }, node)) {
    return { shouldRun: false, shouldContinueRunning: false };
  }
  const untolerated = (effects: readonly string[]) => (taint: Taint) =>
    effects.includes(taint.effect) && !(spec.tolerations ?? []).some((t) => tolerates(t, taint));
  const taints = node.spec?.taints ?? [];
  if (!taints.some(untolerated(["NoSchedule", "NoExecute"]))) {
    return { shouldRun: true, shouldContinueRunning: true };
  }
  return { shouldRun: false, shouldContinueRunning: !taints.some(untolerated(["NoExecute"])) };
}
