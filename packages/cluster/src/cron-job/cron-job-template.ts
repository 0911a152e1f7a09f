/**
 * The Job a CronJob starts for one of its start times (`pkg/controller/cronjob/utils.go`
 * getJobFromTemplate2, getJobName).
 */
import type { CronJob, Job } from "kubernetes-types/batch/v1.js";
import { nameOf } from "kubekit/apimachinery";
import { setControllerReference } from "kubekit";
import { formatRfc3339In } from "./cron-schedule.js";
import { BATCH_V1 } from "../controller-support/api-versions.js";

/** The Job annotation naming the time a CronJob scheduled it for (kube 1.28+). */
export const CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION =
  "batch.kubernetes.io/cronjob-scheduled-timestamp";

/** The name of the Job for `scheduledMs`: `<cronjob>-<minutes since the epoch>` (getJobName). */
export function cronJobJobName(cronJobName: string, scheduledMs: number): string {
  return `${cronJobName}-${Math.floor(scheduledMs / 60_000)}`;
}

/**
 * The Job a CronJob starts for `scheduledMs` (getJobFromTemplate2): the job template's labels,
 * annotations and spec, the deterministic name (so a start time is never run twice), the
 * scheduled-timestamp annotation in the CronJob's time zone, and a controller reference.
 */
export function jobFromTemplate(cronJob: CronJob, scheduledMs: number, annotate: boolean): Job {
  const template = cronJob.spec?.jobTemplate;
  const job: Job = {
    apiVersion: BATCH_V1,
    kind: "Job",
    metadata: {
      name: cronJobJobName(nameOf(cronJob), scheduledMs),
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
