/**
 * apimachinery's validation of a metav1.LabelSelector in an object
 * (`staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go`
 * ValidateLabelSelector, ValidateLabelSelectorRequirement, ValidateLabels), shared by the
 * workload kinds, NetworkPolicies and every other kind with a selector field.
 */
import { type FieldError, type JsonValue, LabelSelector, type LabelSelectorSpec } from "kubekit";
import {
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  isJsonObject,
  isQualifiedName,
  isValidLabelValue,
} from "kubekit/apimachinery";

/** Options of {@link validateLabelSelector} (apimachinery's LabelSelectorValidationOptions). */
export interface LabelSelectorValidationOptions {
  /**
   * Skip the label-value format of `In`/`NotIn` values (kube allows it on update when the
   * stored selector already had such values).
   */
  readonly allowInvalidLabelValues?: boolean;
}

/**
 * Field errors of the selector at `path` (nothing for a missing one): each `matchLabels` key a
 * qualified name and each value a label value (reported at `<path>.matchLabels`, as
 * ValidateLabels does); each `matchExpressions[i]` with `values` required for `In`/`NotIn`
 * and forbidden for `Exists`/`DoesNotExist`, any other operator invalid, the key a qualified
 * name, and each value a label value.
 */
export function validateLabelSelector(
  selector: JsonValue | undefined,
  path: string,
  options: LabelSelectorValidationOptions = {},
): FieldError[] {
  if (!isJsonObject(selector)) return [];
  const errors: FieldError[] = [];
  const matchLabels = selector["matchLabels"];
  if (isJsonObject(matchLabels)) {
    for (const [key, value] of Object.entries(matchLabels)) {
      for (const msg of isQualifiedName(key))
        errors.push(fieldInvalid(`${path}.matchLabels`, key, msg));
      if (typeof value === "string")
        for (const msg of isValidLabelValue(value))
          errors.push(fieldInvalid(`${path}.matchLabels`, value, msg));
    }
  }
  const expressions = selector["matchExpressions"];
  if (Array.isArray(expressions)) {
    expressions.forEach((expression, i) => {
      if (!isJsonObject(expression)) return;
      const at = `${path}.matchExpressions[${i}]`;
      const operator = expression["operator"];
      const values = Array.isArray(expression["values"]) ? expression["values"] : [];
      switch (operator) {
        case "In":
        case "NotIn":
          if (values.length === 0)
            errors.push(
              fieldRequired(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"),
            );
          break;
        case "Exists":
        case "DoesNotExist":
          if (values.length > 0)
            errors.push(
              fieldForbidden(
                `${at}.values`,
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
              ),
            );
          break;
        default:
          errors.push(
            fieldInvalid(`${at}.operator`, operator ?? "", "not a valid selector operator"),
          );
      }
      const key = typeof expression["key"] === "string" ? expression["key"] : "";
      for (const msg of isQualifiedName(key)) errors.push(fieldInvalid(`${at}.key`, key, msg));
      if (options.allowInvalidLabelValues !== true) {
        values.forEach((value, j) => {
          if (typeof value !== "string") return;
          for (const msg of isValidLabelValue(value))
            errors.push(fieldInvalid(`${at}.values[${j}]`, value, msg));
        });
      }
    });
  }
  return errors;
}

/**
 * Whether metav1.LabelSelectorAsSelector accepts the selector (a missing one is accepted: it
 * selects nothing).
 */
export function isConvertibleLabelSelector(selector: JsonValue | undefined): boolean {
  if (!isJsonObject(selector)) return true;
  try {
    LabelSelector.fromLabelSelector(selector as unknown as LabelSelectorSpec);
    return true;
  } catch {
    return false;
  }
}
