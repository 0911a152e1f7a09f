/**
 * The admissionregistration.k8s.io rule and match validation and defaulting shared by
 * ValidatingAdmissionPolicies, their bindings (and webhook configurations)
 * (`pkg/apis/admissionregistration/validation/validation.go` validateRuleWithOperations,
 * validateRule, validateResources, validateNamedRuleWithOperations, validateMatchResources;
 * `pkg/apis/admissionregistration/v1/defaults.go` SetDefaults_Rule, SetDefaults_MatchResources).
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isJsonObject,
  validatePathSegmentName,
} from "kubekit/apimachinery";
import { validateLabelSelector } from "./label-selector-validation.js";

const SUPPORTED_OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const VALID_SCOPES = ["*", "Cluster", "Namespaced"];
const MATCH_POLICIES = ["Equivalent", "Exact"];

function strings(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.map((s) => (typeof s === "string" ? s : String(s))) : [];
}

/** kube's validateResources (subresources allowed). */
function validateResources(resources: string[], path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (resources.length === 0) errors.push(fieldRequired(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSubresource = false;
  resources.forEach((resSub, i) => {
    if (resSub === "") {
      errors.push(fieldRequired(`${path}[${i}]`));
      return;
    }
    if (resSub === "*/*") doubleWildcard = true;
    if (resSub === "*") singleWildcard = true;
    const slash = resSub.indexOf("/");
    if (slash < 0) {
      withoutSubresource = resSub !== "*";
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) {
      errors.push(
        fieldInvalid(
          `${path}[${i}]`,
          resSub,
          `if '${res}/*' is present, must not specify ${resSub}`,
        ),
      );
    }
    if (subWithWildcardRes.has(sub)) {
      errors.push(
        fieldInvalid(
          `${path}[${i}]`,
          resSub,
          `if '*/${sub}' is present, must not specify ${resSub}`,
        ),
      );
    }
    if (sub === "*") withWildcardSub.add(res);
    if (res === "*") subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) {
    errors.push(
      fieldInvalid(path, resources, "if '*/*' is present, must not specify other resources"),
    );
  }
  if (singleWildcard && withoutSubresource) {
    errors.push(
      fieldInvalid(
        path,
        resources,
        "if '*' is present, must not specify other resources without subresources",
      ),
    );
  }
  return errors;
}

function validateWildcardList(values: string[], path: string, what: string): FieldError[] {
  if (values.length === 0) return [fieldRequired(path)];
  if (values.length > 1 && values.includes("*")) {
    return [fieldInvalid(path, values, `if '*' is present, must not specify other ${what}`)];
  }
  return [];
}

/** Field errors of a `RuleWithOperations` at `path` (kube's validateRuleWithOperations). */
export function validateRuleWithOperations(rule: JsonObject, path: string): FieldError[] {
  const operations = strings(rule["operations"]);
  const errors = validateWildcardList(operations, `${path}.operations`, "operations");
  operations.forEach((op, i) => {
    if (!SUPPORTED_OPERATIONS.includes(op)) {
      errors.push(fieldNotSupported(`${path}.operations[${i}]`, op, SUPPORTED_OPERATIONS));
    }
  });
  errors.push(
    ...validateWildcardList(strings(rule["apiGroups"]), `${path}.apiGroups`, "API groups"),
  );
  const versions = strings(rule["apiVersions"]);
  errors.push(...validateWildcardList(versions, `${path}.apiVersions`, "API versions"));
  versions.forEach((v, i) => {
    if (v === "") errors.push(fieldRequired(`${path}.apiVersions[${i}]`));
  });
  errors.push(...validateResources(strings(rule["resources"]), `${path}.resources`));
  const scope = rule["scope"];
  if (scope !== undefined && scope !== null && !VALID_SCOPES.includes(String(scope))) {
    errors.push(fieldNotSupported(`${path}.scope`, scope, VALID_SCOPES));
  }
  return errors;
}

/** kube's validateNamedRuleWithOperations: resourceNames path segments, unique. */
function validateNamedRule(rule: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  strings(rule["resourceNames"]).forEach((name, i) => {
    const at = `${path}.resourceNames[${i}]`;
    for (const msg of validatePathSegmentName(name)) errors.push(fieldInvalid(at, name, msg));
    if (seen.has(name)) errors.push(fieldDuplicate(at, name));
    seen.add(name);
  });
  return [...errors, ...validateRuleWithOperations(rule, path)];
}

/** Field errors of a `MatchResources` at `path` (kube's validateMatchResources). */
export function validateMatchResources(mr: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const matchPolicy = mr["matchPolicy"];
  if (matchPolicy === undefined || matchPolicy === null) {
    errors.push(fieldRequired(`${path}.matchPolicy`));
  } else if (!MATCH_POLICIES.includes(String(matchPolicy))) {
    errors.push(fieldNotSupported(`${path}.matchPolicy`, matchPolicy, MATCH_POLICIES));
  }
  for (const key of ["namespaceSelector", "objectSelector"]) {
    const selector = mr[key];
    if (selector === undefined || selector === null) errors.push(fieldRequired(`${path}.${key}`));
    else errors.push(...validateLabelSelector(selector, `${path}.${key}`));
  }
  for (const key of ["resourceRules", "excludeResourceRules"]) {
    const rules = mr[key];
    if (!Array.isArray(rules)) continue;
    rules.forEach((rule, i) => {
      if (isJsonObject(rule)) errors.push(...validateNamedRule(rule, `${path}.${key}[${i}]`));
    });
  }
  return errors;
}

function defaultRule(rule: JsonValue): JsonValue {
  return isJsonObject(rule) && (rule["scope"] === undefined || rule["scope"] === null)
    ? { ...rule, scope: "*" }
    : rule;
}

/**
 * `mr` with kube's defaults: `matchPolicy: Equivalent`, empty namespace and object selectors,
 * and every rule's `scope: "*"`. Returns a new object.
 */
export function defaultMatchResources(mr: JsonObject): JsonObject {
  const out: JsonObject = { ...mr };
  out["namespaceSelector"] ??= {};
  out["objectSelector"] ??= {};
  out["matchPolicy"] ??= "Equivalent";
  for (const key of ["resourceRules", "excludeResourceRules"]) {
    const rules = out[key];
    if (Array.isArray(rules)) out[key] = rules.map(defaultRule);
  }
  return out;
}
