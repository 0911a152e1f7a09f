import type { Condition } from "kubernetes-types/meta/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from "kubernetes-types/policy/v1.js";
import { setStatusCondition, type Clock } from "kubekit";
import { scaledIntOrPercent } from "../controller-support/int-or-percent.js";
import { isPodReady } from "../controller-support/pod-state.js";

/** How long a pod recorded in `disruptedPods` may take to be deleted (kube's `DeletionTimeout`, 2 min). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

/** The condition the disruption controller keeps (`policy.DisruptionAllowedCondition`). */
export const DISRUPTION_ALLOWED = "DisruptionAllowed";

/** What {@link budgetStatus} computes for one PodDisruptionBudget. */
export interface BudgetStatusResult {
  /** The status to write. */
  readonly status: PodDisruptionBudgetStatus;
  /** When to sync again (a recorded disruption expires), in ms from now. */
  readonly recheckAfterMs?: number;
}

/**
 * The expected pod count and the healthy pods the budget wants (`getExpectedPodCount`):
 * `maxUnavailable` (int or percent of the controllers' scale, rounded up) leaves
 * `expectedPods - maxUnavailable` (never below 0); an integer `minAvailable` is itself with
 * the matching pod count expected; a percent `minAvailable` is that share of the scale,
 * rounded up. `scaleOf` gives the controllers' total scale of `pods`.
 *
 * @throws {Error} from `scaleOf` (a pod whose controller is not found), or for a malformed
 *   percent.
 */
export function expectedPodCount(
  pdb: PodDisruptionBudget,
  pods: readonly Pod[],
  scaleOf: (pods: readonly Pod[]) => number,
): { expectedPods: number; desiredHealthy: number } {
  const { maxUnavailable, minAvailable } = pdb.spec ?? {};
  if (maxUnavailable !== undefined && maxUnavailable !== null) {
    const expectedPods = scaleOf(pods);
    const unavailable = scaledIntOrPercent(maxUnavailable, expectedPods, true);
    return { expectedPods, desiredHealthy: Math.max(0, expectedPods - unavailable) };
  }
  if (typeof minAvailable === "number") {
    return { expectedPods: pods.length, desiredHealthy: minAvailable };
  }
  if (typeof minAvailable === "string") {
    const expectedPods = scaleOf(pods);
    return { expectedPods, desiredHealthy: scaledIntOrPercent(minAvailable, expectedPods, true) };
  }
  return { expectedPods: 0, desiredHealthy: 0 };
}

/**
 * `buildDisruptedPodMap`: the recorded disruptions still pending — pods not being deleted
 * whose eviction is younger than {@link DELETION_TIMEOUT_MS} — and when the first expires.
 */
function pendingDisruptions(
  pdb: PodDisruptionBudget,
  pods: readonly Pod[],
  nowMs: number,
): { disrupted: Record<string, string>; recheckAfterMs?: number } {
  const recorded = pdb.status?.disruptedPods ?? {};
  const disrupted: Record<string, string> = {};
  let recheck: number | undefined;
  for (const pod of pods) {
    const name = pod.metadata?.name ?? "";
    const at = recorded[name];
    if (pod.metadata?.deletionTimestamp !== undefined || at === undefined) continue;
    const expires = Date.parse(at) + DELETION_TIMEOUT_MS;
    if (!(expires > nowMs)) continue;
    disrupted[name] = at;
    recheck = Math.min(recheck ?? Infinity, expires - nowMs);
  }
  return { disrupted, ...(recheck !== undefined ? { recheckAfterMs: recheck } : {}) };
}

/**
 * The status the disruption controller writes (`trySync`, `countHealthyPods`,
 * `updatePdbStatus`): healthy pods are Ready, not being deleted and not pending a disruption;
 * `disruptionsAllowed = currentHealthy - desiredHealthy` (0 when negative or when no pod is
 * expected); the `DisruptionAllowed` condition True (`SufficientPods`) or False
 * (`InsufficientPods`); `observedGeneration` the budget's generation.
 */
export function budgetStatus(
  pdb: PodDisruptionBudget,
  pods: readonly Pod[],
  scaleOf: (pods: readonly Pod[]) => number,
  clock: Clock,
): BudgetStatusResult {
  const { expectedPods, desiredHealthy } = expectedPodCount(pdb, pods, scaleOf);
  const { disrupted, recheckAfterMs } = pendingDisruptions(pdb, pods, clock.now());
  const currentHealthy = pods.filter(
    (pod) =>
      pod.metadata?.deletionTimestamp === undefined &&
      disrupted[pod.metadata?.name ?? ""] === undefined &&
      isPodReady(pod),
  ).length;
  const difference = currentHealthy - desiredHealthy;
  const disruptionsAllowed = expectedPods <= 0 || difference <= 0 ? 0 : difference;
  const status: PodDisruptionBudgetStatus = {
    ...(Object.keys(disrupted).length > 0 ? { disruptedPods: disrupted } : {}),
    disruptionsAllowed,
    currentHealthy,
    desiredHealthy,
    expectedPods,
    observedGeneration: pdb.metadata?.generation ?? 0,
    conditions: withCondition(
      pdb,
      disruptionsAllowed > 0
        ? { status: "True", reason: "SufficientPods", message: "" }
        : { status: "False", reason: "InsufficientPods", message: "" },
      clock,
    ),
  };
  return { status, ...(recheckAfterMs !== undefined ? { recheckAfterMs } : {}) };
}

/**
 * `failSafe`: a budget whose expected pods cannot be computed allows no disruption, with the
 * `DisruptionAllowed` condition False for reason `SyncFailed` and the error's message.
 */
export function failSafeStatus(
  pdb: PodDisruptionBudget,
  message: string,
  clock: Clock,
): PodDisruptionBudgetStatus {
  return {
    ...pdb.status,
    disruptionsAllowed: 0,
    currentHealthy: pdb.status?.currentHealthy ?? 0,
    desiredHealthy: pdb.status?.desiredHealthy ?? 0,
    expectedPods: pdb.status?.expectedPods ?? 0,
    observedGeneration: pdb.metadata?.generation ?? 0,
    conditions: withCondition(pdb, { status: "False", reason: "SyncFailed", message }, clock),
  };
}

/** The budget's conditions with `DisruptionAllowed` set (a copy; the cached budget is untouched). */
function withCondition(
  pdb: PodDisruptionBudget,
  condition: { status: "True" | "False"; reason: string; message: string },
  clock: Clock,
): Condition[] {
  const conditions = [...(pdb.status?.conditions ?? [])];
  setStatusCondition(
    conditions,
    {
      type: DISRUPTION_ALLOWED,
      ...condition,
      observedGeneration: pdb.metadata?.generation ?? 0,
    },
    clock,
  );
  return conditions;
}
