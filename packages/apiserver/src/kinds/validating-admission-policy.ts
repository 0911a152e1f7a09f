/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies
 * (`pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go`,
 * `pkg/apis/admissionregistration/validation/validation.go` validateValidatingAdmissionPolicySpec,
 * `pkg/apis/admissionregistration/v1/defaults.go`). The policies are enforced by the admission
 * plugin of `admission/policy/`; the type-checking controller writes their status.
 *
 * @kind ValidatingAdmissionPolicy
 * @defaults failurePolicy Fail; matchConstraints matchPolicy Equivalent, empty namespaceSelector
 * and objectSelector, every rule's scope `*`
 * @validation failurePolicy required (Fail or Ignore); paramKind apiVersion and kind well-formed;
 * matchConstraints required with at least one resourceRule (rules and selectors as webhooks');
 * matchConditions (at most 64, qualified unique names, CEL bool expressions); variables (CEL
 * identifiers, expressions compile, each seeing the earlier ones); validations or
 * auditAnnotations required; each validation's expression compiles to bool, messageExpression to
 * string, message non-blank and single-line, reason Forbidden/Invalid/RequestEntityTooLarge/
 * Unauthorized; at most 20 auditAnnotations with unique keys forming qualified names with the
 * policy name, valueExpressions compile to string or null; `params` only with paramKind
 * @update metadata.generation bumped on spec changes; unchanged matchConditions are not
 * re-validated; status writes check typeChecking.expressionWarnings (warning and fieldRef required)
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  deepEqual,
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooMany,
  isDns1035Label,
  isDns1123Subdomain,
  isJsonObject,
  isQualifiedName,
} from "kubekit/apimachinery";
import { compileVariables, paramKindOf } from "../admission/policy/compiled-policy.js";
import {
  compilePolicyExpression,
  type PolicyCelDeclarations,
  type PolicyExpressionResult,
} from "../admission/policy/policy-cel.js";
import { defaultMatchResources, validateMatchResources } from "./admission-rule-validation.js";
import type { KindStrategy } from "./kind-strategy.js";

const FAILURE_POLICIES = ["Fail", "Ignore"];
const REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_VALUE_EXPRESSION_LENGTH = 5 * 1024;
const MAX_MATCH_CONDITIONS = 64;
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set(
  "true false null in as break const continue else for function if import let loop package namespace return var void while".split(
    " ",
  ),
);

function str(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}

function objects(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

function specOf(obj: JsonObject): JsonObject {
  return isJsonObject(obj["spec"]) ? obj["spec"] : {};
}

/** A CEL expression's compile error at `path`, as kube's convertCELErrorToValidationError reports it. */
function celErrors(
  path: string,
  source: string,
  result: PolicyExpressionResult,
  decl: PolicyCelDeclarations,
): FieldError[] {
  const compiled = compilePolicyExpression(source, result, decl);
  if (compiled.ok) return [];
  return [
    compiled.required
      ? fieldRequired(path, compiled.error)
      : fieldInvalid(path, source, compiled.error),
  ];
}

function validateParamKind(pk: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const apiVersion = str(pk["apiVersion"]);
  if (apiVersion === "") {
    errors.push(fieldRequired(`${path}.apiVersion`));
  } else {
    const parts = apiVersion.split("/");
    if (parts.length > 2) {
      errors.push(
        fieldInvalid(
          `${path}.apiVersion`,
          apiVersion,
          `unexpected GroupVersion string: ${apiVersion}`,
        ),
      );
    } else {
      const [group, version] =
        parts.length === 1 ? ["", parts[0] ?? ""] : [parts[0] ?? "", parts[1] ?? ""];
      const groupErrors = group === "" ? [] : isDns1123Subdomain(group);
      if (groupErrors.length > 0)
        errors.push(fieldInvalid(`${path}.apiVersion`, group, groupErrors.join(",")));
      if (version === "") {
        errors.push(fieldInvalid(`${path}.apiVersion`, apiVersion, "version must be specified"));
      } else {
        const versionErrors = isDns1035Label(version);
        if (versionErrors.length > 0) {
          errors.push(fieldInvalid(`${path}.apiVersion`, version, versionErrors.join(",")));
        }
      }
    }
  }
  const kind = str(pk["kind"]);
  if (kind === "") {
    errors.push(fieldRequired(`${path}.kind`));
  } else {
    const kindErrors = isDns1035Label(kind.toLowerCase());
    if (kindErrors.length > 0) {
      errors.push(
        fieldInvalid(
          `${path}.kind`,
          kind,
          `may have mixed case, but should otherwise match: ${kindErrors.join(",")}`,
        ),
      );
    }
  }
  return errors;
}

function validateMatchConditions(
  conditions: JsonObject[],
  decl: PolicyCelDeclarations,
): FieldError[] {
  const path = "spec.matchConditions";
  const errors: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) {
    errors.push(fieldTooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  }
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const at = `${path}[${i}]`;
    const expression = str(c["expression"]).trim();
    if (expression === "") errors.push(fieldRequired(`${at}.expression`));
    else errors.push(...celErrors(`${at}.expression`, expression, "bool", decl));
    const name = str(c["name"]);
    if (name === "") errors.push(fieldRequired(`${at}.name`));
    else
      for (const msg of isQualifiedName(name)) errors.push(fieldInvalid(`${at}.name`, name, msg));
    if (name !== "") {
      if (names.has(name)) errors.push(fieldDuplicate(`${at}.name`, name));
      names.add(name);
    }
  });
  return errors;
}

function validateVariables(spec: JsonObject, hasParams: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const { variables } = compileVariables(spec, { hasParams });
  objects(spec["variables"]).forEach((v, i) => {
    const at = `spec.variables[${i}]`;
    const name = str(v["name"]);
    if (name.trim() === "") errors.push(fieldRequired(`${at}.name`, "name is not specified"));
    else if (!CEL_IDENTIFIER.test(name) || CEL_RESERVED.has(name)) {
      errors.push(fieldInvalid(`${at}.name`, name, "name is not a valid CEL identifier"));
    }
    const expression = str(v["expression"]);
    const compiled = variables[i]?.expression;
    if (expression.trim() === "") {
      errors.push(fieldRequired(`${at}.expression`, "expression is not specified"));
    } else if (compiled?.error !== undefined) {
      errors.push(fieldInvalid(`${at}.expression`, expression, compiled.error));
    }
  });
  return errors;
}

function validateValidation(v: JsonObject, at: string, decl: PolicyCelDeclarations): FieldError[] {
  const errors: FieldError[] = [];
  const expression = str(v["expression"]);
  if (expression.trim() === "") {
    errors.push(fieldRequired(`${at}.expression`, "expression is not specified"));
  } else errors.push(...celErrors(`${at}.expression`, expression, "bool", decl));
  const messageExpression = str(v["messageExpression"]);
  if (messageExpression !== "" && messageExpression.trim() === "") {
    errors.push(
      fieldInvalid(`${at}.messageExpression`, messageExpression, "must be non-empty if specified"),
    );
  } else if (messageExpression.trim() !== "") {
    errors.push(
      ...celErrors(`${at}.messageExpression`, messageExpression, "string", {
        ...decl,
        hasAuthorizer: false,
      }),
    );
  }
  const message = str(v["message"]);
  if (message !== "" && message.trim() === "") {
    errors.push(fieldInvalid(`${at}.message`, message, "message must be non-empty if specified"));
  } else if (/[\n\r]/.test(message.trim())) {
    errors.push(fieldInvalid(`${at}.message`, message, "message must not contain line breaks"));
  }
  const reason = v["reason"];
  if (reason !== undefined && reason !== null && !REASONS.includes(String(reason))) {
    errors.push(fieldNotSupported(`${at}.reason`, reason, REASONS));
  }
  return errors;
}

function validateAuditAnnotations(
  policyName: string,
  annotations: JsonObject[],
  decl: PolicyCelDeclarations,
): FieldError[] {
  const path = "spec.auditAnnotations";
  const errors: FieldError[] = [];
  if (annotations.length > MAX_AUDIT_ANNOTATIONS) {
    errors.push(
      fieldInvalid(
        path,
        annotations,
        `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`,
      ),
    );
  }
  const keys = new Set<string>();
  annotations.forEach((a, i) => {
    const at = `${path}[${i}]`;
    const key = str(a["key"]);
    if (policyName === "")
      errors.push(fieldInvalid(`${at}.key`, key, "requires metadata.name be non-empty"));
    else {
      const qualified = `${policyName}/${key}`;
      for (const msg of isQualifiedName(qualified))
        errors.push(fieldInvalid(`${at}.key`, qualified, msg));
    }
    const value = str(a["valueExpression"]).trim();
    if (value === "") {
      errors.push(fieldRequired(`${at}.valueExpression`, "valueExpression is not specified"));
    } else if (value.length > MAX_VALUE_EXPRESSION_LENGTH) {
      errors.push(
        fieldRequired(
          `${at}.valueExpression`,
          `must not exceed ${MAX_VALUE_EXPRESSION_LENGTH} bytes in length`,
        ),
      );
    } else errors.push(...celErrors(`${at}.valueExpression`, value, "string-or-null", decl));
    if (keys.has(key)) errors.push(fieldDuplicate(`${at}.key`, key));
    keys.add(key);
  });
  return errors;
}

function validateMatchConstraints(spec: JsonObject): FieldError[] {
  const mc = spec["matchConstraints"];
  if (!isJsonObject(mc)) return [fieldRequired("spec.matchConstraints")];
  const errors = validateMatchResources(mc, "spec.matchConstraints");
  if (objects(mc["resourceRules"]).length === 0) {
    errors.push(fieldRequired("spec.matchConstraints.resourceRules"));
  }
  return errors;
}

/**
 * Field errors of a policy (kube's validateValidatingAdmissionPolicySpec); `old` on update
 * (unchanged matchConditions are not re-validated, as kube's ignoreMatchConditions).
 */
export function validateValidatingAdmissionPolicy(obj: JsonObject, old?: JsonObject): FieldError[] {
  const spec = specOf(obj);
  const errors: FieldError[] = [];
  const failurePolicy = spec["failurePolicy"];
  if (failurePolicy === undefined || failurePolicy === null)
    errors.push(fieldRequired("spec.failurePolicy"));
  else if (!FAILURE_POLICIES.includes(String(failurePolicy))) {
    errors.push(fieldNotSupported("spec.failurePolicy", failurePolicy, FAILURE_POLICIES));
  }
  const pk = spec["paramKind"];
  if (isJsonObject(pk)) errors.push(...validateParamKind(pk, "spec.paramKind"));
  const hasParams = paramKindOf(spec) !== undefined;
  errors.push(...validateMatchConstraints(spec));
  const { decl } = compileVariables(spec, { hasParams });
  const conditions = spec["matchConditions"];
  if (!old || !deepEqual(conditions, specOf(old)["matchConditions"])) {
    errors.push(...validateMatchConditions(objects(conditions), decl));
  }
  errors.push(...validateVariables(spec, hasParams));
  const validations = objects(spec["validations"]);
  const annotations = objects(spec["auditAnnotations"]);
  if (validations.length === 0 && annotations.length === 0) {
    const detail = "validations or auditAnnotations must contain at least one item";
    errors.push(
      fieldRequired("spec.validations", detail),
      fieldRequired("spec.auditAnnotations", detail),
    );
    return errors;
  }
  validations.forEach((v, i) =>
    errors.push(...validateValidation(v, `spec.validations[${i}]`, decl)),
  );
  const name = str((obj["metadata"] as JsonObject | undefined)?.["name"]);
  errors.push(...validateAuditAnnotations(name, annotations, decl));
  return errors;
}

/** kube's validateValidatingAdmissionPolicyStatus (expression warnings; conditions unchecked). */
function validateStatus(obj: JsonObject): FieldError[] {
  const status = isJsonObject(obj["status"]) ? obj["status"] : {};
  const typeChecking = status["typeChecking"];
  if (!isJsonObject(typeChecking)) return [];
  const errors: FieldError[] = [];
  objects(typeChecking["expressionWarnings"]).forEach((w, i) => {
    const at = `status.typeChecking.expressionWarnings[${i}]`;
    if (str(w["warning"]) === "") errors.push(fieldRequired(`${at}.warning`));
    if (str(w["fieldRef"]).trim() === "") errors.push(fieldRequired(`${at}.fieldRef`));
  });
  return errors;
}

/** The policy with kube's defaults (see the module comment). */
function applyDefaults(obj: JsonObject): JsonObject {
  const spec = specOf(obj);
  const out: JsonObject = { ...spec };
  out["failurePolicy"] ??= "Fail";
  if (isJsonObject(spec["matchConstraints"])) {
    out["matchConstraints"] = defaultMatchResources(spec["matchConstraints"]);
  }
  return { ...obj, spec: out };
}

/** The ValidatingAdmissionPolicy strategy. */
export const validatingAdmissionPolicyStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  applyDefaults,
  validateCreate: (obj) => validateValidatingAdmissionPolicy(obj),
  validateUpdate: (next, old) => validateValidatingAdmissionPolicy(next, old),
  status: { validateUpdate: (next) => validateStatus(next) },
};
