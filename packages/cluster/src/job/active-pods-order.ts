import type { Pod } from "kubernetes-types/core/v1.js";
import { isPodReady, podCondition } from "../controller-support/pod-state.js";

/** Pending < Unknown < Running (`pkg/controller/controller_utils.go` podPhaseToOrdinal). */
const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

function readyTimeMs(pod: Pod): number | undefined {
  const since = podCondition(pod, "Ready")?.lastTransitionTime;
  return since === undefined ? undefined : Date.parse(since);
}

function maxRestarts(pod: Pod): number {
  return Math.max(0, ...(pod.status?.containerStatuses ?? []).map((s) => s.restartCount ?? 0));
}

/** Orders an unknown (zero) time first, then later times before earlier ones (`afterOrZero`). */
function laterFirst(a: number | undefined, b: number | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return b - a;
}

/**
 * Sorts active pods so that the ones to delete first come first (`pkg/controller/controller_utils.go`
 * ActivePods): unscheduled before scheduled, Pending before Unknown before Running, not ready
 * before ready, ready for less time before ready for longer, more container restarts before
 * fewer, newer before older. Use with `Array.prototype.sort`.
 */
export function compareActivePods(a: Pod, b: Pod): number {
  const nodeA = a.spec?.nodeName ?? "";
  const nodeB = b.spec?.nodeName ?? "";
  if (nodeA !== nodeB && (nodeA === "" || nodeB === "")) return nodeA === "" ? -1 : 1;
  const phaseA = PHASE_ORDINAL[a.status?.phase ?? ""] ?? 0;
  const phaseB = PHASE_ORDINAL[b.status?.phase ?? ""] ?? 0;
  if (phaseA !== phaseB) return phaseA - phaseB;
  const readyA = isPodReady(a);
  const readyB = isPodReady(b);
  if (readyA !== readyB) return readyA ? 1 : -1;
  if (readyA && readyB) {
    const byReadyTime = laterFirst(readyTimeMs(a), readyTimeMs(b));
    if (byReadyTime !== 0) return byReadyTime;
  }
  const restarts = maxRestarts(b) - maxRestarts(a);
  if (restarts !== 0) return restarts;
  const createdA = a.metadata?.creationTimestamp;
  const createdB = b.metadata?.creationTimestamp;
  return laterFirst(
    createdA === undefined ? undefined : Date.parse(createdA),
    createdB === undefined ? undefined : Date.parse(createdB),
  );
}
