/**
 * batch/v1 CronJobs (`pkg/registry/batch/cronjob/strategy.go`): SetDefaults_CronJob
 * (`pkg/apis/batch/v1/defaults.go`) with the job template's pod template defaults, and
 * ValidateCronJobCreate / ValidateCronJobUpdate (`pkg/apis/batch/validation/validation.go`).
 *
 * @kind CronJob
 * @defaults concurrencyPolicy Allow, suspend false, history limits 3/1 (successful, failed),
 * job-template defaults
 * @validation schedule required; concurrencyPolicy Allow, Forbid or Replace; the job template's
 * pods restart OnFailure or Never, containers as Pod
 * @update same checks
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldNotSupported, fieldRequired } from "kubekit/apimachinery";
import { cronJobPrinter } from "../table/builtin-table-printers.js";
import { JOB_RESTART_POLICIES } from "./job.js";
import type { KindStrategy } from "./kind-strategy.js";
import { defaultTemplateOf, objectAt, validatePodSpec } from "./pod-spec.js";

const CONCURRENCY_POLICIES = ["Allow", "Forbid", "Replace"];

function defaultCronJob(obj: JsonObject): JsonObject {
  const spec: JsonObject = { ...objectAt(obj, "spec") };
  spec["concurrencyPolicy"] ??= "Allow";
  spec["suspend"] ??= false;
  spec["successfulJobsHistoryLimit"] ??= 3;
  spec["failedJobsHistoryLimit"] ??= 1;
  const jobTemplate = objectAt(spec, "jobTemplate");
  if (spec["jobTemplate"] !== undefined) {
    spec["jobTemplate"] = {
      ...jobTemplate,
      spec: defaultTemplateOf(objectAt(jobTemplate, "spec")),
    };
  }
  return { ...obj, spec };
}

function validateCronJob(obj: JsonObject): FieldError[] {
  const spec = objectAt(obj, "spec");
  const errors: FieldError[] = [];
  const schedule = spec["schedule"];
  if (typeof schedule !== "string" || schedule === "") errors.push(fieldRequired("spec.schedule"));
  const policy = spec["concurrencyPolicy"];
  if (!CONCURRENCY_POLICIES.includes(String(policy)))
    errors.push(fieldNotSupported("spec.concurrencyPolicy", policy ?? "", CONCURRENCY_POLICIES));
  const podSpec = objectAt(objectAt(objectAt(spec, "jobTemplate"), "spec"), "template");
  errors.push(
    ...validatePodSpec(
      objectAt(podSpec, "spec"),
      "spec.jobTemplate.spec.template.spec",
      JOB_RESTART_POLICIES,
    ),
  );
  return errors;
}

/** The CronJob strategy. */
export const cronJobStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  applyDefaults: defaultCronJob,
  validateCreate: validateCronJob,
  validateUpdate: (next) => validateCronJob(next),
  printer: cronJobPrinter,
};
