import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { cronJobStrategy } from "../../../../packages/apiserver/src/kinds/cron-job.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * batch/v1 CronJobs: SetDefaults_CronJob (`pkg/apis/batch/v1/defaults.go`) and
 * ValidateCronJobCreate / ValidateCronJobUpdate (`pkg/apis/batch/validation/validation.go`).
 */

const cronJob = hooksOf(cronJobStrategy);

function cronJobWith(spec: JsonObject): JsonObject {
  return {
    metadata: { name: "nightly", namespace: "default" },
    spec: {
      schedule: "0 3 * * *",
      jobTemplate: {
        spec: {
          template: {
            spec: { restartPolicy: "OnFailure", containers: [{ name: "c", image: "busybox" }] },
          },
        },
      },
      ...spec,
    },
  };
}

describe("CronJob defaults", () => {
  it("sets concurrencyPolicy, suspend, the history limits and the job template's pod defaults", () => {
    expect(cronJob.applyDefaults(cronJobWith({}))["spec"]).toMatchObject({
      concurrencyPolicy: "Allow",
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
      jobTemplate: {
        spec: {
          template: { spec: { restartPolicy: "OnFailure", schedulerName: "default-scheduler" } },
        },
      },
    });
  });

  it("keeps what is set", () => {
    expect(
      cronJob.applyDefaults(
        cronJobWith({ concurrencyPolicy: "Forbid", suspend: true, successfulJobsHistoryLimit: 0 }),
      )["spec"],
    ).toMatchObject({ concurrencyPolicy: "Forbid", suspend: true, successfulJobsHistoryLimit: 0 });
  });
});

describe("CronJob validation", () => {
  it("accepts a defaulted CronJob, on create and update", () => {
    const obj = cronJob.applyDefaults(cronJobWith({}));
    expect(cronJob.validateCreate(obj)).toEqual([]);
    expect(cronJob.validateUpdate(obj, obj)).toEqual([]);
  });

  it("requires a schedule and a supported concurrency policy", () => {
    const obj = cronJob.applyDefaults(
      cronJobWith({ schedule: "", concurrencyPolicy: "Sometimes" }),
    );
    expect(messages(cronJob.validateCreate(obj))).toEqual([
      "spec.schedule: Required value",
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    ]);
  });

  it("validates the job template's pods as a Job's, on update too", () => {
    const obj = cronJob.applyDefaults(
      cronJobWith({
        jobTemplate: {
          spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }] } } },
        },
      }),
    );
    const expected = [
      'spec.jobTemplate.spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    ];
    expect(messages(cronJob.validateCreate(obj))).toEqual(expected);
    expect(messages(cronJob.validateUpdate(obj, cronJob.applyDefaults(cronJobWith({}))))).toEqual(
      expected,
    );
  });

  it("tracks generation and prints kube's columns", () => {
    expect(cronJobStrategy.policy).toEqual({ tracksGeneration: true });
    expect(cronJobStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Schedule",
      "Timezone",
      "Suspend",
      "Active",
      "Last Schedule",
      "Age",
      "Containers",
      "Images",
      "Selector",
    ]);
  });
});
