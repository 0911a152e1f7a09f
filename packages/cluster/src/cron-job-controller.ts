/**
 * kube-controller-manager's `cronjob` controller (`pkg/controller/cronjob/cronjob_controllerv2.go`,
 * `utils.go`), written with kubekit's Controller toolkit.
 */
import type { CronJob, Job } from "kubernetes-types/batch/v1.js";
import type { ObjectReference } from "kubernetes-types/core/v1.js";
import { formatTime } from "kubekit/apimachinery";
import {
  isAlreadyExists,
  isNotFound,
  setControllerReference,
  splitKey,
  type Clientset,
  type EventRecorder,
  type ReconcileResult,
  type ResourceVersionObservable,
  type Runnable,
} from "kubekit";
import { cachedObject } from "./cached-object.js";
import type { ClusterContext } from "./cluster-context.js";
import { controlledBy, ensureControllerRefIndexes } from "./controller-ref-index.js";
import {
  CronScheduleError,
  formatRfc1123Z,
  formatRfc3339In,
  isKnownTimeZone,
  mostRecentScheduleTime,
  nextScheduleDelayMs,
  parseCronSchedule,
  type CronSchedule,
  type ScheduleState,
} from "./cron-schedule.js";
import { finishedCondition, isJobSucceeded } from "./job-conditions.js";
import { isNamespaceTerminating } from "./namespace-terminating.js";
import { ownerController } from "./owner-controller.js";
import { OwnWrites } from "./own-writes.js";
import { requeueOnConflict } from "./requeue-on-conflict.js";

/** The Job annotation naming the time a CronJob scheduled it for (kube 1.28+). */
export const CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION =
  "batch.kubernetes.io/cronjob-scheduled-timestamp";

/** kube-controller-manager's `--concurrent-cron-job-syncs` default. */
const CRONJOB_WORKERS = 5;
const BATCH_V1 = "batch/v1";

/** What one sync decided (syncCronJob's results). */
interface SyncResult {
  readonly requeueAfterMs?: number;
  readonly updateStatus: boolean;
  readonly error?: unknown;
}

function timeMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The name of the Job for `scheduledMs`: `<cronjob>-<minutes since the epoch>` (getJobName). */
export function cronJobJobName(cronJobName: string, scheduledMs: number): string {
  return `${cronJobName}-${Math.floor(scheduledMs / 60_000)}`;
}

/** Oldest first by `status.startTime` (unstarted last), then by name (byJobStartTime). */
function byStartTime(a: Job, b: Job): number {
  const ta = timeMs(a.status?.startTime);
  const tb = timeMs(b.status?.startTime);
  if (ta === undefined && tb !== undefined) return 1;
  if (ta !== undefined && tb === undefined) return -1;
  if (ta === tb) return (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "");
  return (ta as number) - (tb as number);
}

/** An object reference to a Job, as client-go's `reference.GetReference` makes it. */
function referenceTo(job: Job): ObjectReference {
  return {
    kind: "Job",
    namespace: job.metadata?.namespace,
    name: job.metadata?.name,
    uid: job.metadata?.uid,
    apiVersion: BATCH_V1,
    resourceVersion: job.metadata?.resourceVersion,
  };
}

/**
 * The Job a CronJob starts for `scheduledMs` (getJobFromTemplate2): the job template's labels,
 * annotations and spec, the deterministic name (so a start time is never run twice), the
 * scheduled-timestamp annotation in the CronJob's time zone, and a controller reference.
 */
function jobFromTemplate(cronJob: CronJob, scheduledMs: number, annotate: boolean): Job {
  const template = cronJob.spec?.jobTemplate;
  const job: Job = {
    apiVersion: BATCH_V1,
    kind: "Job",
    metadata: {
      name: cronJobJobName(cronJob.metadata?.name ?? "", scheduledMs),
      namespace: cronJob.metadata?.namespace,
      ...(template?.metadata?.labels ? { labels: { ...template.metadata.labels } } : {}),
      annotations: {
        ...template?.metadata?.annotations,
        ...(annotate
          ? {
              [CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]: formatRfc3339In(
                scheduledMs,
                cronJob.spec?.timeZone ?? "",
              ),
            }
          : {}),
      },
    },
    spec: structuredClone(template?.spec ?? { template: {} }),
  };
  return setControllerReference(cronJob, job, { apiVersion: BATCH_V1, kind: "CronJob" });
}

/** One CronJob sync's access to the API and its Events. */
class CronJobSync {
  constructor(
    private readonly client: Clientset,
    private readonly recorder: EventRecorder,
    private readonly now: () => number,
    private readonly annotateScheduledTime: boolean,
  ) {}

  /**
   * Deletes the oldest finished Jobs beyond `successfulJobsHistoryLimit` and
   * `failedJobsHistoryLimit` (cleanupFinishedJobs). Returns whether the status changed.
   */
  async cleanupFinishedJobs(
    cronJob: CronJob,
    jobs: readonly Job[],
    signal: AbortSignal,
  ): Promise<boolean> {
    const successfulLimit = cronJob.spec?.successfulJobsHistoryLimit;
    const failedLimit = cronJob.spec?.failedJobsHistoryLimit;
    if (successfulLimit === undefined && failedLimit === undefined) return false;
    const succeeded: Job[] = [];
    const failed: Job[] = [];
    for (const job of jobs) {
      const type = finishedCondition(job)?.type;
      if (type === "Complete") succeeded.push(job);
      else if (type === "Failed") failed.push(job);
    }
    let changed = false;
    if (
      successfulLimit !== undefined &&
      (await this.#removeOldest(cronJob, succeeded, successfulLimit, signal))
    ) {
      changed = true;
    }
    if (
      failedLimit !== undefined &&
      (await this.#removeOldest(cronJob, failed, failedLimit, signal))
    ) {
      changed = true;
    }
    return changed;
  }

  async #removeOldest(
    cronJob: CronJob,
    jobs: Job[],
    keep: number,
    signal: AbortSignal,
  ): Promise<boolean> {
    const excess = jobs.length - keep;
    if (excess <= 0) return false;
    let changed = false;
    for (const job of [...jobs].sort(byStartTime).slice(0, excess)) {
      if (await this.deleteJob(cronJob, job, signal)) changed = true;
    }
    return changed;
  }

  /**
   * Deletes a Job with background propagation and drops it from the active list (deleteJob):
   * Event SuccessfulDelete, or FailedDelete and false.
   */
  async deleteJob(cronJob: CronJob, job: Job, signal: AbortSignal): Promise<boolean> {
    const name = job.metadata?.name ?? "";
    try {
      await this.client.batchV1
        .jobs(job.metadata?.namespace ?? "")
        .delete(name, { propagationPolicy: "Background", signal });
    } catch (err) {
      if (!isNotFound(err)) {
        this.recorder.event(
          cronJob,
          "Warning",
          "FailedDelete",
          `Deleted job: ${(err as Error).message}`,
        );
        return false;
      }
    }
    removeFromActive(cronJob, job.metadata?.uid);
    this.recorder.event(cronJob, "Normal", "SuccessfulDelete", `Deleted job ${name}`);
    return true;
  }

  /**
   * Reconciles the CronJob with its Jobs and starts the Job due now, if any (syncCronJob):
   * finished Jobs leave the active list (SawCompletedJob) and set `lastSuccessfulTime`; Jobs
   * gone from the API leave it (MissingJob); then, unless the CronJob is being deleted,
   * suspended or unschedulable, the most recent unmet start time is run within
   * `startingDeadlineSeconds` and the concurrency policy. Modifies `cronJob`'s status.
   */
  async sync(
    cronJob: CronJob,
    jobs: readonly Job[],
    writes: OwnWrites,
    jobsInformer: ResourceVersionObservable,
    signal: AbortSignal,
  ): Promise<SyncResult> {
    const { recorder, client } = this;
    const now = this.now();
    const status = (cronJob.status ??= {});
    let updateStatus = false;
    const children = new Set<string>();
    const inActive = (uid: string | undefined): boolean =>
      (status.active ?? []).some((ref) => ref.uid === uid);
    for (const job of jobs) {
      const uid = job.metadata?.uid;
      children.add(uid ?? "");
      const found = inActive(uid);
      const finished = finishedCondition(job);
      if (!found && finished === undefined) {
        const fresh = await client.batchV1
          .cronJobs(cronJob.metadata?.namespace ?? "")
          .get(cronJob.metadata?.name ?? "", { signal });
        // The cache is behind our own status write: the status write below will conflict.
        if ((fresh.status?.active ?? []).some((ref) => ref.uid === uid)) continue;
        recorder.event(
          cronJob,
          "Warning",
          "UnexpectedJob",
          `Saw a job that the controller did not create or forgot: ${job.metadata?.name}`,
        );
      } else if (finished !== undefined) {
        if (found) {
          removeFromActive(cronJob, uid);
          recorder.event(
            cronJob,
            "Normal",
            "SawCompletedJob",
            `Saw completed job: ${job.metadata?.name}, condition: ${finished.type}`,
          );
          updateStatus = true;
        }
        if (isJobSucceeded(job)) {
          const completed = timeMs(job.status?.completionTime);
          const last = timeMs(status.lastSuccessfulTime);
          if (
            status.lastSuccessfulTime === undefined ||
            (completed !== undefined && last !== undefined && completed > last)
          ) {
            if (job.status?.completionTime !== undefined)
              status.lastSuccessfulTime = job.status.completionTime;
            updateStatus = true;
          }
        }
      }
    }
    // Active Jobs that are gone (read from the API: the cache may just be slow).
    for (const ref of [...(status.active ?? [])]) {
      if (children.has(ref.uid ?? "")) continue;
      try {
        await client.batchV1.jobs(ref.namespace ?? "").get(ref.name ?? "", { signal });
      } catch (err) {
        if (!isNotFound(err)) return { updateStatus, error: err };
        recorder.event(cronJob, "Normal", "MissingJob", `Active job went missing: ${ref.name}`);
        removeFromActive(cronJob, ref.uid);
        updateStatus = true;
      }
    }
    if (cronJob.metadata?.deletionTimestamp !== undefined) return { updateStatus };

    const timeZone = cronJob.spec?.timeZone;
    if (timeZone !== undefined && !isKnownTimeZone(timeZone)) {
      recorder.event(
        cronJob,
        "Warning",
        "UnknownTimeZone",
        `invalid timeZone: ${JSON.stringify(timeZone)}: unknown time zone ${timeZone}`,
      );
      return { updateStatus };
    }
    if (cronJob.spec?.suspend === true) return { updateStatus };

    const scheduleText = cronJob.spec?.schedule ?? "";
    let schedule: CronSchedule;
    try {
      schedule = parseCronSchedule(this.#formatSchedule(cronJob));
    } catch (err) {
      if (!(err instanceof CronScheduleError)) throw err;
      recorder.event(
        cronJob,
        "Warning",
        "UnparseableSchedule",
        `unparseable schedule: ${JSON.stringify(scheduleText)} : ${err.message}`,
      );
      return { updateStatus };
    }
    // The schedule state as of now (the status changes when a Job is started).
    const stateOf = (): ScheduleState => ({
      creationMs: timeMs(cronJob.metadata?.creationTimestamp) ?? now,
      ...(status.lastScheduleTime !== undefined
        ? { lastScheduleMs: timeMs(status.lastScheduleTime) as number }
        : {}),
      ...(cronJob.spec?.startingDeadlineSeconds !== undefined
        ? { startingDeadlineSeconds: cronJob.spec.startingDeadlineSeconds }
        : {}),
    });
    const next = (): SyncResult => {
      const delay = nextScheduleDelayMs(stateOf(), now, schedule);
      return delay === undefined ? { updateStatus } : { requeueAfterMs: delay, updateStatus };
    };
    const times = mostRecentScheduleTime(stateOf(), now, schedule, true);
    const scheduled = times.mostRecentMs;
    if (scheduled === undefined || scheduled > now) {
      if (times.error !== undefined) {
        recorder.event(
          cronJob,
          "Warning",
          "InvalidSchedule",
          `invalid schedule: ${scheduleText} : ${times.error}`,
        );
        return { updateStatus };
      }
      // No start time due: wait for the next one.
      return next();
    }
    if (times.missed === "many") {
      recorder.event(
        cronJob,
        "Warning",
        "TooManyMissedTimes",
        "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
      );
    }
    const deadline = cronJob.spec?.startingDeadlineSeconds;
    if (deadline !== undefined && scheduled + deadline * 1000 < now) {
      recorder.event(
        cronJob,
        "Warning",
        "MissSchedule",
        `Missed scheduled time to start a job: ${formatRfc1123Z(scheduled)}`,
      );
      return next();
    }
    const jobName = cronJobJobName(cronJob.metadata?.name ?? "", scheduled);
    if (
      (status.active ?? []).some(
        (ref) => ref.name === jobName && ref.namespace === cronJob.metadata?.namespace,
      ) ||
      timeMs(status.lastScheduleTime) === scheduled
    ) {
      return next();
    }
    const policy = cronJob.spec?.concurrencyPolicy ?? "Allow";
    if (policy === "Forbid" && (status.active ?? []).length > 0) {
      recorder.event(
        cronJob,
        "Normal",
        "JobAlreadyActive",
        "Not starting job because prior execution is running and concurrency policy is Forbid",
      );
      return next();
    }
    if (policy === "Replace") {
      for (const ref of [...(status.active ?? [])]) {
        let job: Job;
        try {
          job = await client.batchV1.jobs(ref.namespace ?? "").get(ref.name ?? "", { signal });
        } catch (err) {
          recorder.event(cronJob, "Warning", "FailedGet", `Get job: ${(err as Error).message}`);
          return { updateStatus, error: err };
        }
        if (!(await this.deleteJob(cronJob, job, signal))) {
          return {
            updateStatus,
            error: new Error(`could not replace job ${ref.namespace}/${ref.name}`),
          };
        }
        updateStatus = true;
      }
    }
    const request = jobFromTemplate(cronJob, scheduled, this.annotateScheduledTime);
    const namespace = cronJob.metadata?.namespace ?? "";
    let created: Job;
    try {
      created = await client.batchV1.jobs(namespace).create(request, { signal });
      writes.record(jobsInformer, created);
      recorder.event(
        cronJob,
        "Normal",
        "SuccessfulCreate",
        `Created job ${created.metadata?.name}`,
      );
    } catch (err) {
      // A namespace being deleted takes the CronJob with it: retry without an Event.
      if (isNamespaceTerminating(err)) return { updateStatus, error: err };
      if (!isAlreadyExists(err)) {
        recorder.event(
          cronJob,
          "Warning",
          "FailedCreate",
          `Error creating job: ${(err as Error).message}`,
        );
        return { updateStatus, error: err };
      }
      // Created before (a status write was lost), or by someone else.
      const existing = await client.batchV1.jobs(namespace).get(jobName, { signal });
      const ref = existing.metadata?.ownerReferences?.find((r) => r.controller === true);
      if (ref?.uid !== cronJob.metadata?.uid) return { updateStatus };
      if (inActive(existing.metadata?.uid)) return { updateStatus };
      created = existing;
    }
    status.active = [...(status.active ?? []), referenceTo(created)];
    status.lastScheduleTime = formatTime(scheduled);
    updateStatus = true;
    return next();
  }

  /** The schedule with the CronJob's time zone (formatSchedule); warns about TZ in the schedule. */
  #formatSchedule(cronJob: CronJob): string {
    const schedule = cronJob.spec?.schedule ?? "";
    if (schedule.includes("TZ")) {
      this.recorder.event(
        cronJob,
        "Warning",
        "UnsupportedSchedule",
        `CRON_TZ or TZ used in schedule ${JSON.stringify(schedule)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`,
      );
      return schedule;
    }
    const timeZone = cronJob.spec?.timeZone;
    return timeZone !== undefined ? `TZ=${timeZone} ${schedule}` : schedule;
  }
}

/** Drops the Job `uid` from the CronJob's active list (deleteFromActiveList). */
function removeFromActive(cronJob: CronJob, uid: string | undefined): void {
  const status = (cronJob.status ??= {});
  status.active = (status.active ?? []).filter((ref) => ref.uid !== uid);
}

/**
 * The simulated cluster's CronJob controller (kube-controller-manager's `cronjob`, the v2
 * controller): at each start time of `spec.schedule` (cron syntax, in `spec.timeZone` or
 * UTC, on the cluster's clock) it creates the Job `<cronjob>-<minutes since the epoch>` from
 * `spec.jobTemplate`, honouring `suspend`, `startingDeadlineSeconds` and `concurrencyPolicy`
 * (Allow, Forbid, Replace); it keeps `status.active`, `lastScheduleTime` and
 * `lastSuccessfulTime`, deletes finished Jobs beyond the history limits, and records kube's
 * Events. A CronJob waits for its next start time as a `requeueAfterMs` on the clock, never by
 * polling.
 *
 * Caveats: schedules are computed by the `cron-parser` package (see {@link parseCronSchedule});
 * a CronJob's Jobs are the Jobs it controls by uid (kube matches the controller reference's
 * name only).
 */
export function cronJobController(ctx: ClusterContext): Runnable {
  const cronJobs = ctx.factory.batchV1.cronJobs();
  const jobs = ctx.factory.batchV1.jobs();
  ensureControllerRefIndexes(jobs.informer);
  const client = ctx.clientset("kube-controller-manager");
  const sync = new CronJobSync(
    client,
    ctx.recorder("cronjob-controller", "kube-controller-manager"),
    () => ctx.clock.now(),
    Number(ctx.settings.kubernetesMinor) >= 28,
  );

  const reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const { namespace, name } = splitKey(key);
    const cached = cachedObject(cronJobs.lister.cronJobs(namespace), name);
    if (cached === undefined) return;
    const cronJob: CronJob = { ...structuredClone(cached), apiVersion: BATCH_V1, kind: "CronJob" };
    const children = controlledBy(jobs.informer, cronJob.metadata?.uid ?? "");
    const writes = new OwnWrites();
    const conflictRequeue = { controller: "cronjob", key, writes, signal, logger: ctx.logger };
    return requeueOnConflict(conflictRequeue, async () => {
      const cleaned = await sync.cleanupFinishedJobs(cronJob, children, signal);
      const result = await sync.sync(cronJob, children, writes, jobs.informer, signal);
      if (cleaned || result.updateStatus) {
        const written = await client.batchV1.cronJobs(namespace).updateStatus(cronJob, { signal });
        writes.record(cronJobs.informer, written);
      }
      if (!(await writes.observed(signal))) return { requeue: true };
      if (result.requeueAfterMs !== undefined)
        return { requeueAfterMs: Math.max(0, result.requeueAfterMs) };
      if (result.error !== undefined) throw result.error;
    });
  };

  return ownerController(ctx, {
    name: "cronjob",
    workers: CRONJOB_WORKERS,
    reconcile,
    owners: cronJobs.informer,
    ownerKind: { group: "batch", kind: "CronJob" },
    owned: [jobs.informer],
  });
}
