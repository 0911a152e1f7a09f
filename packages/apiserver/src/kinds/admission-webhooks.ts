/**
 * The rules shared by admissionregistration.k8s.io/v1 ValidatingWebhookConfigurations and
 * MutatingWebhookConfigurations: the v1 defaults (`pkg/apis/admissionregistration/v1/defaults.go`)
 * and kube's validation (`pkg/apis/admissionregistration/validation/validation.go`) — webhook
 * names fully qualified and unique, rules, failurePolicy, matchPolicy, sideEffects (None or
 * NoneOnDryRun for new webhooks), timeoutSeconds 1..30, selectors, exactly one of url and
 * service, admissionReviewVersions, matchConditions. An update keeps accepting what the stored
 * object already had (side effects, unknown review versions, duplicate names, unchanged
 * matchConditions), as kube's update validation does.
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooMany,
  isDns1035Label,
  isDns1123Subdomain,
  isJsonObject,
  isQualifiedName,
  deepEqual,
} from "kubekit/apimachinery";
import { compilePolicyExpression } from "../admission/policy/policy-cel.js";
import {
  validateWebhookService,
  validateWebhookUrl,
} from "../apiextensions/crd-validation/webhook-client-config.js";
import { validateRuleWithOperations } from "./admission-rule-validation.js";
import { validateLabelSelector } from "./label-selector-validation.js";

/** The AdmissionReview versions this server speaks (kube's `AcceptedAdmissionReviewVersions`). */
const ACCEPTED_REVIEW_VERSIONS = ["v1", "v1beta1"];
const FAILURE_POLICIES = ["Fail", "Ignore"];
const MATCH_POLICIES = ["Equivalent", "Exact"];
const SIDE_EFFECTS = ["None", "NoneOnDryRun", "Some", "Unknown"];
const NO_SIDE_EFFECTS = ["None", "NoneOnDryRun"];
const REINVOCATION_POLICIES = ["IfNeeded", "Never"];
const MAX_MATCH_CONDITIONS = 64;

/** What an update relaxes, from the stored object (kube's `validationOptions`). */
interface WebhookValidationOptions {
  readonly requireNoSideEffects: boolean;
  readonly requireRecognizedReviewVersion: boolean;
  readonly requireUniqueNames: boolean;
  readonly ignoreMatchConditions: boolean;
}

const CREATE_OPTIONS: WebhookValidationOptions = {
  requireNoSideEffects: true,
  requireRecognizedReviewVersion: true,
  requireUniqueNames: true,
  ignoreMatchConditions: false,
};

function webhooksOf(obj: JsonObject): JsonObject[] {
  const hooks = obj["webhooks"];
  return Array.isArray(hooks) ? hooks.map((h) => (isJsonObject(h) ? h : {})) : [];
}

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.map((v) => (typeof v === "string" ? v : String(v))) : [];
}

/** The v1 defaults of one webhook. */
function defaultWebhook(hook: JsonObject, mutating: boolean): JsonObject {
  const out: JsonObject = {
    ...hook,
    failurePolicy: hook["failurePolicy"] ?? "Fail",
    matchPolicy: hook["matchPolicy"] ?? "Equivalent",
    namespaceSelector: hook["namespaceSelector"] ?? {},
    objectSelector: hook["objectSelector"] ?? {},
    timeoutSeconds: hook["timeoutSeconds"] ?? 10,
  };
  if (mutating) out["reinvocationPolicy"] = hook["reinvocationPolicy"] ?? "Never";
  if (Array.isArray(hook["rules"])) {
    out["rules"] = hook["rules"].map((r) =>
      isJsonObject(r) ? { ...r, scope: r["scope"] ?? "*" } : r,
    );
  }
  const cc = hook["clientConfig"];
  if (isJsonObject(cc) && isJsonObject(cc["service"])) {
    out["clientConfig"] = {
      ...cc,
      service: { ...cc["service"], port: cc["service"]["port"] ?? 443 },
    };
  }
  return out;
}

/** The configuration with every webhook defaulted. */
export function defaultWebhookConfiguration(obj: JsonObject, mutating: boolean): JsonObject {
  if (!Array.isArray(obj["webhooks"])) return obj;
  return {
    ...obj,
    webhooks: obj["webhooks"].map((h) => (isJsonObject(h) ? defaultWebhook(h, mutating) : h)),
  };
}

/** kube's `IsFullyQualifiedName`. */
function fullyQualifiedNameErrors(path: string, name: string): FieldError[] {
  if (name === "") return [fieldRequired(path, "")];
  const problems = isDns1123Subdomain(name);
  if (problems.length > 0) return [fieldInvalid(path, name, problems.join(","))];
  if (name.split(".").length < 3) {
    return [
      fieldInvalid(path, name, "should be a domain with at least three segments separated by dots"),
    ];
  }
  return [];
}

/** kube's `validateAdmissionReviewVersions`. */
function reviewVersionsErrors(
  path: string,
  versions: string[],
  requireRecognized: boolean,
): FieldError[] {
  if (versions.length === 0) {
    return [fieldRequired(path, `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(", ")}`)];
  }
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) return errors.push(fieldInvalid(`${path}[${i}]`, v, "duplicate version"));
    seen.add(v);
    for (const msg of isDns1035Label(v)) errors.push(fieldInvalid(`${path}[${i}]`, v, msg));
  });
  if (requireRecognized && !versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v))) {
    errors.push(
      fieldInvalid(
        path,
        versions,
        `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(", ")}`,
      ),
    );
  }
  return errors;
}

/** kube's `validateMatchConditions` (expressions compiled as webhook match conditions). */
function matchConditionsErrors(path: string, value: JsonValue | undefined): FieldError[] {
  const conditions = Array.isArray(value) ? value : [];
  const errors: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS)
    errors.push(fieldTooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const condition = isJsonObject(c) ? c : {};
    const expression = typeof condition["expression"] === "string" ? condition["expression"] : "";
    if (expression.trim() === "") errors.push(fieldRequired(`${path}[${i}].expression`, ""));
    else {
      const compiled = compilePolicyExpression(expression.trim(), "bool", { hasParams: false });
      if (!compiled.ok)
        errors.push(fieldInvalid(`${path}[${i}].expression`, expression.trim(), compiled.error));
    }
    const name = typeof condition["name"] === "string" ? condition["name"] : "";
    if (name === "") return errors.push(fieldRequired(`${path}[${i}].name`, ""));
    for (const msg of isQualifiedName(name))
      errors.push(fieldInvalid(`${path}[${i}].name`, name, msg));
    if (names.has(name)) errors.push(fieldDuplicate(`${path}[${i}].name`, name));
    names.add(name);
  });
  return errors;
}

/** `clientConfig`: exactly one of url and service, each as kube validates it. */
function clientConfigErrors(path: string, value: JsonValue | undefined): FieldError[] {
  const cc = isJsonObject(value) ? value : {};
  const url = cc["url"];
  const service = cc["service"];
  const hasUrl = url !== undefined && url !== null;
  const hasService = service !== undefined && service !== null;
  if (hasUrl === hasService)
    return [fieldRequired(path, "exactly one of url or service is required")];
  if (hasUrl) return validateWebhookUrl(`${path}.url`, String(url));
  const svc = isJsonObject(service) ? service : {};
  return validateWebhookService(
    `${path}.service`,
    String(svc["namespace"] ?? ""),
    String(svc["name"] ?? ""),
    typeof svc["path"] === "string" ? svc["path"] : undefined,
    typeof svc["port"] === "number" ? svc["port"] : 443,
  );
}

function enumErrors(
  path: string,
  value: JsonValue | undefined,
  allowed: readonly string[],
): FieldError[] {
  if (value === undefined || value === null || allowed.includes(String(value))) return [];
  return [fieldNotSupported(path, value, [...allowed])];
}

/** One webhook's errors (kube's `validateValidatingWebhook` / `validateMutatingWebhook`). */
function webhookErrors(
  path: string,
  hook: JsonObject,
  mutating: boolean,
  opts: WebhookValidationOptions,
): FieldError[] {
  const errors = fullyQualifiedNameErrors(`${path}.name`, String(hook["name"] ?? ""));
  const rules = Array.isArray(hook["rules"]) ? hook["rules"] : [];
  rules.forEach((r, i) =>
    errors.push(...validateRuleWithOperations(isJsonObject(r) ? r : {}, `${path}.rules[${i}]`)),
  );
  errors.push(...enumErrors(`${path}.failurePolicy`, hook["failurePolicy"], FAILURE_POLICIES));
  errors.push(...enumErrors(`${path}.matchPolicy`, hook["matchPolicy"], MATCH_POLICIES));
  const allowedSideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : SIDE_EFFECTS;
  const sideEffects = hook["sideEffects"];
  if (sideEffects === undefined || sideEffects === null) {
    errors.push(
      fieldRequired(`${path}.sideEffects`, `must specify one of ${allowedSideEffects.join(", ")}`),
    );
  } else errors.push(...enumErrors(`${path}.sideEffects`, sideEffects, allowedSideEffects));
  const timeout = hook["timeoutSeconds"];
  if (typeof timeout === "number" && (timeout > 30 || timeout < 1)) {
    errors.push(
      fieldInvalid(
        `${path}.timeoutSeconds`,
        timeout,
        "the timeout value must be between 1 and 30 seconds",
      ),
    );
  }
  errors.push(...validateLabelSelector(hook["namespaceSelector"], `${path}.namespaceSelector`));
  errors.push(...validateLabelSelector(hook["objectSelector"], `${path}.objectSelector`));
  if (mutating) {
    errors.push(
      ...enumErrors(
        `${path}.reinvocationPolicy`,
        hook["reinvocationPolicy"],
        REINVOCATION_POLICIES,
      ),
    );
  }
  errors.push(...clientConfigErrors(`${path}.clientConfig`, hook["clientConfig"]));
  if (!opts.ignoreMatchConditions) {
    errors.push(...matchConditionsErrors(`${path}.matchConditions`, hook["matchConditions"]));
  }
  return errors;
}

/** Errors of a configuration's webhooks (metadata is the generic path's). */
function configurationErrors(
  obj: JsonObject,
  mutating: boolean,
  opts: WebhookValidationOptions,
): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  webhooksOf(obj).forEach((hook, i) => {
    const path = `webhooks[${i}]`;
    errors.push(...webhookErrors(path, hook, mutating, opts));
    const versions = strings(hook["admissionReviewVersions"]);
    errors.push(
      ...reviewVersionsErrors(
        `${path}.admissionReviewVersions`,
        versions,
        opts.requireRecognizedReviewVersion,
      ),
    );
    const name = String(hook["name"] ?? "");
    if (opts.requireUniqueNames && name !== "") {
      if (names.has(name)) errors.push(fieldDuplicate(`${path}.name`, name));
      names.add(name);
    }
  });
  return errors;
}

/** Field errors of a new configuration. */
export function validateWebhookConfiguration(obj: JsonObject, mutating: boolean): FieldError[] {
  return configurationErrors(obj, mutating, CREATE_OPTIONS);
}

/** Field errors of an update: what the stored configuration already had stays accepted. */
export function validateWebhookConfigurationUpdate(
  next: JsonObject,
  old: JsonObject,
  mutating: boolean,
): FieldError[] {
  const oldHooks = webhooksOf(old);
  const newHooks = webhooksOf(next);
  const oldNames = oldHooks.map((h) => String(h["name"] ?? ""));
  const opts: WebhookValidationOptions = {
    requireNoSideEffects: oldHooks.every((h) => NO_SIDE_EFFECTS.includes(String(h["sideEffects"]))),
    requireRecognizedReviewVersion: oldHooks.every((h) => {
      const versions = strings(h["admissionReviewVersions"]);
      return versions.length === 0 || versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v));
    }),
    requireUniqueNames: new Set(oldNames).size === oldNames.length,
    ignoreMatchConditions:
      newHooks.length === oldHooks.length &&
      newHooks.every((h, i) => deepEqual(h["matchConditions"], oldHooks[i]?.["matchConditions"])),
  };
  return configurationErrors(next, mutating, opts);
}
