/**
 * autoscaling HorizontalPodAutoscalers
 * (`pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go`) and the spec rules of
 * ValidateHorizontalPodAutoscaler (`pkg/apis/autoscaling/validation/validation.go`:
 * validateMetricSpec, validateScalingRules, ValidateCrossVersionObjectReference). Scale to zero
 * is an alpha feature gate, off. autoscaling/v1's `targetCPUUtilizationPercentage` is reported at
 * the internal metric's path, as kube converts it. Quantities are read for their sign only.
 *
 * @kind HorizontalPodAutoscaler
 * @validation scaleTargetRef kind and name required (path segments); minReplicas ≥ 1;
 * maxReplicas > 0 and ≥ minReplicas; metrics: a supported source type with exactly its own
 * source, metric names path segments, target type Utilization/Value/AverageValue, values
 * positive, averageUtilization ≥ 1, the target each source requires, an Object or External metric
 * for minReplicas 0; behavior: stabilizationWindowSeconds 0–3600, selectPolicy Max/Min/Disabled,
 * at least one policy, type Pods or Percent, value > 0, periodSeconds 1–1800; v1
 * targetCPUUtilizationPercentage ≥ 1
 * @update same checks
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isJsonObject,
  isDns1123Label,
  validatePathSegmentName,
} from "kubekit/apimachinery";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

const MIN_REPLICAS_LOWER_BOUND = 1;
/** `MaxPeriodSeconds` and `MaxStabilizationWindowSeconds`. */
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
/** validMetricSourceTypesList (sorted, as sets.List sorts). */
const METRIC_SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"];
/** The field of each metric source type. */
const SOURCE_FIELDS: Readonly<Record<string, string>> = {
  Object: "object",
  Pods: "pods",
  Resource: "resource",
  External: "external",
  ContainerResource: "containerResource",
};
const SELECT_POLICIES = ["Disabled", "Max", "Min"];
const POLICY_TYPES = ["Percent", "Pods"];
const MUST_POPULATE = "must populate information for the given metric source";

/**
 * The sign of a resource.Quantity in its JSON form (a number, or a string such as `"100m"`,
 * `"-1"`, `"1.5Gi"`): 1, 0 or -1; `undefined` when it is neither.
 */
function quantitySign(value: JsonValue | undefined): number | undefined {
  if (typeof value === "number") return Math.sign(value);
  if (typeof value !== "string") return undefined;
  const match = /^([+-]?)([0-9]*\.?[0-9]*)/.exec(value);
  const digits = match?.[2] ?? "";
  if (!/[0-9]/.test(digits)) return undefined;
  if (!/[1-9]/.test(digits)) return 0;
  return match?.[1] === "-" ? -1 : 1;
}

/** validateMetricTarget. */
function validateTarget(target: JsonObject, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = target["type"];
  if (typeof type !== "string" || type === "")
    errors.push(fieldRequired(`${at}.type`, "must specify a metric target type"));
  if (type !== "Utilization" && type !== "Value" && type !== "AverageValue")
    errors.push(
      fieldInvalid(`${at}.type`, type ?? "", "must be either Utilization, Value, or AverageValue"),
    );
  for (const key of ["value", "averageValue"]) {
    const quantity = target[key];
    if (quantity !== undefined && quantity !== null && quantitySign(quantity) !== 1)
      errors.push(fieldInvalid(`${at}.${key}`, quantity, "must be positive"));
  }
  const utilization = target["averageUtilization"];
  if (typeof utilization === "number" && utilization < 1)
    errors.push(fieldInvalid(`${at}.averageUtilization`, utilization, "must be greater than 0"));
  return errors;
}

/** validateMetricIdentifier. */
function validateMetricName(source: JsonObject, at: string): FieldError[] {
  const name = objectAt(source, "metric")["name"];
  if (typeof name !== "string" || name === "")
    return [fieldRequired(`${at}.metric.name`, "must specify a metric name")];
  return validatePathSegmentName(name).map((msg) => fieldInvalid(`${at}.metric.name`, name, msg));
}

function isSet(obj: JsonObject, key: string): boolean {
  return obj[key] !== undefined && obj[key] !== null;
}

/** The source-specific rules (validateObjectSource, validatePodsSource, …). */
function validateSource(kind: string, source: JsonObject, at: string): FieldError[] {
  const target = objectAt(source, "target");
  const errors: FieldError[] = [];
  switch (kind) {
    case "object":
      errors.push(
        ...validateScaleTargetRef(objectAt(source, "describedObject"), `${at}.describedObject`),
      );
      errors.push(...validateMetricName(source, at), ...validateTarget(target, `${at}.target`));
      if (!isSet(target, "value") && !isSet(target, "averageValue"))
        errors.push(
          fieldRequired(
            `${at}.target.averageValue`,
            "must set either a target value or averageValue",
          ),
        );
      break;
    case "external":
      errors.push(...validateMetricName(source, at), ...validateTarget(target, `${at}.target`));
      if (!isSet(target, "value") && !isSet(target, "averageValue"))
        errors.push(
          fieldRequired(
            `${at}.target.averageValue`,
            "must set either a target value for metric or a per-pod target",
          ),
        );
      if (isSet(target, "value") && isSet(target, "averageValue"))
        errors.push(
          fieldForbidden(
            `${at}.target.value`,
            "may not set both a target value for metric and a per-pod target",
          ),
        );
      break;
    case "pods":
      errors.push(...validateMetricName(source, at), ...validateTarget(target, `${at}.target`));
      if (!isSet(target, "averageValue"))
        errors.push(
          fieldRequired(`${at}.target.averageValue`, "must specify a positive target averageValue"),
        );
      break;
    case "resource":
    case "containerResource": {
      const name = source["name"];
      if (typeof name !== "string" || name === "")
        errors.push(fieldRequired(`${at}.name`, "must specify a resource name"));
      if (kind === "containerResource") {
        const container = source["container"];
        if (typeof container !== "string" || container === "")
          errors.push(fieldRequired(`${at}.container`, "must specify a container"));
        else
          for (const msg of isDns1123Label(container))
            errors.push(fieldInvalid(`${at}.container`, container, msg));
      }
      errors.push(...validateTarget(target, `${at}.target`));
      if (!isSet(target, "averageUtilization") && !isSet(target, "averageValue"))
        errors.push(
          fieldRequired(
            `${at}.target.averageUtilization`,
            "must set either a target raw value or a target utilization",
          ),
        );
      if (isSet(target, "averageUtilization") && isSet(target, "averageValue"))
        errors.push(
          fieldForbidden(
            `${at}.target.averageValue`,
            "may not set both a target raw value and a target utilization",
          ),
        );
      break;
    }
  }
  return errors;
}

/** validateMetricSpec. */
function validateMetric(metric: JsonObject, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = typeof metric["type"] === "string" ? metric["type"] : "";
  if (type === "") errors.push(fieldRequired(`${at}.type`, "must specify a metric source type"));
  if (!METRIC_SOURCE_TYPES.includes(type))
    errors.push(fieldNotSupported(`${at}.type`, type, METRIC_SOURCE_TYPES));
  const present: string[] = [];
  for (const field of ["object", "external", "pods", "resource", "containerResource"]) {
    const source = metric[field];
    if (!isJsonObject(source)) continue;
    present.push(field);
    // Only the first source present is validated.
    if (present.length === 1) errors.push(...validateSource(field, source, `${at}.${field}`));
  }
  const expected = SOURCE_FIELDS[type];
  if (expected === undefined)
    errors.push(fieldNotSupported(`${at}.type`, type, METRIC_SOURCE_TYPES));
  else if (!present.includes(expected))
    errors.push(fieldRequired(`${at}.${expected}`, MUST_POPULATE));
  if (present.length !== 1)
    for (const field of present)
      if (field !== expected)
        errors.push(fieldForbidden(`${at}.${field}`, "must populate the given metric source only"));
  return errors;
}

/** validateMetrics. */
function validateMetrics(spec: JsonObject): FieldError[] {
  const metrics = Array.isArray(spec["metrics"]) ? spec["metrics"] : [];
  const errors: FieldError[] = [];
  let objectOrExternal = false;
  metrics.forEach((metric, i) => {
    if (!isJsonObject(metric)) return;
    errors.push(...validateMetric(metric, `spec.metrics[${i}]`));
    if (metric["type"] === "Object" || metric["type"] === "External") objectOrExternal = true;
  });
  if (spec["minReplicas"] === 0 && !objectOrExternal)
    errors.push(
      fieldForbidden(
        "spec.metrics",
        "must specify at least one Object or External metric to support scaling to zero replicas",
      ),
    );
  return errors;
}

/** validateScalingRules for `behavior.scaleUp` / `behavior.scaleDown`. */
function validateScalingRules(rules: JsonObject, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const window = rules["stabilizationWindowSeconds"];
  if (typeof window === "number" && window < 0)
    errors.push(
      fieldInvalid(
        `${at}.stabilizationWindowSeconds`,
        window,
        "must be greater than or equal to zero",
      ),
    );
  if (typeof window === "number" && window > MAX_STABILIZATION_WINDOW_SECONDS)
    errors.push(
      fieldInvalid(
        `${at}.stabilizationWindowSeconds`,
        window,
        `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`,
      ),
    );
  const select = rules["selectPolicy"];
  if (typeof select === "string" && !SELECT_POLICIES.includes(select))
    errors.push(fieldNotSupported(`${at}.selectPolicy`, select, SELECT_POLICIES));
  const policies = Array.isArray(rules["policies"]) ? rules["policies"] : [];
  if (policies.length === 0)
    errors.push(fieldRequired(`${at}.policies`, "must specify at least one Policy"));
  policies.forEach((policy, i) => {
    if (!isJsonObject(policy)) return;
    const path = `${at}.policies[${i}]`;
    const type = typeof policy["type"] === "string" ? policy["type"] : "";
    if (!POLICY_TYPES.includes(type))
      errors.push(fieldNotSupported(`${path}.type`, type, POLICY_TYPES));
    const value = typeof policy["value"] === "number" ? policy["value"] : 0;
    if (value <= 0) errors.push(fieldInvalid(`${path}.value`, value, "must be greater than zero"));
    const period = typeof policy["periodSeconds"] === "number" ? policy["periodSeconds"] : 0;
    if (period <= 0)
      errors.push(fieldInvalid(`${path}.periodSeconds`, period, "must be greater than zero"));
    if (period > MAX_PERIOD_SECONDS)
      errors.push(
        fieldInvalid(
          `${path}.periodSeconds`,
          period,
          `must be less than or equal to ${MAX_PERIOD_SECONDS}`,
        ),
      );
  });
  return errors;
}

/** validateBehavior. */
function validateBehavior(spec: JsonObject): FieldError[] {
  const behavior = spec["behavior"];
  if (!isJsonObject(behavior)) return [];
  const errors: FieldError[] = [];
  for (const key of ["scaleUp", "scaleDown"]) {
    const rules = behavior[key];
    if (isJsonObject(rules)) errors.push(...validateScalingRules(rules, `spec.behavior.${key}`));
  }
  return errors;
}

/**
 * autoscaling/v1's CPU target, as kube converts it to a Resource metric
 * (`pkg/apis/autoscaling/v1/conversion.go`) and validates that metric's utilization.
 */
function validateV1CpuTarget(spec: JsonObject): FieldError[] {
  const percent = spec["targetCPUUtilizationPercentage"];
  if (typeof percent !== "number" || percent >= 1) return [];
  return [
    fieldInvalid(
      "spec.metrics[0].resource.target.averageUtilization",
      percent,
      "must be greater than 0",
    ),
  ];
}

/** ValidateCrossVersionObjectReference on the reference `ref` at `at`. */
function validateScaleTargetRef(ref: JsonObject, at: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of ["kind", "name"]) {
    const path = `${at}.${key}`;
    const value = ref[key];
    if (typeof value !== "string" || value === "") errors.push(fieldRequired(path));
    else
      for (const msg of validatePathSegmentName(value)) errors.push(fieldInvalid(path, value, msg));
  }
  return errors;
}

function validateHorizontalPodAutoscaler(obj: JsonObject): FieldError[] {
  const spec = objectAt(obj, "spec");
  const errors: FieldError[] = [];
  const min = spec["minReplicas"];
  const max = typeof spec["maxReplicas"] === "number" ? spec["maxReplicas"] : 0;
  if (typeof min === "number" && min < MIN_REPLICAS_LOWER_BOUND)
    errors.push(
      fieldInvalid(
        "spec.minReplicas",
        min,
        `must be greater than or equal to ${MIN_REPLICAS_LOWER_BOUND}`,
      ),
    );
  if (max < 1) errors.push(fieldInvalid("spec.maxReplicas", max, "must be greater than 0"));
  if (typeof min === "number" && max < min)
    errors.push(
      fieldInvalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"),
    );
  errors.push(...validateScaleTargetRef(objectAt(spec, "scaleTargetRef"), "spec.scaleTargetRef"));
  errors.push(...validateV1CpuTarget(spec), ...validateMetrics(spec), ...validateBehavior(spec));
  return errors;
}

/** The HorizontalPodAutoscaler strategy. */
export const horizontalPodAutoscalerStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  validateCreate: validateHorizontalPodAutoscaler,
  validateUpdate: (next) => validateHorizontalPodAutoscaler(next),
};
