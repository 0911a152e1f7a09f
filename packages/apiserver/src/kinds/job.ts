/**
 * batch/v1 Jobs (`pkg/registry/batch/job/strategy.go`, generateSelector): SetDefaults_Job
 * (`pkg/apis/batch/v1/defaults.go`) with the pod template's defaults, and ValidateJob /
 * ValidateJobUpdate (`pkg/apis/batch/validation/validation.go`).
 *
 * @kind Job
 * @defaults generated selector (`batch.kubernetes.io/controller-uid`) and template labels
 * (controller-uid and job-name, also in their legacy forms) on create unless manualSelector;
 * completions and parallelism 1 when both are unset, parallelism 1, backoffLimit 6,
 * completionMode NonIndexed, suspend false, podReplacementPolicy TerminatingOrFailed (Failed
 * with a podFailurePolicy), the Job's labels from its template's when it has none; pod-template
 * defaults
 * @validation restartPolicy OnFailure or Never; selector a valid label selector (as Deployment;
 * empty allowed) matching the template; counts (parallelism, completions, backoffLimit,
 * activeDeadlineSeconds) ≥ 0; containers as Pod
 * @update same checks; selector and template immutable
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldInvalid, deepEqual } from "kubekit/apimachinery";
import { jobPrinter } from "../table/builtin-table-printers.js";
import { selectableFields } from "../registry/resource-policy.js";
import type { KindStrategy } from "./kind-strategy.js";
import { defaultTemplateOf, objectAt } from "./pod-spec.js";
import { validateSelectorUnchanged, validateWorkloadSpec } from "./workload.js";

/** The restart policies a Job's pods may have. */
export const JOB_RESTART_POLICIES = ["OnFailure", "Never"];
const DEFAULT_BACKOFF_LIMIT = 6;
const CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid";
const JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
const LEGACY_CONTROLLER_UID_LABEL = "controller-uid";
const LEGACY_JOB_NAME_LABEL = "job-name";

/** `generateSelector`: the selector and template labels of a Job without manualSelector. */
function generateSelector(job: JsonObject): JsonObject {
  const spec = objectAt(job, "spec");
  if (spec["manualSelector"] === true) return job;
  const meta = objectAt(job, "metadata");
  const uid = String(meta["uid"] ?? "");
  const name = String(meta["name"] ?? "");
  const template = objectAt(spec, "template");
  const templateMeta = objectAt(template, "metadata");
  const labels = {
    ...objectAt(templateMeta, "labels"),
    [CONTROLLER_UID_LABEL]: uid,
    [JOB_NAME_LABEL]: name,
    [LEGACY_CONTROLLER_UID_LABEL]: uid,
    [LEGACY_JOB_NAME_LABEL]: name,
  };
  return {
    ...job,
    spec: {
      ...spec,
      selector: spec["selector"] ?? { matchLabels: { [CONTROLLER_UID_LABEL]: uid } },
      template: { ...template, metadata: { ...templateMeta, labels } },
    },
  };
}

function defaultJob(job: JsonObject): JsonObject {
  const spec: JsonObject = { ...defaultTemplateOf(objectAt(job, "spec")) };
  if (spec["completions"] === undefined && spec["parallelism"] === undefined) {
    spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  spec["parallelism"] ??= 1;
  spec["backoffLimit"] ??= DEFAULT_BACKOFF_LIMIT;
  spec["completionMode"] ??= "NonIndexed";
  spec["suspend"] ??= false;
  spec["podReplacementPolicy"] ??=
    spec["podFailurePolicy"] !== undefined ? "Failed" : "TerminatingOrFailed";
  const meta = objectAt(job, "metadata");
  const templateLabels = objectAt(objectAt(objectAt(spec, "template"), "metadata"), "labels");
  const labels = objectAt(meta, "labels");
  const withLabels =
    Object.keys(labels).length === 0 && Object.keys(templateLabels).length > 0
      ? { ...meta, labels: templateLabels }
      : meta;
  return { ...job, metadata: withLabels, spec };
}

function validateJob(job: JsonObject): FieldError[] {
  const errors = validateWorkloadSpec(job, "job", JOB_RESTART_POLICIES);
  const spec = objectAt(job, "spec");
  for (const key of ["parallelism", "completions", "backoffLimit", "activeDeadlineSeconds"]) {
    const v = spec[key];
    if (typeof v === "number" && v < 0)
      errors.push(fieldInvalid(`spec.${key}`, v, "must be greater than or equal to 0"));
  }
  return errors;
}

function validateTemplateUnchanged(next: JsonObject, old: JsonObject): FieldError[] {
  const template = objectAt(next, "spec")["template"];
  if (deepEqual(template, objectAt(old, "spec")["template"])) return [];
  return [fieldInvalid("spec.template", template ?? null, "field is immutable")];
}

/** The Job strategy. */
export const jobStrategy: KindStrategy = {
  policy: { tracksGeneration: true, selectableFields: selectableFields("status.successful") },
  prepareForCreate: generateSelector,
  applyDefaults: defaultJob,
  validateCreate: validateJob,
  validateUpdate: (next, old) => [
    ...validateJob(next),
    ...validateSelectorUnchanged(next, old),
    ...validateTemplateUnchanged(next, old),
  ],
  printer: jobPrinter,
};
