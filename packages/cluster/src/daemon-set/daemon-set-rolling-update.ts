/**
 * One step of a DaemonSet's RollingUpdate (`pkg/controller/daemon/update.go` rollingUpdate,
 * findUpdatedPodsOnNode and updatedDesiredNodeCounts).
 */
import type { DaemonSet } from "kubernetes-types/apps/v1.js";
import { nameOf } from "kubekit/apimachinery";
import type { Node, Pod } from "kubernetes-types/core/v1.js";
import { isDaemonPodUpdated } from "./daemon-pod.js";
import { daemonPlacement } from "./daemon-set-placement.js";
import { scaledIntOrPercent } from "../controller-support/int-or-percent.js";
import { isPodAvailable } from "../controller-support/pod-state.js";

/** What a rolling update step does: old pods to delete, nodes to surge a new pod onto. */
export interface RollingUpdateStep {
  readonly remove: Pod[];
  readonly createOn: string[];
}

/**
 * The live new and old pod of a node, or undefined when it has more than one of either
 * (the manage pass removes the extra ones first).
 */
function updatedPodsOnNode(
  ds: DaemonSet,
  pods: readonly Pod[],
  hash: string,
): { newPod: Pod | undefined; oldPod: Pod | undefined } | undefined {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp !== undefined) continue;
    if (isDaemonPodUpdated(pod, ds, hash)) {
      if (newPod !== undefined) return undefined;
      newPod = pod;
    } else {
      if (oldPod !== undefined) return undefined;
      oldPod = pod;
    }
  }
  return { newPod, oldPod };
}

/**
 * The next step of a RollingUpdate, given the DaemonSet's pods by node. `maxUnavailable` and
 * `maxSurge` are scaled against the number of nodes that should run a pod (percentages
 * rounded up); with both 0, one node may be unavailable.
 *
 * - Without surge: old pods are deleted (the manage pass then creates their replacements) on
 *   as many nodes as `maxUnavailable` leaves room for, counting nodes without an available
 *   new pod as unavailable; old pods that are not available are replaced regardless.
 * - With surge: a new pod is created next to an old one on up to `maxSurge` nodes at a time
 *   (at once where the old pod is not available); an old pod is deleted once the new pod
 *   beside it is available.
 *
 * Deleted pods do not count as unavailable, so an update progresses on nodes that are down.
 *
 * @throws {TypeError} for a `maxUnavailable` or `maxSurge` that is not an integer or percentage.
 */
export function rollingUpdateStep(
  ds: DaemonSet,
  nodes: readonly Node[],
  byNode: ReadonlyMap<string, readonly Pod[]>,
  hash: string,
  nowMs: number,
): RollingUpdateStep {
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  const available = (pod: Pod): boolean => isPodAvailable(pod, minReadySeconds, nowMs);
  const candidates = new Map(byNode);
  let desired = 0;
  for (const node of nodes) {
    if (!daemonPlacement(ds, node).shouldRun) continue;
    desired++;
    const name = nameOf(node);
    if (!candidates.has(name)) candidates.set(name, []);
  }
  const rolling = ds.spec?.updateStrategy?.rollingUpdate;
  let maxUnavailable = scaledIntOrPercent(rolling?.maxUnavailable, desired, true);
  const maxSurge = scaledIntOrPercent(rolling?.maxSurge, desired, true);
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;

  if (maxSurge === 0) {
    let unavailable = 0;
    const replaceNow: Pod[] = [];
    const oldCandidates: Pod[] = [];
    for (const pods of candidates.values()) {
      const found = updatedPodsOnNode(ds, pods, hash);
      if (found === undefined) {
        unavailable++;
        continue;
      }
      const { newPod, oldPod } = found;
      if ((oldPod === undefined) === (newPod === undefined)) {
        unavailable++;
      } else if (newPod !== undefined) {
        if (!available(newPod)) unavailable++;
      } else if (oldPod !== undefined) {
        if (!available(oldPod)) replaceNow.push(oldPod);
        else if (unavailable < maxUnavailable) oldCandidates.push(oldPod);
      }
    }
    const room = Math.min(Math.max(0, maxUnavailable - unavailable), oldCandidates.length);
    return { remove: [...replaceNow, ...oldCandidates.slice(0, room)], createOn: [] };
  }

  const remove: Pod[] = [];
  const surgeNow: string[] = [];
  const surgeCandidates: string[] = [];
  let surging = 0;
  for (const [nodeName, pods] of candidates) {
    const found = updatedPodsOnNode(ds, pods, hash);
    if (found === undefined) {
      surging++;
      continue;
    }
    const { newPod, oldPod } = found;
    if (oldPod === undefined) continue;
    if (newPod === undefined) {
      if (!available(oldPod)) surgeNow.push(nodeName);
      else if (surging < maxSurge) surgeCandidates.push(nodeName);
    } else if (!available(newPod)) {
      surging++;
    } else {
      remove.push(oldPod);
    }
  }
  const room = Math.min(Math.max(0, maxSurge - surging), surgeCandidates.length);
  return { remove, createOn: [...surgeNow, ...surgeCandidates.slice(0, room)] };
}
