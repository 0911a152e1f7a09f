/**
 * One sync of a CronJob (`pkg/controller/cronjob/cronjob_controllerv2.go` syncCronJob,
 * cleanupFinishedJobs): its Jobs reconciled with its active list, the Job due now started by
 * the concurrency policy, finished Jobs beyond the history limits deleted.
 */
import type { CronJob, Job } from "kubernetes-types/batch/v1.js";
import type { ObjectReference } from "kubernetes-types/core/v1.js";
import { formatTime, nameOf, namespaceOf } from "kubekit/apimachinery";
import {
  isAlreadyExists,
  isNotFound,
  type Clientset,
  type EventRecorder,
  type ResourceVersionObservable,
} from "kubekit";
import {
  CronScheduleError,
  formatRfc1123Z,
  isKnownTimeZone,
  mostRecentScheduleTime,
  nextScheduleDelayMs,
  parseCronSchedule,
  type CronSchedule,
  type ScheduleState,
} from "./cron-schedule.js";
import { cronJobJobName, jobFromTemplate } from "./cron-job-template.js";
import { finishedCondition, isJobSucceeded } from "../job/job-conditions.js";
import { isNamespaceTerminating } from "../controller-support/namespace-terminating.js";
import type { OwnWrites } from "../controller-support/own-writes.js";
import { BATCH_V1 } from "../controller-support/api-versions.js";

/** What one sync decided (syncCronJob's results). */
export interface SyncResult {
  readonly requeueAfterMs?: number;
  readonly updateStatus: boolean;
  readonly error?: unknown;
}

function timeMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Oldest first by `status.startTime` (unstarted last), then by name (byJobStartTime). */
function byStartTime(a: Job, b: Job): number {
  const ta = timeMs(a.status?.startTime);
  const tb = timeMs(b.status?.startTime);
  if (ta === undefined && tb !== undefined) return 1;
  if (ta !== undefined && tb === undefined) return -1;
  if (ta === tb) return nameOf(a).localeCompare(nameOf(b));
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

/** One CronJob sync's access to the API and its Events. */
export class CronJobSync {
  readonly #client: Clientset;
  readonly #recorder: EventRecorder;
  readonly #now: () => number;
  readonly #annotateScheduledTime: boolean;

  constructor(
    client: Clientset,
    recorder: EventRecorder,
    now: () => number,
    annotateScheduledTime: boolean,
  ) {
    this.#client = client;
    this.#recorder = recorder;
    this.#now = now;
    this.#annotateScheduledTime = annotateScheduledTime;
  }

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
    const name = nameOf(job);
    try {
      await this.#client.batchV1
        .jobs(namespaceOf(job))
        .delete(name, { propagationPolicy: "Background", signal });
    } catch (err) {
      if (!isNotFound(err)) {
        this.#recorder.event(
          cronJob,
          "Warning",
          "FailedDelete",
          `Deleted job: ${(err as Error).message}`,
        );
        return false;
      }
    }
    removeFromActive(cronJob, job.metadata?.uid);
    this.#recorder.event(cronJob, "Normal", "SuccessfulDelete", `Deleted job ${name}`);
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
    const now = this.#now();
    cronJob.status ??= {};
    const reconciled = await this.#reconcileJobs(cronJob, jobs, signal);
    if (reconciled.error !== undefined) return reconciled;
    if (cronJob.metadata?.deletionTimestamp !== undefined) return reconciled;
    const schedule = this.#scheduleOf(cronJob);
    if (schedule === undefined) return reconciled;
    const started = await this.#startDueJob({
      cronJob,
      schedule,
      now,
      writes,
      jobsInformer,
      signal,
    });
    const updateStatus = reconciled.updateStatus || started.changed;
    if (started.error !== undefined) return { updateStatus, error: started.error };
    if (started.stop === true) return { updateStatus };
    // The schedule state as of now: starting a Job changed lastScheduleTime.
    const delay = nextScheduleDelayMs(scheduleState(cronJob, now), now, schedule);
    return delay === undefined ? { updateStatus } : { requeueAfterMs: delay, updateStatus };
  }

  /**
   * Brings the active list up to date with the CronJob's Jobs: finished Jobs leave it
   * (SawCompletedJob) and set `lastSuccessfulTime`, Jobs it does not know are reported
   * (UnexpectedJob), active Jobs gone from the API leave it (MissingJob).
   */
  async #reconcileJobs(
    cronJob: CronJob,
    jobs: readonly Job[],
    signal: AbortSignal,
  ): Promise<SyncResult> {
    let updateStatus = false;
    const children = new Set<string>();
    for (const job of jobs) {
      children.add(job.metadata?.uid ?? "");
      if (await this.#reconcileJob(cronJob, job, signal)) updateStatus = true;
    }
    // Active Jobs that are gone (read from the API: the cache may just be slow).
    for (const ref of [...(cronJob.status?.active ?? [])]) {
      if (children.has(ref.uid ?? "")) continue;
      try {
        await this.#client.batchV1.jobs(ref.namespace ?? "").get(ref.name ?? "", { signal });
      } catch (err) {
        if (!isNotFound(err)) return { updateStatus, error: err };
        this.#recorder.event(
          cronJob,
          "Normal",
          "MissingJob",
          `Active job went missing: ${ref.name}`,
        );
        removeFromActive(cronJob, ref.uid);
        updateStatus = true;
      }
    }
    return { updateStatus };
  }

  /** One Job of the CronJob against its active list; whether the status changed. */
  async #reconcileJob(cronJob: CronJob, job: Job, signal: AbortSignal): Promise<boolean> {
    const status = cronJob.status ?? {};
    const uid = job.metadata?.uid;
    const found = isActive(cronJob, uid);
    const finished = finishedCondition(job);
    if (!found && finished === undefined) {
      const fresh = await this.#client.batchV1
        .cronJobs(namespaceOf(cronJob))
        .get(nameOf(cronJob), { signal });
      // The cache is behind our own status write: the status write below will conflict.
      if ((fresh.status?.active ?? []).some((ref) => ref.uid === uid)) return false;
      this.#recorder.event(
        cronJob,
        "Warning",
        "UnexpectedJob",
        `Saw a job that the controller did not create or forgot: ${job.metadata?.name}`,
      );
      return false;
    }
    if (finished === undefined) return false;
    let changed = false;
    if (found) {
      removeFromActive(cronJob, uid);
      this.#recorder.event(
        cronJob,
        "Normal",
        "SawCompletedJob",
        `Saw completed job: ${job.metadata?.name}, condition: ${finished.type}`,
      );
      changed = true;
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
        changed = true;
      }
    }
    return changed;
  }

  /**
   * The CronJob's parsed schedule, or undefined when nothing is to be started: an unknown
   * time zone (UnknownTimeZone), suspended, or an unparseable schedule (UnparseableSchedule).
   */
  #scheduleOf(cronJob: CronJob): CronSchedule | undefined {
    const timeZone = cronJob.spec?.timeZone;
    if (timeZone !== undefined && !isKnownTimeZone(timeZone)) {
      this.#recorder.event(
        cronJob,
        "Warning",
        "UnknownTimeZone",
        `invalid timeZone: ${JSON.stringify(timeZone)}: unknown time zone ${timeZone}`,
      );
      return undefined;
    }
    if (cronJob.spec?.suspend === true) return undefined;
    try {
      return parseCronSchedule(this.#formatSchedule(cronJob));
    } catch (err) {
      if (!(err instanceof CronScheduleError)) throw err;
      this.#recorder.event(
        cronJob,
        "Warning",
        "UnparseableSchedule",
        `unparseable schedule: ${JSON.stringify(cronJob.spec?.schedule ?? "")} : ${err.message}`,
      );
      return undefined;
    }
  }

  /**
   * Starts the Job of the most recent unmet start time, if it is due, within the starting
   * deadline and allowed by the concurrency policy (Replace deletes the active Jobs first).
   * `stop`: nothing more to do in this sync (not even waiting for the next start time).
   */
  async #startDueJob(request: {
    readonly cronJob: CronJob;
    readonly schedule: CronSchedule;
    readonly now: number;
    readonly writes: OwnWrites;
    readonly jobsInformer: ResourceVersionObservable;
    readonly signal: AbortSignal;
  }): Promise<StartOutcome> {
    const { cronJob, schedule, now, signal } = request;
    const scheduled = this.#dueStartTime(cronJob, schedule, now);
    if (typeof scheduled !== "number") return scheduled;
    const status = cronJob.status ?? {};
    const jobName = cronJobJobName(nameOf(cronJob), scheduled);
    if (
      (status.active ?? []).some(
        (ref) => ref.name === jobName && ref.namespace === cronJob.metadata?.namespace,
      ) ||
      timeMs(status.lastScheduleTime) === scheduled
    ) {
      return { changed: false };
    }
    const policy = cronJob.spec?.concurrencyPolicy ?? "Allow";
    if (policy === "Forbid" && (status.active ?? []).length > 0) {
      this.#recorder.event(
        cronJob,
        "Normal",
        "JobAlreadyActive",
        "Not starting job because prior execution is running and concurrency policy is Forbid",
      );
      return { changed: false };
    }
    const replaced: StartOutcome =
      policy === "Replace" ? await this.#replaceActive(cronJob, signal) : { changed: false };
    if (replaced.error !== undefined) return replaced;
    const created = await this.#createJob({ ...request, scheduled, jobName });
    return { ...created, changed: replaced.changed || created.changed };
  }

  /**
   * The most recent start time due at `now` and within the starting deadline, else the
   * outcome of the sync without one: wait for the next (no start time due, deadline missed:
   * MissSchedule) or stop (InvalidSchedule). Warns TooManyMissedTimes.
   */
  #dueStartTime(cronJob: CronJob, schedule: CronSchedule, now: number): number | StartOutcome {
    const times = mostRecentScheduleTime(scheduleState(cronJob, now), now, schedule, true);
    const scheduled = times.mostRecentMs;
    if (scheduled === undefined || scheduled > now) {
      if (times.error === undefined) return { changed: false }; // no start time due yet
      this.#recorder.event(
        cronJob,
        "Warning",
        "InvalidSchedule",
        `invalid schedule: ${cronJob.spec?.schedule ?? ""} : ${times.error}`,
      );
      return { changed: false, stop: true };
    }
    if (times.missed === "many") {
      this.#recorder.event(
        cronJob,
        "Warning",
        "TooManyMissedTimes",
        "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew",
      );
    }
    const deadline = cronJob.spec?.startingDeadlineSeconds;
    if (deadline !== undefined && scheduled + deadline * 1000 < now) {
      this.#recorder.event(
        cronJob,
        "Warning",
        "MissSchedule",
        `Missed scheduled time to start a job: ${formatRfc1123Z(scheduled)}`,
      );
      return { changed: false };
    }
    return scheduled;
  }

  /** Deletes every active Job before a new one starts (concurrency policy Replace). */
  async #replaceActive(cronJob: CronJob, signal: AbortSignal): Promise<StartOutcome> {
    let changed = false;
    for (const ref of [...(cronJob.status?.active ?? [])]) {
      let job: Job;
      try {
        job = await this.#client.batchV1.jobs(ref.namespace ?? "").get(ref.name ?? "", { signal });
      } catch (err) {
        this.#recorder.event(cronJob, "Warning", "FailedGet", `Get job: ${(err as Error).message}`);
        return { changed, error: err };
      }
      if (!(await this.deleteJob(cronJob, job, signal))) {
        return { changed, error: new Error(`could not replace job ${ref.namespace}/${ref.name}`) };
      }
      changed = true;
    }
    return { changed };
  }

  /**
   * Creates the Job of `scheduled` and adds it to the active list with `lastScheduleTime`
   * (SuccessfulCreate); a Job of that name created before by this CronJob counts as created.
   */
  async #createJob(request: {
    readonly cronJob: CronJob;
    readonly scheduled: number;
    readonly jobName: string;
    readonly writes: OwnWrites;
    readonly jobsInformer: ResourceVersionObservable;
    readonly signal: AbortSignal;
  }): Promise<StartOutcome> {
    const { cronJob, scheduled, jobName, writes, jobsInformer, signal } = request;
    const jobClient = this.#client.batchV1.jobs(namespaceOf(cronJob));
    const job = jobFromTemplate(cronJob, scheduled, this.#annotateScheduledTime);
    let created: Job;
    try {
      created = await jobClient.create(job, { signal });
      writes.record(jobsInformer, created);
      this.#recorder.event(cronJob, "Normal", "SuccessfulCreate", `Created job ${nameOf(created)}`);
    } catch (err) {
      // A namespace being deleted takes the CronJob with it: retry without an Event.
      if (isNamespaceTerminating(err)) return { changed: false, error: err };
      if (!isAlreadyExists(err)) {
        this.#recorder.event(
          cronJob,
          "Warning",
          "FailedCreate",
          `Error creating job: ${(err as Error).message}`,
        );
        return { changed: false, error: err };
      }
      // Created before (a status write was lost), or by someone else.
      const existing = await jobClient.get(jobName, { signal });
      const ref = existing.metadata?.ownerReferences?.find((r) => r.controller === true);
      if (ref?.uid !== cronJob.metadata?.uid) return { changed: false, stop: true };
      if (isActive(cronJob, existing.metadata?.uid)) return { changed: false, stop: true };
      created = existing;
    }
    const status = (cronJob.status ??= {});
    status.active = [...(status.active ?? []), referenceTo(created)];
    status.lastScheduleTime = formatTime(scheduled);
    return { changed: true };
  }

  /** The schedule with the CronJob's time zone (formatSchedule); warns about TZ in the schedule. */
  #formatSchedule(cronJob: CronJob): string {
    const schedule = cronJob.spec?.schedule ?? "";
    if (schedule.includes("TZ")) {
      this.#recorder.event(
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

/** What starting the due Job did: whether the status changed, a failure, or nothing more to do. */
interface StartOutcome {
  readonly changed: boolean;
  readonly stop?: true;
  readonly error?: unknown;
}

/** Whether the Job `uid` is in the CronJob's active list. */
function isActive(cronJob: CronJob, uid: string | undefined): boolean {
  return (cronJob.status?.active ?? []).some((ref) => ref.uid === uid);
}

/** The CronJob's schedule state as of `now` (its status changes when a Job is started). */
function scheduleState(cronJob: CronJob, now: number): ScheduleState {
  const lastScheduleMs = timeMs(cronJob.status?.lastScheduleTime);
  const startingDeadlineSeconds = cronJob.spec?.startingDeadlineSeconds;
  return {
    creationMs: timeMs(cronJob.metadata?.creationTimestamp) ?? now,
    ...(cronJob.status?.lastScheduleTime !== undefined
      ? { lastScheduleMs: lastScheduleMs as number }
      : {}),
    ...(startingDeadlineSeconds !== undefined ? { startingDeadlineSeconds } : {}),
  };
}

/** Drops the Job `uid` from the CronJob's active list (deleteFromActiveList). */
function removeFromActive(cronJob: CronJob, uid: string | undefined): void {
  const status = (cronJob.status ??= {});
  status.active = (status.active ?? []).filter((ref) => ref.uid !== uid);
}
