import type {
  Node,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  Pod,
  Taint,
  Toleration,
} from "kubernetes-types/core/v1.js";

/**
 * kube-scheduler's filter plugins that the simulated scheduler runs, in its order
 * (`pkg/scheduler/framework/plugins/`): NodeUnschedulable, NodeAffinity (nodeSelector and
 * required node affinity) and TaintToleration. Not simulated: resource fit (requests against
 * allocatable, the node's pod count), pod (anti-)affinity, topology spread, volumes and ports.
 */

/** NodeUnschedulable's reason (`nodeunschedulable/node_unschedulable.go` ErrReasonUnschedulable). */
export const REASON_NODE_UNSCHEDULABLE = "node(s) were unschedulable";

/** NodeAffinity's reason (`nodeaffinity/node_affinity.go` ErrReasonPod). */
export const REASON_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector";

/** The taint kube's node lifecycle controller puts on a node that is not Ready. */
const NOT_READY_TAINT: Taint = { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" };

/** The taint a cordoned node carries (`TaintNodeUnschedulable`), which tolerating lets a pod on it. */
const UNSCHEDULABLE_TAINT: Taint = {
  key: "node.kubernetes.io/unschedulable",
  effect: "NoSchedule",
};

/** Whether `toleration` tolerates `taint` (`staging/src/k8s.io/api/core/v1/toleration.go` ToleratesTaint). */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  // An empty key with operator Exists tolerates every taint (of the effect, if given).
  switch (toleration.operator ?? "Equal") {
    case "Exists":
      return true;
    case "Equal":
      return (toleration.value ?? "") === (taint.value ?? "");
    default:
      return false;
  }
}

/** Whether `value` satisfies a NodeSelectorRequirement on a label or field of that value. */
function requirementMatches(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      // `staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity`: both sides
      // must parse as integers.
      if (value === undefined || values.length !== 1) return false;
      const have = Number.parseInt(value, 10);
      const want = Number.parseInt(values[0] ?? "", 10);
      if (!Number.isFinite(have) || !Number.isFinite(want)) return false;
      return req.operator === "Gt" ? have > want : have < want;
    }
    default:
      return false;
  }
}

/** Whether `node` matches a term: every expression and field (metadata.name) requirement; an empty term matches nothing. */
function termMatches(term: NodeSelectorTerm, node: Node): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  return (
    expressions.every((req) => requirementMatches(req, labels[req.key])) &&
    fields.every(
      (req) => req.key === "metadata.name" && requirementMatches(req, node.metadata?.name),
    )
  );
}

/**
 * Whether the pod's `nodeSelector` and required node affinity admit `node`
 * (`component-helpers/scheduling/corev1/nodeaffinity` GetRequiredNodeAffinity): every
 * nodeSelector label, and at least one of the required nodeSelectorTerms.
 */
export function matchesNodeAffinity(pod: Pod, node: Node): boolean {
  const selector = pod.spec?.nodeSelector;
  if (selector !== undefined) {
    const labels = node.metadata?.labels ?? {};
    for (const key in selector) if (labels[key] !== selector[key]) return false;
  }
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required === undefined) return true;
  return required.nodeSelectorTerms.some((term) => termMatches(term, node));
}

/** Whether the node's Ready condition is True. */
function isNodeReady(node: Node): boolean {
  for (const c of node.status?.conditions ?? []) {
    if (c.type === "Ready" && c.status === "True") return true;
  }
  return false;
}

/** Whether one of `tolerations` tolerates `taint`. */
function isTolerated(tolerations: readonly Toleration[], taint: Taint): boolean {
  for (const toleration of tolerations) if (tolerates(toleration, taint)) return true;
  return false;
}

/** Whether `taint` keeps a pod with `tolerations` off its node (NoSchedule and NoExecute do). */
function repels(taint: Taint, tolerations: readonly Toleration[]): boolean {
  return (
    (taint.effect === "NoSchedule" || taint.effect === "NoExecute") &&
    !isTolerated(tolerations, taint)
  );
}

/** TaintToleration's reason for `taint` (`tainttoleration/taint_toleration.go` Filter). */
function untoleratedTaintReason(taint: Taint): string {
  return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ""}}`;
}

/**
 * Why `pod` cannot run on `node`, as kube-scheduler's filter plugins word it, or undefined
 * when it fits. A node that is not Ready counts as tainted `node.kubernetes.io/not-ready`
 * (what kube's node lifecycle controller does), after its own taints, so only pods tolerating
 * it go there. Allocates nothing when the pod fits (it runs for every node per decision).
 */
export function nodeFitFailure(pod: Pod, node: Node): string | undefined {
  const tolerations = pod.spec?.tolerations ?? [];
  if (node.spec?.unschedulable === true && !isTolerated(tolerations, UNSCHEDULABLE_TAINT)) {
    return REASON_NODE_UNSCHEDULABLE;
  }
  if (!matchesNodeAffinity(pod, node)) return REASON_NODE_AFFINITY;
  for (const taint of node.spec?.taints ?? []) {
    if (repels(taint, tolerations)) return untoleratedTaintReason(taint);
  }
  if (!isNodeReady(node) && repels(NOT_READY_TAINT, tolerations)) {
    return untoleratedTaintReason(NOT_READY_TAINT);
  }
  return undefined;
}

/**
 * The message of a pod that fits no node (`pkg/scheduler/framework/types.go` FitError.Error):
 * how many nodes are available, then each reason with how many nodes gave it, sorted as
 * text, then PostFilter's preemption verdict. Every simulated filter is
 * UnschedulableAndUnresolvable, so preemption is "not helpful" on every node. No nodes at
 * all: kube's ErrNoNodesAvailable.
 */
export function fitErrorMessage(nodeCount: number, reasons: readonly string[]): string {
  // `pkg/scheduler/schedule_one.go` ErrNoNodesAvailable.
  if (nodeCount === 0) return "no nodes available to schedule pods";
  const histogram = new Map<string, number>();
  for (const reason of reasons) histogram.set(reason, (histogram.get(reason) ?? 0) + 1);
  const counted = [...histogram].map(([reason, count]) => `${count} ${reason}`).sort();
  return (
    `0/${nodeCount} nodes are available: ${counted.join(", ")}. ` +
    `preemption: 0/${nodeCount} nodes are available: ${nodeCount} Preemption is not helpful for scheduling.`
  );
}
