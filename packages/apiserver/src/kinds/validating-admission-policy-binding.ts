/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBindings
 * (`pkg/registry/admissionregistration/validatingadmissionpolicybinding/strategy.go`,
 * `pkg/apis/admissionregistration/validation/validation.go`
 * validateValidatingAdmissionPolicyBindingSpec, validateParamRef, validateValidationActions).
 *
 * @kind ValidatingAdmissionPolicyBinding
 * @defaults matchResources (when set): matchPolicy Equivalent, empty namespaceSelector and
 * objectSelector, every rule's scope `*`
 * @validation policyName required, a DNS subdomain; paramRef: name (a path segment) or selector,
 * not both, one of them required, parameterNotFoundAction required (Allow or Deny);
 * matchResources as the policy's matchConstraints (reported under kube's misspelled
 * `spec.matchResouces`); validationActions required, unique, Deny/Warn/Audit, not both Deny and
 * Warn
 * @update same checks
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isDns1123Subdomain,
  isJsonObject,
  validatePathSegmentName,
} from "kubekit/apimachinery";
import { defaultMatchResources, validateMatchResources } from "./admission-rule-validation.js";
import type { KindStrategy } from "./kind-strategy.js";
import { validateLabelSelector } from "./label-selector-validation.js";

const VALIDATION_ACTIONS = ["Audit", "Deny", "Warn"];
const NOT_FOUND_ACTIONS = ["Deny", "Allow"];

function specOf(obj: JsonObject): JsonObject {
  return isJsonObject(obj["spec"]) ? obj["spec"] : {};
}

function validateParamRef(pr: JsonValue | undefined): FieldError[] {
  if (!isJsonObject(pr)) return [];
  const path = "spec.paramRef";
  const errors: FieldError[] = [];
  const name = typeof pr["name"] === "string" ? pr["name"] : "";
  const selector = pr["selector"];
  const hasSelector = selector !== undefined && selector !== null;
  if (name !== "") {
    for (const msg of validatePathSegmentName(name))
      errors.push(fieldInvalid(`${path}.name`, name, msg));
    if (hasSelector)
      errors.push(fieldForbidden(`${path}.name`, "name and selector are mutually exclusive"));
  }
  if (hasSelector) {
    errors.push(...validateLabelSelector(selector, `${path}.selector`));
    if (name !== "") {
      errors.push(fieldForbidden(`${path}.selector`, "name and selector are mutually exclusive"));
    }
  }
  if (name === "" && !hasSelector)
    errors.push(fieldRequired(path, "one of name or selector must be specified"));
  const action = pr["parameterNotFoundAction"];
  if (action === undefined || action === null || action === "") {
    errors.push(fieldRequired(`${path}.parameterNotFoundAction`));
  } else if (!NOT_FOUND_ACTIONS.includes(String(action))) {
    errors.push(fieldNotSupported(`${path}.parameterNotFoundAction`, action, NOT_FOUND_ACTIONS));
  }
  return errors;
}

function validateValidationActions(actions: JsonValue | undefined): FieldError[] {
  const path = "spec.validationActions";
  const list = Array.isArray(actions) ? actions : [];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((action, i) => {
    const a = String(action);
    if (!VALIDATION_ACTIONS.includes(a))
      errors.push(fieldNotSupported(`${path}[${i}]`, action, VALIDATION_ACTIONS));
    if (seen.has(a)) errors.push(fieldDuplicate(`${path}[${i}]`, action));
    seen.add(a);
  });
  if (seen.has("Deny") && seen.has("Warn")) {
    errors.push(
      fieldInvalid(
        path,
        list,
        "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
      ),
    );
  }
  if (seen.size === 0)
    errors.push(fieldRequired(path, "at least one validation action is required"));
  return errors;
}

/** Field errors of a binding (kube's validateValidatingAdmissionPolicyBindingSpec). */
export function validateValidatingAdmissionPolicyBinding(obj: JsonObject): FieldError[] {
  const spec = specOf(obj);
  const errors: FieldError[] = [];
  const policyName = typeof spec["policyName"] === "string" ? spec["policyName"] : "";
  if (policyName === "") errors.push(fieldRequired("spec.policyName"));
  else
    for (const msg of isDns1123Subdomain(policyName))
      errors.push(fieldInvalid("spec.policyName", policyName, msg));
  errors.push(...validateParamRef(spec["paramRef"]));
  const mr = spec["matchResources"];
  // kube reports these under the misspelled path `spec.matchResouces`.
  if (isJsonObject(mr)) errors.push(...validateMatchResources(mr, "spec.matchResouces"));
  errors.push(...validateValidationActions(spec["validationActions"]));
  return errors;
}

function applyDefaults(obj: JsonObject): JsonObject {
  const spec = specOf(obj);
  const mr = spec["matchResources"];
  if (!isJsonObject(mr)) return obj;
  return { ...obj, spec: { ...spec, matchResources: defaultMatchResources(mr) } };
}

/** The ValidatingAdmissionPolicyBinding strategy. */
export const validatingAdmissionPolicyBindingStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  applyDefaults,
  validateCreate: validateValidatingAdmissionPolicyBinding,
  validateUpdate: (next) => validateValidatingAdmissionPolicyBinding(next),
};
