/**
 * policy/v1 PodDisruptionBudgets (`pkg/registry/policy/poddisruptionbudget/strategy.go`) and
 * ValidatePodDisruptionBudgetSpec (`pkg/apis/policy/validation/validation.go`; apps validation's
 * ValidatePositiveIntOrPercent and IsNotMoreThan100Percent). The spec may change on update
 * (policy/v1).
 *
 * @kind PodDisruptionBudget
 * @validation name a path segment; minAvailable and maxUnavailable not both set; each an
 * integer ≥ 0 or a percent ≤ 100%; unhealthyPodEvictionPolicy supported (AlwaysAllow,
 * IfHealthyBudget)
 * @update same checks
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { fieldInvalid, fieldNotSupported, isValidPercent } from "kubekit/apimachinery";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

const UNHEALTHY_POD_EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"];
const MAX_PERCENT = 100;

/**
 * apps validation's ValidatePositiveIntOrPercent and IsNotMoreThan100Percent on one
 * int-or-string field: an integer >= 0, or a `<n>%` string with n <= 100.
 */
function validateIntOrPercent(value: JsonValue, path: string): FieldError[] {
  if (typeof value === "number")
    return value < 0 ? [fieldInvalid(path, value, "must be greater than or equal to 0")] : [];
  if (typeof value !== "string") return [];
  const errors = isValidPercent(value).map((msg) => fieldInvalid(path, value, msg));
  if (errors.length === 0 && Number(value.slice(0, -1)) > MAX_PERCENT)
    errors.push(fieldInvalid(path, value, "must not be greater than 100%"));
  return errors;
}

function validatePodDisruptionBudget(obj: JsonObject): FieldError[] {
  const spec = objectAt(obj, "spec");
  const errors: FieldError[] = [];
  const minAvailable = spec["minAvailable"] ?? null;
  const maxUnavailable = spec["maxUnavailable"] ?? null;
  if (minAvailable !== null && maxUnavailable !== null)
    errors.push(fieldInvalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
  if (minAvailable !== null)
    errors.push(...validateIntOrPercent(minAvailable, "spec.minAvailable"));
  if (maxUnavailable !== null)
    errors.push(...validateIntOrPercent(maxUnavailable, "spec.maxUnavailable"));
  const policy = spec["unhealthyPodEvictionPolicy"];
  if (typeof policy === "string" && !UNHEALTHY_POD_EVICTION_POLICIES.includes(policy))
    errors.push(
      fieldNotSupported("spec.unhealthyPodEvictionPolicy", policy, UNHEALTHY_POD_EVICTION_POLICIES),
    );
  return errors;
}

/** The PodDisruptionBudget strategy. */
export const podDisruptionBudgetStrategy: KindStrategy = {
  policy: { tracksGeneration: true, nameRule: "path-segment" },
  validateCreate: validatePodDisruptionBudget,
  validateUpdate: (next) => validatePodDisruptionBudget(next),
};
