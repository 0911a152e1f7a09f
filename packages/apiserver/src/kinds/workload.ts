/**
 * The rules every apps/v1 workload shares (`pkg/apis/apps/validation/validation.go`:
 * ValidateDeploymentSpec, ValidateReplicaSetSpec, ValidateStatefulSetSpec,
 * ValidateDaemonSetSpec; `pkg/apis/apps/v1/defaults.go`): a selector that is required, valid
 * (`label-selector-validation.ts`), non-empty and matches the template's labels, a non-negative replica count, a valid pod
 * template, and a selector that never changes on update.
 */
import { type FieldError, type JsonObject, LabelSelector, type LabelSelectorSpec } from "kubekit";
import { fieldInvalid, fieldRequired, deepEqual, isJsonObject } from "kubekit/apimachinery";
import { isConvertibleLabelSelector, validateLabelSelector } from "./label-selector-validation.js";
import { defaultTemplateOf, objectAt, validatePodSpec } from "./pod-spec.js";

/** The defaults every workload with a replica count gets: replicas 1. */
export function defaultReplicas(spec: JsonObject): JsonObject {
  return spec["replicas"] === undefined || spec["replicas"] === null
    ? { ...spec, replicas: 1 }
    : spec;
}

/** An object whose spec went through `fn` (and its pod template through SetDefaults_PodSpec). */
export function withDefaultedSpec(
  obj: JsonObject,
  fn: (spec: JsonObject) => JsonObject,
): JsonObject {
  return { ...obj, spec: fn(defaultTemplateOf(objectAt(obj, "spec"))) };
}

function labelsOf(template: JsonObject): Record<string, string> {
  const labels = objectAt(objectAt(template, "metadata"), "labels");
  return Object.fromEntries(
    Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

/**
 * What a missing `spec.selector` is: `required` (Deployment, ReplicaSet, StatefulSet:
 * `spec.selector: Required value`), or `matchesNothing` (DaemonSet, whose validation reads a
 * nil selector as one that selects nothing, so only the template labels are reported).
 */
export type MissingSelectorRule = "required" | "matchesNothing";

function templateLabelsMismatch(template: JsonObject): FieldError {
  return fieldInvalid(
    "spec.template.metadata.labels",
    objectAt(objectAt(template, "metadata"), "labels"),
    "`selector` does not match template `labels`",
  );
}

/**
 * How each kind's validation treats a selector beyond ValidateLabelSelector's own errors:
 * whether an empty one is invalid, and the detail of `spec.selector: Invalid value` when
 * metav1.LabelSelectorAsSelector cannot convert it (`undefined`: nothing more is reported).
 * `deployment` also names ReplicaSets, whose validation shares the Deployment's wording.
 */
const SELECTOR_RULES: Readonly<
  Record<string, { readonly emptyInvalid: boolean; readonly unconvertible?: string }>
> = {
  deployment: { emptyInvalid: true, unconvertible: "invalid label selector" },
  statefulset: { emptyInvalid: true, unconvertible: "" },
  daemonset: { emptyInvalid: true },
  job: { emptyInvalid: false },
};

/**
 * The selector and template rules of a workload spec: `spec.selector` present (see
 * {@link MissingSelectorRule}), valid (ValidateLabelSelector), not empty (but for Jobs), and
 * when convertible, matching `spec.template.metadata.labels` (an unconvertible selector is
 * reported as the kind's validation does, see {@link SELECTOR_RULES}); `spec.replicas` >= 0
 * (when the kind has one), and the template's pod spec valid with the restart policies the
 * kind allows.
 */
export function validateWorkloadSpec(
  obj: JsonObject,
  kindName: string,
  allowedRestartPolicies: readonly string[],
  missingSelector: MissingSelectorRule = "required",
): FieldError[] {
  const errors: FieldError[] = [];
  const spec = objectAt(obj, "spec");
  const selector = spec["selector"];
  const template = objectAt(spec, "template");
  if (!isJsonObject(selector)) {
    errors.push(
      missingSelector === "required"
        ? fieldRequired("spec.selector")
        : templateLabelsMismatch(template),
    );
  } else {
    const rules = SELECTOR_RULES[kindName] ?? { emptyInvalid: true };
    errors.push(...validateLabelSelector(selector, "spec.selector"));
    const matchLabels = objectAt(selector, "matchLabels");
    const expressions = selector["matchExpressions"];
    if (
      Object.keys(matchLabels).length === 0 &&
      (!Array.isArray(expressions) || expressions.length === 0)
    ) {
      if (rules.emptyInvalid)
        errors.push(
          fieldInvalid("spec.selector", selector, `empty selector is invalid for ${kindName}`),
        );
    } else if (!isConvertibleLabelSelector(selector)) {
      if (rules.unconvertible !== undefined)
        errors.push(fieldInvalid("spec.selector", selector, rules.unconvertible));
    } else if (
      !LabelSelector.fromLabelSelector(selector as unknown as LabelSelectorSpec).matches(
        labelsOf(template),
      )
    ) {
      errors.push(templateLabelsMismatch(template));
    }
  }
  errors.push(...validateNonNegative(spec, "replicas", "spec"));
  errors.push(
    ...validatePodSpec(objectAt(template, "spec"), "spec.template.spec", allowedRestartPolicies),
  );
  return errors;
}

/**
 * ValidateNonnegativeField on `spec[key]` when it is a number: `<path>.<key>: Invalid value:
 * -1: must be greater than or equal to 0`.
 */
export function validateNonNegative(spec: JsonObject, key: string, path: string): FieldError[] {
  const value = spec[key];
  if (typeof value !== "number" || value >= 0) return [];
  return [fieldInvalid(`${path}.${key}`, value, "must be greater than or equal to 0")];
}

/**
 * A StatefulSet's or DaemonSet's template may not set `activeDeadlineSeconds` (their pods run
 * forever): `spec.template.spec.activeDeadlineSeconds: Invalid value: 30: must not be specified`.
 */
export function validateNoActiveDeadline(spec: JsonObject): FieldError[] {
  const value = objectAt(objectAt(spec, "template"), "spec")["activeDeadlineSeconds"];
  if (value === undefined || value === null) return [];
  return [fieldInvalid("spec.template.spec.activeDeadlineSeconds", value, "must not be specified")];
}

/** ValidateXUpdate's immutable selector: `spec.selector: Invalid value: …: field is immutable`. */
export function validateSelectorUnchanged(next: JsonObject, old: JsonObject): FieldError[] {
  const selector = objectAt(next, "spec")["selector"];
  if (deepEqual(selector, objectAt(old, "spec")["selector"])) return [];
  return [fieldInvalid("spec.selector", selector ?? null, "field is immutable")];
}
