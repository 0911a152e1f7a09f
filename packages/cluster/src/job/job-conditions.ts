/**
 * A Job's conditions as kube-controller-manager reads and writes them
 * (`pkg/controller/job/util/utils.go` IsJobFinished, FinishedCondition; `job_controller.go`
 * newCondition, ensureJobConditionStatus).
 */
import type { Job, JobCondition } from "kubernetes-types/batch/v1.js";
import { formatTime } from "kubekit/apimachinery";

/** The condition of `type`, if the Job has one. */
export function jobCondition(job: Job, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type);
}

/**
 * The condition that finished the Job: its `Complete` or `Failed` condition with status True,
 * or undefined while it runs (IsJobFinished). `SuccessCriteriaMet` and `FailureTarget` do not
 * finish a Job: they announce it.
 */
export function finishedCondition(job: Job): JobCondition | undefined {
  return job.status?.conditions?.find(
    (c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True",
  );
}

/** Whether the Job has finished (a True `Complete` or `Failed` condition). */
export function isJobFinished(job: Job): boolean {
  return finishedCondition(job) !== undefined;
}

/** Whether the Job finished with a True `Complete` condition. */
export function isJobSucceeded(job: Job): boolean {
  return finishedCondition(job)?.type === "Complete";
}

/** A condition as the Job controller writes it: probe and transition time `nowMs`. */
export function newJobCondition(
  type: string,
  status: "True" | "False",
  reason: string,
  message: string,
  nowMs: number,
): JobCondition {
  const now = formatTime(nowMs);
  return {
    type,
    status,
    lastProbeTime: now,
    lastTransitionTime: now,
    ...(reason !== "" ? { reason } : {}),
    ...(message !== "" ? { message } : {}),
  };
}

/**
 * The terminal condition (`Failed` or `Complete`, True) that follows an interim one
 * (`FailureTarget`, `SuccessCriteriaMet`) once the Job's pods are gone, with the interim
 * condition's reason and message (`pkg/controller/job/job_controller.go` trackJobStatusAndRemoveFinalizers).
 */
export function terminalJobCondition(
  type: "Failed" | "Complete",
  interim: JobCondition,
  nowMs: number,
): JobCondition {
  return newJobCondition(type, "True", interim.reason ?? "", interim.message ?? "", nowMs);
}

/**
 * `conditions` with the condition of `type` set to `status`, `reason` and `message`
 * (ensureJobConditionStatus): an existing one that differs is replaced (new times), a missing
 * one is appended unless `status` is False (absent already means not true). Returns the list
 * and whether it changed; `conditions` is not modified.
 */
export function withJobCondition(
  conditions: readonly JobCondition[],
  type: string,
  status: "True" | "False",
  reason: string,
  message: string,
  nowMs: number,
): [JobCondition[], boolean] {
  const index = conditions.findIndex((c) => c.type === type);
  const next = newJobCondition(type, status, reason, message, nowMs);
  if (index !== -1) {
    const old = conditions[index] as JobCondition;
    if (old.status === status && (old.reason ?? "") === reason && (old.message ?? "") === message) {
      return [[...conditions], false];
    }
    const list = [...conditions];
    list[index] = next;
    return [list, true];
  }
  if (status === "False") return [[...conditions], false];
  return [[...conditions, next], true];
}
