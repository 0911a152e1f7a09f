/**
 * One sync of a Job (`pkg/controller/job/job_controller.go` syncJob, manageJob,
 * trackJobStatusAndRemoveFinalizers): the Job's pods from the cache, pods created or deleted
 * towards `parallelism` and `completions`, terminated pods counted through the tracking
 * finalizer and `status.uncountedTerminatedPods`, and the Job's conditions.
 */
import type { Job, JobCondition, JobStatus } from "kubernetes-types/batch/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { formatTime, nameOf, namespaceOf } from "kubekit/apimachinery";
import {
  LabelSelector,
  PatchTypes,
  isNotFound,
  splitKey,
  type BatchV1JobLister,
  type Clientset,
  type CoreV1PodLister,
  type EventRecorder,
  type Logger,
  type ReconcileResult,
  type ResourceInformer,
} from "kubekit";
import { compareActivePods } from "./active-pods-order.js";
import { CompletionIndexes, completionIndexOf } from "./completion-indexes.js";
import { claimObjects } from "../controller-support/controller-ref-manager.js";
import { controlledBy, orphansIn } from "../controller-support/controller-ref-index.js";
import {
  isJobFinished,
  jobCondition,
  newJobCondition,
  terminalJobCondition,
  withJobCondition,
} from "./job-conditions.js";
import {
  JOB_TRACKING_FINALIZER,
  REMOVE_JOB_TRACKING_FINALIZER_PATCH,
  hasJobTrackingFinalizer,
  jobPod,
} from "./job-pod.js";
import { PodFailureBackoffStore, type BackoffRecord } from "./job-pod-failure-backoff.js";
import { isNamespaceTerminating } from "../controller-support/namespace-terminating.js";
import type { OwnWrites } from "../controller-support/own-writes.js";
import { isPodActive, isPodReady } from "../controller-support/pod-state.js";
import {
  SLOW_START_INITIAL_BATCH_SIZE,
  slowStartBatch,
} from "../controller-support/slow-start-batch.js";
import { BATCH_V1 } from "../controller-support/api-versions.js";

/** The `spec.managedBy` value of Jobs this controller syncs (the default). */
export const JOB_CONTROLLER_MANAGER = "kubernetes.io/job-controller";
/** At most this many pod UIDs in `status.uncountedTerminatedPods` (MaxUncountedPods). */
const MAX_UNCOUNTED_PODS = 500;
/** At most this many pods created or deleted per sync (MaxPodCreateDeletePerSync). */
const MAX_POD_CREATE_DELETE_PER_SYNC = 500;
/** The shortest delay of a sync postponed by the failure back-off (syncJobBatchPeriod). */
const MIN_BACKOFF_REQUEUE_MS = 1000;

/**
 * The Kubernetes behaviour a sync follows, by minor version: what 1.31+ does (the
 * SuccessCriteriaMet and FailureTarget conditions before Complete and Failed, which wait for
 * terminating pods; the CompletionsReached reason), the `terminating` count (1.29+) and the
 * completion index label (1.28+).
 */
export interface JobBehaviour {
  readonly delayTerminalCondition: boolean;
  readonly trackTerminatingPods: boolean;
  readonly podIndexLabel: boolean;
}

/** The {@link JobBehaviour} of Kubernetes `1.<minor>`. */
export function jobBehaviourOf(minor: number): JobBehaviour {
  return {
    delayTerminalCondition: minor >= 31,
    trackTerminatingPods: minor >= 29,
    podIndexLabel: minor >= 28,
  };
}

/** What a sync works with. */
export interface JobSyncDeps {
  readonly client: Clientset;
  readonly jobs: ResourceInformer<Job, BatchV1JobLister>;
  readonly pods: ResourceInformer<Pod, CoreV1PodLister>;
  readonly recorder: EventRecorder;
  readonly logger: Logger;
  readonly now: () => number;
  readonly backoff: PodFailureBackoffStore;
  readonly behaviour: JobBehaviour;
}

/** The UIDs of `status.uncountedTerminatedPods`, as sets. */
interface Uncounted {
  readonly succeeded: Set<string>;
  readonly failed: Set<string>;
}

/** The state of one sync (kube's `syncJobCtx`). */
interface SyncContext {
  job: Job;
  readonly key: string;
  readonly pods: readonly Pod[];
  /** UIDs of pods the sync treats as carrying the tracking finalizer. */
  readonly tracked: ReadonlySet<string>;
  readonly active: readonly Pod[];
  readonly uncounted: Uncounted;
  readonly backoffRecord: BackoffRecord;
  succeeded: number;
  ready: number;
  terminating: number;
  prevSucceededIndexes: CompletionIndexes;
  succeededIndexes: CompletionIndexes;
  finished: JobCondition | undefined;
  readonly writes: OwnWrites;
  readonly signal: AbortSignal;
}

/**
 * The status as Go's encoder writes a batch/v1 JobStatus: the `active`, `succeeded` and
 * `failed` counters, `completedIndexes`, the condition list and the uncounted UID lists are
 * omitted when zero or empty; `ready` and `terminating` (pointers) stay, even at 0.
 */
function wireStatus(status: JobStatus): JobStatus {
  const { active, succeeded, failed, completedIndexes, conditions, uncountedTerminatedPods } =
    status;
  const rest: JobStatus = { ...status };
  delete rest.active;
  delete rest.succeeded;
  delete rest.failed;
  delete rest.completedIndexes;
  delete rest.conditions;
  const uncounted = uncountedTerminatedPods ?? {};
  return {
    ...(conditions !== undefined && conditions.length > 0 ? { conditions } : {}),
    ...rest,
    ...(active ? { active } : {}),
    ...(succeeded ? { succeeded } : {}),
    ...(failed ? { failed } : {}),
    ...(completedIndexes ? { completedIndexes } : {}),
    uncountedTerminatedPods: {
      ...(uncounted.succeeded?.length ? { succeeded: uncounted.succeeded } : {}),
      ...(uncounted.failed?.length ? { failed: uncounted.failed } : {}),
    },
  };
}

function uidOf(pod: Pod): string {
  return pod.metadata?.uid ?? "";
}

function isSuspended(job: Job): boolean {
  return job.spec?.suspend === true;
}

function isIndexed(job: Job): boolean {
  return job.spec?.completionMode === "Indexed";
}

/** The Job as an Event subject and status body (lister objects carry no apiVersion and kind). */
function typed(job: Job): Job {
  return { ...job, apiVersion: BATCH_V1, kind: "Job" };
}

/**
 * Whether the Job only replaces pods once they failed, not while they terminate
 * (onlyReplaceFailedPods: `podReplacementPolicy: Failed`, or a pod failure policy).
 */
function onlyReplaceFailedPods(job: Job, behaviour: JobBehaviour): boolean {
  if (behaviour.trackTerminatingPods && job.spec?.podReplacementPolicy === "Failed") return true;
  return job.spec?.podFailurePolicy !== undefined;
}

/**
 * Whether the pod counts as failed (isPodFailed): phase Failed, or, unless only failed pods
 * are replaced, being deleted without having succeeded.
 */
function isPodFailed(pod: Pod, job: Job, behaviour: JobBehaviour): boolean {
  if (pod.status?.phase === "Failed") return true;
  if (onlyReplaceFailedPods(job, behaviour)) return false;
  return pod.metadata?.deletionTimestamp !== undefined && pod.status?.phase !== "Succeeded";
}

/** Pods being deleted that have not terminated (controller.CountTerminatingPods). */
function countTerminating(pods: readonly Pod[]): number {
  return pods.filter(
    (p) =>
      p.metadata?.deletionTimestamp !== undefined &&
      p.status?.phase !== "Succeeded" &&
      p.status?.phase !== "Failed",
  ).length;
}

/**
 * With `restartPolicy: OnFailure`, whether the container restarts of running and pending pods
 * reach the back-off limit (pastBackoffLimitOnFailure).
 */
function pastBackoffLimitOnFailure(job: Job, pods: readonly Pod[]): boolean {
  if (job.spec?.template.spec?.restartPolicy !== "OnFailure") return false;
  let restarts = 0;
  for (const pod of pods) {
    const phase = pod.status?.phase;
    if (phase !== "Running" && phase !== "Pending") continue;
    for (const s of [
      ...(pod.status?.initContainerStatuses ?? []),
      ...(pod.status?.containerStatuses ?? []),
    ]) {
      restarts += s.restartCount ?? 0;
    }
  }
  const limit = job.spec?.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/** Milliseconds since the Job's start time, or undefined when it has none. */
function activeForMs(job: Job, nowMs: number): number | undefined {
  const start = job.status?.startTime;
  return start === undefined ? undefined : nowMs - Date.parse(start);
}

/**
 * The active pods to delete (activePodsForRemoval): for an Indexed Job first the pods without
 * a valid index and all but one pod of each index, then, up to `atLeast`, the others in
 * {@link compareActivePods} order.
 */
function activePodsForRemoval(job: Job, active: readonly Pod[], atLeast: number): Pod[] {
  const remove: Pod[] = [];
  let left: Pod[] = [...active];
  if (isIndexed(job)) {
    const completions = job.spec?.completions ?? 0;
    const byIndex = new Map<number, Pod[]>();
    left = [];
    for (const pod of active) {
      const index = completionIndexOf(pod);
      if (index === undefined || index >= completions) remove.push(pod);
      else byIndex.set(index, [...(byIndex.get(index) ?? []), pod]);
    }
    for (const group of byIndex.values()) {
      group.sort(compareActivePods);
      remove.push(...group.slice(0, -1));
      left.push(group.at(-1) as Pod);
    }
  }
  if (remove.length < atLeast) {
    left.sort(compareActivePods);
    remove.push(...left.slice(0, atLeast - remove.length));
  }
  return remove;
}

/**
 * Syncs Jobs by key with kube-controller-manager's Job controller rules. Stateless apart from
 * the failure back-off records: everything else is read from the listers and written to the
 * API, and the caller waits for its caches to observe the writes (`writes`) before the next
 * sync of the key.
 */
export class JobSync {
  readonly #deps: JobSyncDeps;

  constructor(deps: JobSyncDeps) {
    this.#deps = deps;
  }

  /**
   * Syncs the Job `key`; resolves with a requeue when the Job must be looked at again at a
   * time (active deadline, failure back-off).
   *
   * @throws a failed write's error (the caller retries with back-off; a 409 Conflict means the
   *   cache was stale).
   */
  async sync(key: string, writes: OwnWrites, signal: AbortSignal): Promise<ReconcileResult | void> {
    const { jobs, backoff, recorder } = this.#deps;
    const { namespace, name } = splitKey(key);
    let cached: Job;
    try {
      cached = jobs.lister.jobs(namespace).get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      backoff.remove(key);
      return;
    }
    const managedBy = cached.spec?.managedBy;
    if (managedBy !== undefined && managedBy !== JOB_CONTROLLER_MANAGER) return;
    if (isJobFinished(cached)) {
      backoff.remove(key);
      return;
    }
    const mode = cached.spec?.completionMode ?? "NonIndexed";
    if (mode !== "NonIndexed" && mode !== "Indexed") {
      recorder.event(
        typed(cached),
        "Warning",
        "UnknownCompletionMode",
        "Skipped Job sync because completion mode is unknown",
      );
      return;
    }
    const job = typed(structuredClone(cached));
    return this.#syncJob(key, job, writes, signal);
  }

  async #syncJob(
    key: string,
    job: Job,
    writes: OwnWrites,
    signal: AbortSignal,
  ): Promise<ReconcileResult | void> {
    const now = this.#deps.now();
    const status: JobStatus = (job.status ??= {});
    status.uncountedTerminatedPods ??= {};
    const { pods, tracked } = await this.#podsForJob(job, writes, signal);
    const { ctx, countable, failed } = this.#newSyncContext({
      key,
      job,
      pods,
      tracked,
      writes,
      signal,
    });
    // The Job's first start; a suspended Job has not started.
    if (status.startTime === undefined && !isSuspended(job)) status.startTime = formatTime(now);
    const deadlineRequeueMs = this.#checkFinished(ctx, failed, now);
    if (isIndexed(job)) {
      const completions = job.spec?.completions ?? 0;
      ctx.prevSucceededIndexes = CompletionIndexes.parse(status.completedIndexes, completions);
      ctx.succeededIndexes = ctx.prevSucceededIndexes.with(
        countable
          .filter((p) => p.status?.phase === "Succeeded")
          .map((p) => completionIndexOf(p) as number),
      );
      ctx.succeeded = ctx.succeededIndexes.total;
    }
    const managed = await this.#manageOrFinish(ctx, now);
    const requeueAfterMs =
      deadlineRequeueMs === undefined && managed.requeueAfterMs === undefined
        ? undefined
        : Math.min(deadlineRequeueMs ?? Infinity, managed.requeueAfterMs ?? Infinity);
    const terminating = this.#deps.behaviour.trackTerminatingPods ? ctx.terminating : undefined;
    const needsStatusUpdate =
      managed.suspendChanged ||
      managed.active !== (status.active ?? 0) ||
      ctx.ready !== status.ready ||
      terminating !== status.terminating;
    status.active = managed.active;
    status.ready = ctx.ready;
    if (terminating !== undefined) status.terminating = terminating;
    await this.#trackStatus(ctx, needsStatusUpdate);
    if (managed.error !== undefined) throw managed.error;
    return requeueAfterMs === undefined
      ? undefined
      : { requeueAfterMs: Math.max(0, requeueAfterMs) };
  }

  /**
   * The sync's state from the Job's pods: the active ones, the terminated ones not counted yet
   * (`countable`: tracked, not in the uncounted lists, with a valid index), the counters with
   * the newly terminated pods, and the failure back-off record.
   */
  #newSyncContext(request: {
    readonly key: string;
    readonly job: Job;
    readonly pods: readonly Pod[];
    readonly tracked: ReadonlySet<string>;
    readonly writes: OwnWrites;
    readonly signal: AbortSignal;
  }): { ctx: SyncContext; countable: Pod[]; failed: number } {
    const { key, job, pods, tracked, writes, signal } = request;
    const { behaviour, backoff } = this.#deps;
    const status = job.status ?? {};
    const active = pods.filter(isPodActive);
    const uncounted: Uncounted = {
      succeeded: new Set(status.uncountedTerminatedPods?.succeeded ?? []),
      failed: new Set(status.uncountedTerminatedPods?.failed ?? []),
    };
    const completions = job.spec?.completions;
    const countable = pods.filter((p) => {
      if (!tracked.has(uidOf(p))) return false;
      if (!isIndexed(job)) return true;
      const index = completionIndexOf(p);
      return index !== undefined && index < (completions ?? 0);
    });
    const newSucceeded = countable.filter(
      (p) => p.status?.phase === "Succeeded" && !uncounted.succeeded.has(uidOf(p)),
    );
    const newFailed = countable.filter(
      (p) => isPodFailed(p, job, behaviour) && !uncounted.failed.has(uidOf(p)),
    );
    const ctx: SyncContext = {
      job,
      key,
      pods,
      tracked,
      active,
      uncounted,
      backoffRecord: backoff.next(key, newSucceeded, newFailed),
      succeeded: (status.succeeded ?? 0) + newSucceeded.length + uncounted.succeeded.size,
      ready: active.filter(isPodReady).length,
      terminating: countTerminating(pods),
      prevSucceededIndexes: CompletionIndexes.EMPTY,
      succeededIndexes: CompletionIndexes.EMPTY,
      finished: undefined,
      writes,
      signal,
    };
    const failed = (status.failed ?? 0) + newFailed.length + uncounted.failed.size;
    return { ctx, countable, failed };
  }

  /**
   * Whether the Job has finished already, or fails now (back-off limit, active deadline), as
   * `ctx.finished`; returns when the active deadline passes otherwise.
   */
  #checkFinished(ctx: SyncContext, failed: number, now: number): number | undefined {
    const { job, pods } = ctx;
    const successMet = jobCondition(job, "SuccessCriteriaMet");
    const failureTarget = jobCondition(job, "FailureTarget");
    if (successMet?.status === "True") {
      ctx.finished = successMet;
    } else if (failureTarget?.status === "True") {
      ctx.finished = terminalJobCondition("Failed", failureTarget, now);
    } else if (failed > (job.spec?.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, pods)) {
      ctx.finished = this.#failure(
        "BackoffLimitExceeded",
        "Job has reached the specified backoff limit",
        now,
      );
    } else {
      const deadline = job.spec?.activeDeadlineSeconds;
      const elapsed = activeForMs(job, now);
      if (deadline === undefined || elapsed === undefined || isSuspended(job)) return undefined;
      if (elapsed < deadline * 1000) return deadline * 1000 - elapsed;
      ctx.finished = this.#failure(
        "DeadlineExceeded",
        "Job was active longer than specified deadline",
        now,
      );
    }
    return undefined;
  }

  /**
   * A finished Job's active pods are deleted (it finishes once they are gone); otherwise pods
   * are managed (unless the Job is being deleted) and the Job completes once enough pods
   * succeeded and none is active. Returns the active count after, the first failure and
   * whether the Suspended condition changed.
   */
  async #manageOrFinish(
    ctx: SyncContext,
    now: number,
  ): Promise<{
    active: number;
    error: unknown;
    suspendChanged: boolean;
    requeueAfterMs: number | undefined;
  }> {
    const { job, active } = ctx;
    if (ctx.finished !== undefined) {
      // A failing Job's pods are all deleted; it finishes once they are gone.
      const deleted = await this.#deletePods(ctx, active, false);
      if (deleted.count !== active.length) ctx.finished = undefined;
      return {
        active: active.length - deleted.count,
        error: deleted.error,
        suspendChanged: false,
        requeueAfterMs: undefined,
      };
    }
    let activeCount = active.length;
    let error: unknown;
    let requeueAfterMs: number | undefined;
    const manageCalled = job.metadata?.deletionTimestamp === undefined;
    if (manageCalled) {
      const managed = await this.#manageJob(ctx, now);
      activeCount = managed.active;
      error = managed.error;
      requeueAfterMs = managed.requeueAfterMs;
    }
    const completions = job.spec?.completions;
    const complete =
      completions === undefined
        ? ctx.succeeded > 0 && activeCount === 0
        : ctx.succeeded >= completions && activeCount === 0;
    let suspendChanged = false;
    if (complete) {
      ctx.finished = this.#success(now);
    } else if (manageCalled) {
      suspendChanged = this.#updateSuspendedCondition(job, now);
    }
    return { active: activeCount, error, suspendChanged, requeueAfterMs };
  }

  /** A failure condition: FailureTarget first on 1.31+ (newFailureCondition). */
  #failure(reason: string, message: string, now: number): JobCondition {
    const type = this.#deps.behaviour.delayTerminalCondition ? "FailureTarget" : "Failed";
    return newJobCondition(type, "True", reason, message, now);
  }

  /** The success condition: SuccessCriteriaMet first on 1.31+ (newSuccessCondition). */
  #success(now: number): JobCondition {
    return this.#deps.behaviour.delayTerminalCondition
      ? newJobCondition(
          "SuccessCriteriaMet",
          "True",
          "CompletionsReached",
          "Reached expected number of succeeded pods",
          now,
        )
      : newJobCondition("Complete", "True", "", "", now);
  }

  /**
   * Sets the Suspended condition (True while suspended, False once resumed, when it was
   * True), with the Suspended and Resumed Events; resuming restarts `startTime`, so that
   * `activeDeadlineSeconds` counts continuous activity. Returns whether it changed.
   */
  #updateSuspendedCondition(job: Job, now: number): boolean {
    const status = job.status as JobStatus;
    const suspended = isSuspended(job);
    const [conditions, changed] = suspended
      ? withJobCondition(
          status.conditions ?? [],
          "Suspended",
          "True",
          "JobSuspended",
          "Job suspended",
          now,
        )
      : withJobCondition(
          status.conditions ?? [],
          "Suspended",
          "False",
          "JobResumed",
          "Job resumed",
          now,
        );
    if (!changed) return false;
    status.conditions = conditions;
    if (suspended) {
      this.#deps.recorder.event(job, "Normal", "Suspended", "Job suspended");
    } else {
      this.#deps.recorder.event(job, "Normal", "Resumed", "Job resumed");
      status.startTime = formatTime(now);
    }
    return true;
  }

  /**
   * The Job's pods (getPodsForJob): the pods it controls that its selector matches, plus the
   * orphans it adopts (they get the tracking finalizer, as kube's adoption adds it); pods it
   * controls that no longer match are released.
   */
  async #podsForJob(
    job: Job,
    writes: OwnWrites,
    signal: AbortSignal,
  ): Promise<{ pods: Pod[]; tracked: Set<string> }> {
    const { pods, client } = this.#deps;
    const namespace = namespaceOf(job);
    const uid = job.metadata?.uid ?? "";
    const controlled = controlledBy(pods.informer, uid);
    const candidates = [...controlled, ...orphansIn(pods.informer, namespace)];
    const podClient = client.coreV1.pods(namespace);
    const claimed = await claimObjects<Pod>({
      owner: job,
      ownerType: { apiVersion: BATCH_V1, kind: "Job" },
      selector: LabelSelector.fromLabelSelector(job.spec?.selector ?? {}),
      candidates,
      client: podClient,
      canAdopt: async () => {
        const fresh = await client.batchV1.jobs(namespace).get(nameOf(job), { signal });
        if (fresh.metadata?.uid !== uid) {
          throw new Error(
            `original Job ${namespace}/${job.metadata?.name} is gone: got uid ${fresh.metadata?.uid}, wanted ${uid}`,
          );
        }
        if (fresh.metadata?.deletionTimestamp !== undefined) {
          throw new Error(`Job ${namespace}/${job.metadata?.name} is being deleted`);
        }
      },
      onWrite: (pod: Pod) => writes.record(pods.informer, pod),
      signal,
    });
    const wasControlled = new Set(controlled.map(uidOf));
    const tracked = new Set<string>();
    const result: Pod[] = [];
    for (const pod of claimed) {
      if (wasControlled.has(uidOf(pod)) || hasJobTrackingFinalizer(pod)) {
        if (hasJobTrackingFinalizer(pod)) tracked.add(uidOf(pod));
        result.push(pod);
        continue;
      }
      // Adopted: track it from now on.
      const withFinalizer = await podClient.patch(
        nameOf(pod),
        PatchTypes.merge,
        {
          metadata: {
            finalizers: [...(pod.metadata?.finalizers ?? []), JOB_TRACKING_FINALIZER],
            resourceVersion: pod.metadata?.resourceVersion,
          },
        },
        { signal },
      );
      writes.record(pods.informer, withFinalizer);
      tracked.add(uidOf(withFinalizer));
      result.push(withFinalizer);
    }
    return { pods: result, tracked };
  }

  /**
   * Creates or deletes pods so that `parallelism` pods run, no more than the completions
   * left (manageJob); a suspended Job's pods are all deleted. New pods wait for the failure
   * back-off. Returns the number of active pods afterwards.
   */
  async #manageJob(
    ctx: SyncContext,
    now: number,
  ): Promise<{ active: number; requeueAfterMs?: number; error?: unknown }> {
    const { job } = ctx;
    const active = ctx.active.length;
    if (isSuspended(job)) {
      const deleted = await this.#deletePods(
        ctx,
        activePodsForRemoval(job, ctx.active, active),
        true,
      );
      return { active: active - deleted.count, error: deleted.error };
    }
    const parallelism = job.spec?.parallelism ?? 1;
    const completions = job.spec?.completions;
    let wantActive: number;
    if (completions === undefined) {
      // Any success completes such a Job: after one, no new pods.
      wantActive = ctx.succeeded > 0 ? active : parallelism;
    } else {
      wantActive = Math.max(0, Math.min(completions - ctx.succeeded, parallelism));
    }
    const toDelete = activePodsForRemoval(job, ctx.active, Math.max(0, active - wantActive)).slice(
      0,
      MAX_POD_CREATE_DELETE_PER_SYNC,
    );
    if (toDelete.length > 0) {
      const deleted = await this.#deletePods(ctx, toDelete, true);
      return { active: active - deleted.count, error: deleted.error };
    }
    const terminating = onlyReplaceFailedPods(job, this.#deps.behaviour) ? ctx.terminating : 0;
    let diff = wantActive - terminating - active;
    if (diff <= 0) return { active };
    const remaining = PodFailureBackoffStore.remainingMs(ctx.backoffRecord, now);
    if (remaining > 0)
      return { active, requeueAfterMs: Math.max(remaining, MIN_BACKOFF_REQUEUE_MS) };
    diff = Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC);
    let indexes: number[] | undefined;
    if (isIndexed(job)) {
      const taken = new Set<number>();
      const holding = onlyReplaceFailedPods(job, this.#deps.behaviour)
        ? ctx.pods.filter((p) => isPodActive(p) || countTerminating([p]) === 1)
        : ctx.active;
      for (const pod of holding) {
        const index = completionIndexOf(pod);
        if (index !== undefined) taken.add(index);
      }
      indexes = ctx.succeededIndexes.firstMissing(diff, completions ?? 0, taken);
      diff = indexes.length;
    }
    const result = await this.#createPods(ctx, diff, indexes);
    return { active: active + result.successes, error: result.error };
  }

  /** Creates `count` pods (with `indexes` for an Indexed Job) in slow-start batches. */
  async #createPods(
    ctx: SyncContext,
    count: number,
    indexes: number[] | undefined,
  ): Promise<{ successes: number; error?: unknown }> {
    const { job, signal, writes } = ctx;
    const { client, recorder, pods, behaviour } = this.#deps;
    const podClient = client.coreV1.pods(namespaceOf(job));
    const pending = indexes === undefined ? undefined : [...indexes];
    let namespaceTerminating = false;
    const result = await slowStartBatch(count, SLOW_START_INITIAL_BATCH_SIZE, async () => {
      const index = pending?.shift();
      const pod = jobPod(job, {
        ...(index !== undefined ? { index } : {}),
        indexLabel: behaviour.podIndexLabel,
      });
      try {
        const created = await podClient.create(pod, { signal });
        writes.record(pods.informer, created);
        recorder.event(job, "Normal", "SuccessfulCreate", `Created pod: ${created.metadata?.name}`);
      } catch (err) {
        if (isNamespaceTerminating(err)) {
          namespaceTerminating = true;
          return;
        }
        recorder.event(job, "Warning", "FailedCreate", `Error creating: ${(err as Error).message}`);
        throw err;
      }
    });
    // Creates dropped because the namespace is going away count neither way.
    return namespaceTerminating ? { successes: 0 } : result;
  }

  /**
   * Deletes pods, in parallel; with `untrack`, their tracking finalizer is removed first, so
   * they are not counted as failures (deleteJobPods), else it stays so the deletion is counted
   * (deleteActivePods). A pod already gone counts as deleted. Updates the ready and
   * terminating counts; returns how many were deleted and the first error.
   */
  async #deletePods(
    ctx: SyncContext,
    toDelete: readonly Pod[],
    untrack: boolean,
  ): Promise<{ count: number; error?: unknown }> {
    const { job, signal, writes } = ctx;
    const { client, recorder, pods } = this.#deps;
    const podClient = client.coreV1.pods(namespaceOf(job));
    const outcomes = await Promise.allSettled(
      toDelete.map(async (pod) => {
        const name = nameOf(pod);
        try {
          if (untrack && hasJobTrackingFinalizer(pod)) {
            const patched = await podClient.patch(
              name,
              PatchTypes.strategicMerge,
              REMOVE_JOB_TRACKING_FINALIZER_PATCH,
              { signal },
            );
            writes.record(pods.informer, patched);
          }
          const gone = await podClient.delete(name, { signal });
          if (gone.kind === "Pod") writes.record(pods.informer, gone);
          recorder.event(job, "Normal", "SuccessfulDelete", `Deleted pod: ${name}`);
        } catch (err) {
          // A pod already gone counts as deleted.
          if (!isNotFound(err)) {
            recorder.event(
              job,
              "Warning",
              "FailedDelete",
              `Error deleting: ${(err as Error).message}`,
            );
            throw err;
          }
        }
        if (isPodReady(pod)) ctx.ready -= 1;
      }),
    );
    const count = outcomes.filter((o) => o.status === "fulfilled").length;
    ctx.terminating += count;
    const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
    return failure === undefined ? { count } : { count, error: failure.reason };
  }

  /**
   * Counts terminated pods (trackJobStatusAndRemoveFinalizers): their UIDs go to
   * `status.uncountedTerminatedPods` (written first), then their tracking finalizers are
   * removed, then they move to `succeeded`/`failed` (or `completedIndexes`); the finishing
   * condition is written once no pod is left uncounted (and, on 1.31+, none terminating).
   */
  async #trackStatus(ctx: SyncContext, needsFlushAtStart: boolean): Promise<void> {
    const { behaviour } = this.#deps;
    let needsFlush = needsFlushAtStart;
    const job = ctx.job;
    const status = job.status as JobStatus;
    const uncountedStatus = {
      succeeded: [...(status.uncountedTerminatedPods?.succeeded ?? [])],
      failed: [...(status.uncountedTerminatedPods?.failed ?? [])],
    };
    status.uncountedTerminatedPods = uncountedStatus;
    const withFinalizer = new Set(ctx.pods.map(uidOf).filter((uid) => ctx.tracked.has(uid)));
    if (this.#countUncounted(status, withFinalizer)) needsFlush = true;
    const indexed = isIndexed(job);
    const completions = job.spec?.completions ?? 0;
    const toUntrack: Pod[] = [];
    const newSucceededIndexes: number[] = [];
    let reachedMax = false;
    const finishing = ctx.finished !== undefined;
    for (const pod of ctx.pods) {
      const uid = uidOf(pod);
      if (!ctx.tracked.has(uid)) continue;
      const consideredFailed = isPodFailed(pod, job, behaviour);
      const canUntrack =
        job.metadata?.deletionTimestamp !== undefined ||
        finishing ||
        pod.status?.phase === "Succeeded" ||
        consideredFailed;
      if (!canUntrack) continue;
      toUntrack.push(pod);
      const index = completionIndexOf(pod);
      if (pod.status?.phase === "Succeeded" && !ctx.uncounted.failed.has(uid)) {
        if (indexed) {
          if (index !== undefined && index < completions && !ctx.prevSucceededIndexes.has(index)) {
            newSucceededIndexes.push(index);
            needsFlush = true;
          }
        } else if (!ctx.uncounted.succeeded.has(uid)) {
          uncountedStatus.succeeded.push(uid);
          needsFlush = true;
        }
      } else if (
        consideredFailed ||
        (ctx.finished !== undefined && ctx.finished.type !== "SuccessCriteriaMet")
      ) {
        // A finishing (not succeeding) Job counts every pod it still tracks as failed.
        const validIndex = !indexed || (index !== undefined && index < completions);
        if (!ctx.uncounted.failed.has(uid) && validIndex) {
          uncountedStatus.failed.push(uid);
          needsFlush = true;
        }
      }
      if (
        newSucceededIndexes.length +
          uncountedStatus.succeeded.length +
          uncountedStatus.failed.length >=
        MAX_UNCOUNTED_PODS
      ) {
        reachedMax = true;
        break;
      }
    }
    if (indexed) {
      ctx.succeededIndexes = ctx.succeededIndexes.with(newSucceededIndexes);
      const text = ctx.succeededIndexes.toString();
      if (text !== (status.completedIndexes ?? "")) needsFlush = true;
      status.succeeded = ctx.succeededIndexes.total;
      status.completedIndexes = text;
    }
    const now = this.#deps.now();
    if (ctx.finished?.type === "FailureTarget") {
      // Recorded before the pods are released; Failed follows once they are gone.
      status.conditions = [...(status.conditions ?? []), ctx.finished];
      needsFlush = true;
      ctx.finished = terminalJobCondition("Failed", ctx.finished, now);
    }
    if (ctx.finished?.type === "SuccessCriteriaMet") {
      if (jobCondition(job, "SuccessCriteriaMet") === undefined) {
        status.conditions = [...(status.conditions ?? []), ctx.finished];
        needsFlush = true;
      }
      ctx.finished = terminalJobCondition("Complete", ctx.finished, now);
    }
    needsFlush = await this.#flushAndUntrack(ctx, toUntrack, withFinalizer, needsFlush);
    const finished = !reachedMax && this.#enactFinished(ctx);
    if (finished) needsFlush = true;
    if (needsFlush) await this.#writeStatus(ctx);
    if (finished && ctx.finished !== undefined) this.#recordFinished(ctx.job, ctx.finished);
  }

  /**
   * Writes the status when it has news (with the back-off record of the pods it newly
   * counts), removes the tracking finalizer of `toUntrack`, and counts the pods whose
   * finalizer is gone (flushUncountedAndRemoveFinalizers). Returns whether the status changed
   * again since its last write.
   *
   * @throws the first finalizer removal's error, after writing the partial progress.
   */
  async #flushAndUntrack(
    ctx: SyncContext,
    toUntrack: readonly Pod[],
    withFinalizer: Set<string>,
    needsFlush: boolean,
  ): Promise<boolean> {
    if (needsFlush) {
      await this.#writeStatus(ctx);
      this.#deps.backoff.commit(ctx.backoffRecord);
    }
    const { client, pods } = this.#deps;
    const podClient = client.coreV1.pods(namespaceOf(ctx.job));
    const outcomes = await Promise.allSettled(
      toUntrack.map(async (pod) => {
        try {
          const patched = await podClient.patch(
            nameOf(pod),
            PatchTypes.strategicMerge,
            REMOVE_JOB_TRACKING_FINALIZER_PATCH,
            { signal: ctx.signal },
          );
          ctx.writes.record(pods.informer, patched);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        withFinalizer.delete(uidOf(pod));
      }),
    );
    const changed = this.#countUncounted(ctx.job.status as JobStatus, withFinalizer);
    const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
    if (failure !== undefined) {
      if (changed) await this.#writeStatus(ctx);
      throw failure.reason;
    }
    return changed;
  }

  /**
   * Adds the finishing condition once every terminated pod is counted and, on 1.31+, no pod
   * is terminating (enactJobFinished); `completionTime` with Complete. Returns whether the
   * Job finished.
   */
  #enactFinished(ctx: SyncContext): boolean {
    const condition = ctx.finished;
    if (condition === undefined) return false;
    const status = ctx.job.status as JobStatus;
    const uncounted = status.uncountedTerminatedPods;
    if ((uncounted?.succeeded?.length ?? 0) + (uncounted?.failed?.length ?? 0) > 0) return false;
    if (this.#deps.behaviour.delayTerminalCondition && ctx.terminating > 0) return false;
    const now = this.#deps.now();
    const [conditions] = withJobCondition(
      status.conditions ?? [],
      condition.type,
      "True",
      condition.reason ?? "",
      condition.message ?? "",
      now,
    );
    status.conditions = conditions;
    if (condition.type === "Complete") {
      status.completionTime = conditions.find((c) => c.type === "Complete")?.lastTransitionTime;
    }
    return true;
  }

  /** The Events of a finished Job (recordJobFinished). */
  #recordFinished(job: Job, condition: JobCondition): void {
    const { recorder } = this.#deps;
    if (condition.type === "Complete") {
      const completions = job.spec?.completions;
      if (completions !== undefined && (job.status?.succeeded ?? 0) > completions) {
        recorder.event(
          job,
          "Warning",
          "TooManySucceededPods",
          "Too many succeeded pods running after completion count reached",
        );
      }
      recorder.event(job, "Normal", "Completed", "Job completed");
    } else {
      recorder.event(job, "Warning", condition.reason ?? "", condition.message ?? "");
    }
  }

  /**
   * Replaces the Job's status with the sync's (`updateStatus`, conditional on the
   * resourceVersion the sync read: a stale cache gets a 409 Conflict, never a double count),
   * written as Go's encoder would (zero counters and empty lists omitted).
   */
  async #writeStatus(ctx: SyncContext): Promise<void> {
    const { client, jobs } = this.#deps;
    const job = ctx.job;
    const written = await client.batchV1
      .jobs(namespaceOf(job))
      .updateStatus(
        { ...job, status: wireStatus(job.status as JobStatus) },
        { signal: ctx.signal },
      );
    ctx.writes.record(jobs.informer, written);
    ctx.job = typed(written);
    ctx.job.status ??= {};
    ctx.job.status.uncountedTerminatedPods ??= {};
  }

  /**
   * Moves the uncounted UIDs of pods that no longer carry the tracking finalizer (or are gone)
   * to the `succeeded` and `failed` counters (cleanUncountedPodsWithoutFinalizers). Returns
   * whether the status changed.
   */
  #countUncounted(status: JobStatus, withFinalizer: ReadonlySet<string>): boolean {
    const uncounted = (status.uncountedTerminatedPods ??= {});
    const succeeded = uncounted.succeeded ?? [];
    const failed = uncounted.failed ?? [];
    let changed = false;
    const keepSucceeded = succeeded.filter((uid) => withFinalizer.has(uid));
    if (keepSucceeded.length !== succeeded.length) {
      status.succeeded = (status.succeeded ?? 0) + succeeded.length - keepSucceeded.length;
      uncounted.succeeded = keepSucceeded;
      changed = true;
    }
    const keepFailed = failed.filter((uid) => withFinalizer.has(uid));
    if (keepFailed.length !== failed.length) {
      status.failed = (status.failed ?? 0) + failed.length - keepFailed.length;
      uncounted.failed = keepFailed;
      changed = true;
    }
    return changed;
  }
}
