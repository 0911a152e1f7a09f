/**
 * kube-controller-manager's `cronjob` controller (`pkg/controller/cronjob/cronjob_controllerv2.go`,
 * `utils.go`), written with kubekit's Controller toolkit.
 */
import type { CronJob } from "kubernetes-types/batch/v1.js";
import { splitKey, type ReconcileResult, type Runnable } from "kubekit";
import { cachedObject } from "../controller-support/cached-object.js";
import type { ClusterContext } from "../cluster-context.js";
import {
  controlledBy,
  ensureControllerRefIndexes,
} from "../controller-support/controller-ref-index.js";
import { CronJobSync } from "./cron-job-sync.js";
import { ownerController } from "../controller-support/owner-controller.js";
import { OwnWrites } from "../controller-support/own-writes.js";
import { requeueOnConflict } from "../controller-support/requeue-on-conflict.js";
import { BATCH_V1 } from "../controller-support/api-versions.js";

/** kube-controller-manager's `--concurrent-cron-job-syncs` default. */
const CRONJOB_WORKERS = 5;

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
