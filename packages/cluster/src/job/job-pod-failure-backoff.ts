/**
 * The Job controller's delay before replacing failed pods (`pkg/controller/job/backoff_utils.go`):
 * 10 s after the first failure since the last success, doubling with each further failure, at
 * most 10 minutes (`job_controller.go` DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff).
 * Like kube's, the record lives in the controller's memory: a restarted controller forgets it.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { podCondition } from "../controller-support/pod-state.js";

/** The first delay after a pod failure (DefaultJobPodFailureBackOff). */
export const POD_FAILURE_BACKOFF_INITIAL_MS = 10_000;
/** The longest delay (MaxJobPodFailureBackOff). */
export const POD_FAILURE_BACKOFF_MAX_MS = 10 * 60_000;

function parseTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * When a pod finished (getFinishedTime): the latest `finishedAt` when every container has
 * terminated, else when its Ready condition turned False, else its deletion time less the
 * grace period, else its creation.
 */
export function podFinishedTimeMs(pod: Pod): number {
  const statuses = pod.status?.containerStatuses ?? [];
  let latest: number | undefined;
  let allTerminated = statuses.length > 0;
  for (const status of statuses) {
    const finished = parseTime(status.state?.terminated?.finishedAt);
    if (finished === undefined) {
      allTerminated = false;
      break;
    }
    latest = latest === undefined ? finished : Math.max(latest, finished);
  }
  if (allTerminated && latest !== undefined) return latest;
  const ready = podCondition(pod, "Ready");
  const readyFalse = ready?.status === "False" ? parseTime(ready.lastTransitionTime) : undefined;
  if (readyFalse !== undefined) return readyFalse;
  const deletion = parseTime(pod.metadata?.deletionTimestamp);
  if (deletion !== undefined)
    return deletion - (pod.metadata?.deletionGracePeriodSeconds ?? 0) * 1000;
  return parseTime(pod.metadata?.creationTimestamp) ?? 0;
}

/** A Job's pod failures since its last success (kube's `backoffRecord`). */
export interface BackoffRecord {
  readonly key: string;
  readonly failuresAfterLastSuccess: number;
  readonly lastFailureMs?: number;
}

/**
 * The back-off records of the controller's Jobs, by Job key (kube's `backoffStore`). A sync
 * computes the next record from the pods it newly counts ({@link next}) and stores it once its
 * status write succeeded ({@link commit}), so a failed write does not count pods twice.
 */
export class PodFailureBackoffStore {
  readonly #records = new Map<string, BackoffRecord>();

  /**
   * The record after `newSucceeded` and `newFailed` pods (newBackoffRecord): failures add up
   * until a pod succeeds; a success resets the count to the failures that finished after it.
   */
  next(key: string, newSucceeded: readonly Pod[], newFailed: readonly Pod[]): BackoffRecord {
    const old = this.#records.get(key) ?? { key, failuresAfterLastSuccess: 0 };
    const failedTimes = newFailed.map(podFinishedTimeMs).sort((a, b) => a - b);
    if (newSucceeded.length === 0) {
      if (failedTimes.length === 0) return old;
      return {
        key,
        failuresAfterLastSuccess: old.failuresAfterLastSuccess + failedTimes.length,
        lastFailureMs: failedTimes.at(-1) as number,
      };
    }
    const lastSuccess = Math.max(...newSucceeded.map(podFinishedTimeMs));
    const after = failedTimes.filter((t) => t > lastSuccess);
    return after.length === 0
      ? { key, failuresAfterLastSuccess: 0 }
      : { key, failuresAfterLastSuccess: after.length, lastFailureMs: after.at(-1) as number };
  }

  /** Stores `record` (updateBackoffRecord). */
  commit(record: BackoffRecord): void {
    this.#records.set(record.key, record);
  }

  /** Forgets the Job `key` (removeBackoffRecord: the Job finished or is gone). */
  remove(key: string): void {
    this.#records.delete(key);
  }

  /**
   * How long, at `nowMs`, until a replacement pod may be created (getRemainingTime): 0 without
   * failures since the last success, else the delay for that many failures less the time
   * since the last one.
   */
  static remainingMs(record: BackoffRecord, nowMs: number): number {
    if (record.failuresAfterLastSuccess === 0 || record.lastFailureMs === undefined) return 0;
    let delay = POD_FAILURE_BACKOFF_INITIAL_MS;
    for (
      let i = 1;
      i < record.failuresAfterLastSuccess && delay < POD_FAILURE_BACKOFF_MAX_MS;
      i++
    ) {
      delay = Math.min(delay * 2, POD_FAILURE_BACKOFF_MAX_MS);
    }
    return Math.max(0, delay - (nowMs - record.lastFailureMs));
  }
}
