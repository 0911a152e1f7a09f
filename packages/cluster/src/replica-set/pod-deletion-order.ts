import type { Pod } from "kubernetes-types/core/v1.js";
import { annotationOf } from "kubekit/apimachinery";
import { isPodActive, isPodReady, podCondition } from "../controller-support/pod-state.js";

/** The annotation that makes a pod cheaper (lower) or dearer to delete on scale-down. */
export const POD_DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost";

/** Pending < Unknown < Running; every other phase ranks as Pending (a Go map's zero value). */
const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

/** The pod's deletion cost (an int32 annotation; absent or invalid: 0). */
function deletionCost(pod: Pod): number {
  const text = annotationOf(pod, POD_DELETION_COST_ANNOTATION);
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return 0;
  const value = Number(text);
  return value >= -2147483648 && value <= 2147483647 ? value : 0;
}

/** When the pod became Ready (ms), or undefined when it is not Ready or the time is unknown. */
function readySince(pod: Pod): number | undefined {
  if (!isPodReady(pod)) return undefined;
  return timeOf(podCondition(pod, "Ready")?.lastTransitionTime);
}

function timeOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

function maxRestarts(pod: Pod): number {
  return Math.max(0, ...(pod.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));
}

/** `afterOrZero`: a zero (unknown) time ranks first, then the later time. */
function afterOrZero(a: number | undefined, b: number | undefined): boolean {
  if (a === undefined || b === undefined) return a === undefined;
  return a > b;
}

/** The difference of the two times' ages on a log2 scale of nanoseconds (`logarithmicRankDiff`). */
function logarithmicRankDiff(a: number, b: number, nowMs: number): number {
  const rank = (t: number): number => {
    const ageNs = (nowMs - t) * 1e6;
    return ageNs > 0 ? Math.floor(Math.log2(ageNs)) : -1;
  };
  return rank(a) - rank(b);
}

/**
 * Whether `a`'s time ranks before `b`'s with kube's LogarithmicScaleDown (on by default since
 * 1.22): ages in the same power-of-two bucket tie and are ordered by uid, so scale-down does
 * not always pick the very newest pods.
 */
function timeRanksFirst(
  a: Pod,
  b: Pod,
  ta: number | undefined,
  tb: number | undefined,
  nowMs: number,
): boolean {
  if (ta === undefined || tb === undefined) return afterOrZero(ta, tb);
  const diff = logarithmicRankDiff(ta, tb, nowMs);
  if (diff === 0) return (a.metadata?.uid ?? "") < (b.metadata?.uid ?? "");
  return diff < 0;
}

interface RankedPod {
  readonly pod: Pod;
  /** How many active pods of the same controller family share its node. */
  readonly rank: number;
}

/**
 * Whether `i` should be deleted before `j` (`pkg/controller/controller_utils.go`
 * ActivePodsWithRanks.Less): unassigned < assigned; Pending < Unknown < Running; not ready <
 * ready; lower pod-deletion-cost < higher; more pods of the family on the node < fewer; ready
 * for less time < more; more container restarts < fewer; newer < older.
 */
function deleteFirst(i: RankedPod, j: RankedPod, nowMs: number): boolean {
  const a = i.pod;
  const b = j.pod;
  const nodeA = a.spec?.nodeName ?? "";
  const nodeB = b.spec?.nodeName ?? "";
  if (nodeA !== nodeB && (nodeA === "" || nodeB === "")) return nodeA === "";
  const phaseA = PHASE_ORDINAL[a.status?.phase ?? ""] ?? 0;
  const phaseB = PHASE_ORDINAL[b.status?.phase ?? ""] ?? 0;
  if (phaseA !== phaseB) return phaseA < phaseB;
  const readyA = isPodReady(a);
  if (readyA !== isPodReady(b)) return !readyA;
  const costA = deletionCost(a);
  const costB = deletionCost(b);
  if (costA !== costB) return costA < costB;
  if (i.rank !== j.rank) return i.rank > j.rank;
  if (readyA) {
    const sinceA = readySince(a);
    const sinceB = readySince(b);
    if (sinceA !== sinceB) return timeRanksFirst(a, b, sinceA, sinceB, nowMs);
  }
  const restartsA = maxRestarts(a);
  const restartsB = maxRestarts(b);
  if (restartsA !== restartsB) return restartsA > restartsB;
  const createdA = timeOf(a.metadata?.creationTimestamp);
  const createdB = timeOf(b.metadata?.creationTimestamp);
  if (createdA !== createdB) return timeRanksFirst(a, b, createdA, createdB, nowMs);
  return false;
}

/**
 * The `count` pods of `pods` a controller deletes first when it has too many
 * (`pkg/controller/replicaset/replica_set.go` getPodsToDelete): all of them when `count`
 * covers them, else the least valuable by kube's ranking (see {@link deleteFirst}), where a
 * pod's rank is how many active pods of `relatedPods` (the pods of every ReplicaSet of the
 * same Deployment) run on its node, so scale-down spreads the survivors over the nodes.
 */
export function podsToDelete(
  pods: readonly Pod[],
  relatedPods: readonly Pod[],
  count: number,
  nowMs: number,
): Pod[] {
  if (count >= pods.length) return [...pods];
  const onNode = new Map<string, number>();
  for (const pod of relatedPods) {
    if (!isPodActive(pod)) continue;
    const node = pod.spec?.nodeName ?? "";
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  const ranked = pods.map((pod) => ({ pod, rank: onNode.get(pod.spec?.nodeName ?? "") ?? 0 }));
  ranked.sort((i, j) => (deleteFirst(i, j, nowMs) ? -1 : deleteFirst(j, i, nowMs) ? 1 : 0));
  return ranked.slice(0, count).map((r) => r.pod);
}
