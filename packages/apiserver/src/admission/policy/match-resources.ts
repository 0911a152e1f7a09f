/**
 * Whether a request falls under a policy's `matchConstraints` or a binding's `matchResources`
 * (kube's `k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching.go`, with the rule,
 * namespace and object predicates of `plugin/webhook/predicates/`):
 *
 * - `namespaceSelector` against the labels of the request's namespace (a Namespace's own labels
 *   for a request on a Namespace; cluster-scoped requests always pass; a namespace that does
 *   not exist does not match);
 * - `objectSelector` against the labels of the object or of the old object;
 * - `excludeResourceRules` (any match excludes), then `resourceRules` (none given: everything
 *   matches): operations, apiGroups, apiVersions, resources (`*`, `res/*`, `*\/sub`, `*\/*`),
 *   scope, resourceNames;
 * - with `matchPolicy: Equivalent` (the default) a rule naming another version of the same
 *   resource (the same storage) matches too, reporting that version's resource and kind.
 *
 * Requests on the admissionregistration.k8s.io configuration resources themselves are never
 * subject to policies (kube's `IsExemptAdmissionConfigurationResource`).
 */
import { LabelSelector, type JsonObject, type LabelSelectorSpec } from "kubekit";
import { isJsonObject, labelsOf } from "kubekit/apimachinery";
import type { ResourceEntry } from "../../registry/registry.js";
import type { ServerContext } from "../../server/server-context.js";
import { NAMESPACE_STORAGE_ID } from "../../kinds/namespace.js";
import type { AdmissionAttributes } from "../admission-attributes.js";

/** The resource and kind a request matched as (the request's, or an equivalent version's). */
export interface MatchedResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
}

const EXEMPT = new Set([
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

/** Whether `attrs` is on an admission configuration resource (never subject to policies). */
export function isExemptAdmissionConfigurationResource(attrs: AdmissionAttributes): boolean {
  const info = attrs.entry.info;
  return info.group === "admissionregistration.k8s.io" && EXEMPT.has(info.plural);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
}

function isNamespaceRequest(attrs: AdmissionAttributes): boolean {
  return attrs.entry.storageId === NAMESPACE_STORAGE_ID;
}

function listMatches(values: readonly string[], value: string): boolean {
  return values.some((v) => v === "*" || v === value);
}

function resourceMatches(resources: readonly string[], resource: string, sub: string): boolean {
  return resources.some((item) => {
    const slash = item.indexOf("/");
    const res = slash < 0 ? item : item.slice(0, slash);
    const itemSub = slash < 0 ? "" : item.slice(slash + 1);
    return (res === "*" || res === resource) && (itemSub === "*" || itemSub === sub);
  });
}

function scopeMatches(scope: unknown, attrs: AdmissionAttributes): boolean {
  if (scope === undefined || scope === "*") return true;
  if (scope === "Namespaced") return !isNamespaceRequest(attrs) && attrs.namespace !== "";
  if (scope === "Cluster") return isNamespaceRequest(attrs) || attrs.namespace === "";
  return false;
}

/** Whether one `RuleWithOperations` matches `attrs` as the resource `as` (kube's `rules.Matcher`). */
export function ruleMatches(
  rule: JsonObject,
  attrs: AdmissionAttributes,
  as: { readonly group: string; readonly version: string; readonly resource: string },
): boolean {
  return (
    scopeMatches(rule["scope"], attrs) &&
    listMatches(strings(rule["operations"]), attrs.operation) &&
    listMatches(strings(rule["apiGroups"]), as.group) &&
    listMatches(strings(rule["apiVersions"]), as.version) &&
    resourceMatches(strings(rule["resources"]), as.resource, attrs.subresource)
  );
}

function requestResource(entry: ResourceEntry): MatchedResource {
  const info = entry.info;
  return { group: info.group, version: info.version, resource: info.plural, kind: info.kind };
}

function matchesRules(
  ctx: ServerContext,
  rules: readonly JsonObject[],
  matchPolicy: unknown,
  attrs: AdmissionAttributes,
): MatchedResource | undefined {
  const requested = requestResource(attrs.entry);
  for (const rule of rules) {
    if (!ruleMatches(rule, attrs, requested)) continue;
    const names = strings(rule["resourceNames"]);
    if (names.length === 0 || names.includes(attrs.name)) return requested;
  }
  if (matchPolicy !== "Equivalent") return undefined;
  const equivalents = ctx.registry
    .entriesFor(attrs.entry.storageId)
    .filter((e) => e.info.version !== attrs.entry.info.version || e.info.group !== requested.group);
  for (const rule of rules) {
    for (const equivalent of equivalents) {
      const as = requestResource(equivalent);
      if (ruleMatches(rule, attrs, as)) return as;
    }
  }
  return undefined;
}

function selectorOf(v: unknown): LabelSelector | undefined {
  // A missing selector matches everything (defaulted to `{}`); a malformed one matches nothing.
  if (v === undefined || v === null) return LabelSelector.everything();
  if (!isJsonObject(v)) return undefined;
  try {
    return LabelSelector.fromLabelSelector(v as unknown as LabelSelectorSpec);
  } catch {
    return undefined;
  }
}

/** The labels the namespaceSelector is matched against, or undefined when there is no namespace. */
function namespaceLabels(
  ctx: ServerContext,
  attrs: AdmissionAttributes,
): Record<string, string> | undefined {
  if (isNamespaceRequest(attrs)) {
    return (
      labelsOf(
        attrs.operation === "DELETE" ? attrs.oldObject : (attrs.object ?? attrs.oldObject),
      ) ?? {}
    );
  }
  const ns = ctx.storage.get(NAMESPACE_STORAGE_ID, attrs.namespace);
  return ns ? (labelsOf(ns) ?? {}) : undefined;
}

function namespaceMatches(
  ctx: ServerContext,
  selector: unknown,
  attrs: AdmissionAttributes,
): boolean {
  if (attrs.namespace === "" && !isNamespaceRequest(attrs)) return true;
  const parsed = selectorOf(selector);
  if (!parsed) return false;
  if (parsed.isEmpty()) return true;
  const labels = namespaceLabels(ctx, attrs);
  return labels !== undefined && parsed.matches(labels);
}

function objectMatches(selector: unknown, attrs: AdmissionAttributes): boolean {
  const parsed = selectorOf(selector);
  if (!parsed) return false;
  if (parsed.isEmpty()) return true;
  const matches = (obj: JsonObject | undefined): boolean =>
    obj !== undefined && parsed.matches(labelsOf(obj) ?? {});
  return matches(attrs.object) || matches(attrs.oldObject);
}

function objectsOf(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

/**
 * The resource `attrs` matched `matchResources` as, or undefined when it does not match (see
 * the module comment).
 */
export function matchResources(
  ctx: ServerContext,
  matchResources: JsonObject,
  attrs: AdmissionAttributes,
): MatchedResource | undefined {
  if (!namespaceMatches(ctx, matchResources["namespaceSelector"], attrs)) return undefined;
  if (!objectMatches(matchResources["objectSelector"], attrs)) return undefined;
  const matchPolicy = matchResources["matchPolicy"] ?? "Equivalent";
  const excluded = objectsOf(matchResources["excludeResourceRules"]);
  if (matchesRules(ctx, excluded, matchPolicy, attrs)) return undefined;
  const rules = objectsOf(matchResources["resourceRules"]);
  if (rules.length === 0) return requestResource(attrs.entry);
  return matchesRules(ctx, rules, matchPolicy, attrs);
}

/**
 * Cheap pre-check for `handles`: whether a rule of `matchResources` could match `attrs` by
 * operation, group, version and resource (selectors and names are left to `validate`).
 */
export function rulesCouldMatch(
  ctx: ServerContext,
  matchResources: JsonObject,
  attrs: AdmissionAttributes,
): boolean {
  const rules = objectsOf(matchResources["resourceRules"]);
  if (rules.length === 0) return true;
  return (
    matchesRules(
      ctx,
      rules.map(withoutNames),
      matchResources["matchPolicy"] ?? "Equivalent",
      attrs,
    ) !== undefined
  );
}

function withoutNames(rule: JsonObject): JsonObject {
  const { resourceNames: _ignored, ...rest } = rule;
  return rest;
}
