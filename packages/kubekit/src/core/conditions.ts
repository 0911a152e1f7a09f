/**
 * Status conditions (`metav1.Condition` in an object's `status.conditions`) and apimachinery's
 * helpers over them (`pkg/api/meta/conditions.go`): set one by type keeping its
 * `lastTransitionTime` unless its status changes, remove one, find one, test one's status.
 */
import type { Condition } from "kubernetes-types/meta/v1.js";
import type { Clock } from "./clock.js";
import { realClock } from "./clock.js";
import { formatTime } from "./wire-time.js";

export type { Condition };

/** A condition's status values (`metav1.ConditionStatus`). */
export type ConditionStatus = "True" | "False" | "Unknown";

/**
 * The condition {@link setStatusCondition} writes: a `metav1.Condition` whose
 * `lastTransitionTime` may be left out (the clock's now is used when the status changes).
 */
export type ConditionInput = Omit<Condition, "lastTransitionTime"> & {
  /** When the status last changed (a `metav1.Time`); default: the clock's now. */
  readonly lastTransitionTime?: string;
};

/**
 * Sets the condition of `condition.type` in `conditions` and returns whether anything changed
 * (apimachinery's `meta.SetStatusCondition`):
 *
 * - no condition of that type: `condition` is appended, with `lastTransitionTime` set to
 *   `clock.now()` unless given;
 * - otherwise `status`, `reason`, `message` and `observedGeneration` are taken from
 *   `condition`; `lastTransitionTime` changes only when `status` does (to the given time, or
 *   `clock.now()`), so it records when the condition last transitioned, not when it was
 *   last written. An absent `observedGeneration` counts as 0, as Go's zero value.
 *
 * Mutates `conditions`: appends, or replaces the changed element with a new object (the
 * previous element is left untouched). Call it on your own copy of an object's status (e.g.
 * `obj.status.conditions ??= []` on an object you are about to write), never on an object
 * from a cache or lister. Returns false, and changes nothing, when the condition is already
 * as given.
 */
export function setStatusCondition(
  conditions: Condition[],
  condition: ConditionInput,
  clock: Clock = realClock,
): boolean {
  const index = conditions.findIndex((c) => c.type === condition.type);
  // An empty time is Go's zero `metav1.Time`: unset.
  const transitionTime = (): string => condition.lastTransitionTime || formatTime(clock.now());
  if (index === -1) {
    conditions.push({ ...condition, lastTransitionTime: transitionTime() });
    return true;
  }
  const existing = conditions[index] as Condition;
  const statusChanged = existing.status !== condition.status;
  const changed =
    statusChanged ||
    existing.reason !== condition.reason ||
    existing.message !== condition.message ||
    (existing.observedGeneration ?? 0) !== (condition.observedGeneration ?? 0);
  if (!changed) return false;
  const updated: Condition = {
    ...existing,
    status: condition.status,
    reason: condition.reason,
    message: condition.message,
  };
  if (condition.observedGeneration !== undefined) {
    updated.observedGeneration = condition.observedGeneration;
  } else {
    delete updated.observedGeneration;
  }
  if (statusChanged) {
    updated.lastTransitionTime = transitionTime();
  }
  conditions[index] = updated;
  return true;
}

/**
 * Removes the conditions of type `type` from `conditions` (mutating the array) and returns
 * whether there was one (apimachinery's `meta.RemoveStatusCondition`).
 */
export function removeStatusCondition(conditions: Condition[], type: string): boolean {
  const kept = conditions.filter((c) => c.type !== type);
  if (kept.length === conditions.length) return false;
  conditions.splice(0, conditions.length, ...kept);
  return true;
}

/**
 * The condition of type `type`, or `undefined` (also when `conditions` is absent, as an
 * object's `status.conditions` may be); apimachinery's `meta.FindStatusCondition`. The first
 * wins if there are several. The result is the array's element: do not mutate it.
 */
export function findStatusCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Whether the condition of type `type` is present with status `status`
 * (apimachinery's `meta.IsStatusConditionPresentAndEqual`).
 */
export function isStatusConditionPresentAndEqual(
  conditions: readonly Condition[] | undefined,
  type: string,
  status: ConditionStatus,
): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}

/** Whether the condition of type `type` is present and `"True"` (`meta.IsStatusConditionTrue`). */
export function isStatusConditionTrue(
  conditions: readonly Condition[] | undefined,
  type: string,
): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, "True");
}

/**
 * Whether the condition of type `type` is present and `"False"`
 * (`meta.IsStatusConditionFalse`).
 */
export function isStatusConditionFalse(
  conditions: readonly Condition[] | undefined,
  type: string,
): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, "False");
}
