import type { Pod, PodCondition } from "kubernetes-types/core/v1.js";

/** The pod's condition of `type`, if it has one. */
export function podCondition(pod: Pod, type: string): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

/** Whether the pod's Ready condition is True (`pkg/api/v1/pod/util.go` IsPodReady). */
export function isPodReady(pod: Pod): boolean {
  return podCondition(pod, "Ready")?.status === "True";
}

/**
 * Whether the pod has been Ready for at least `minReadySeconds` at `nowMs`
 * (`pkg/api/v1/pod/util.go` IsPodAvailable), i.e. counts as available.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  const ready = podCondition(pod, "Ready");
  if (ready?.status !== "True") return false;
  if (minReadySeconds <= 0) return true;
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= nowMs;
}

/** Whether the pod has terminated (phase Succeeded or Failed). */
export function isPodTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === "Succeeded" || phase === "Failed";
}

/**
 * Whether a controller counts the pod as one of its replicas (`pkg/controller/controller_utils.go`
 * IsPodActive): not terminated and not being deleted.
 */
export function isPodActive(pod: Pod): boolean {
  return !isPodTerminated(pod) && pod.metadata?.deletionTimestamp === undefined;
}

/**
 * How long, from `nowMs`, until the first of `pods` that is Ready but not yet available
 * becomes available (Ready for `minReadySeconds`), in ms; undefined when none is waiting or
 * `minReadySeconds` is 0. Workload controllers sync again then (kube requeues after
 * `minReadySeconds`; this wakes exactly when a count changes).
 */
export function msUntilNextAvailable(
  pods: readonly Pod[],
  minReadySeconds: number,
  nowMs: number,
): number | undefined {
  if (minReadySeconds <= 0) return undefined;
  let next: number | undefined;
  for (const pod of pods) {
    if (!isPodReady(pod) || isPodAvailable(pod, minReadySeconds, nowMs)) continue;
    const since = Date.parse(podCondition(pod, "Ready")?.lastTransitionTime ?? "");
    if (!Number.isFinite(since)) continue;
    const wait = Math.max(1, since + minReadySeconds * 1000 - nowMs);
    next = next === undefined ? wait : Math.min(next, wait);
  }
  return next;
}
