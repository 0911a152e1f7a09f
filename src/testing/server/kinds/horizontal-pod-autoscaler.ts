/**
 * autoscaling HorizontalPodAutoscalers (`pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go`):
 * generation tracked, and the spec rules of ValidateHorizontalPodAutoscaler
 * (`pkg/apis/autoscaling/validation/validation.go`): `scaleTargetRef` kind and name required
 * and valid path segments, `minReplicas` at least 1 when set (scale to zero is an alpha
 * feature gate, off), `maxReplicas` above 0 and not below `minReplicas`. Metrics and
 * behavior are not checked.
 */
import { fieldInvalid, fieldRequired, type FieldError } from "../../../core/field-errors.js";
import type { JsonObject } from "../../../core/json.js";
import { validatePathSegmentName } from "../../../core/names.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

const MIN_REPLICAS_LOWER_BOUND = 1;

/** ValidateCrossVersionObjectReference on `spec.scaleTargetRef`. */
function validateScaleTargetRef(spec: JsonObject): FieldError[] {
  const ref = objectAt(spec, "scaleTargetRef");
  const errors: FieldError[] = [];
  for (const key of ["kind", "name"]) {
    const path = `spec.scaleTargetRef.${key}`;
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
  errors.push(...validateScaleTargetRef(spec));
  return errors;
}

/** The HorizontalPodAutoscaler strategy. */
export const horizontalPodAutoscalerStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  validateCreate: validateHorizontalPodAutoscaler,
  validateUpdate: (next) => validateHorizontalPodAutoscaler(next),
};
