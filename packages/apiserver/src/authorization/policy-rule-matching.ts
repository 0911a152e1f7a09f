/**
 * How one RBAC PolicyRule matches a request, as kube's RBAC authorizer matches it
 * (`plugin/pkg/auth/authorizer/rbac/rbac.go` RuleAllows and
 * `pkg/apis/rbac/v1/evaluation_helpers.go`): verbs, API groups, resources (`*`, a
 * `resource/subresource` pair, or `*` + `/subresource` for a subresource of every resource),
 * resource names, and non-resource URLs (`*`, an
 * exact path, or a prefix ending in `*`).
 */
import type { JsonObject } from "kubekit";
import type { AuthorizationAttributes } from "./authorization-attributes.js";

/** An rbac/v1 PolicyRule as stored (every list optional). */
export interface PolicyRule {
  readonly verbs?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** The `*` that matches every verb, group, resource or URL. */
const ALL = "*";

/** Reads a stored rule, keeping only string list members (a malformed rule matches less, never more). */
export function policyRuleOf(value: unknown): PolicyRule {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  const rule = value as JsonObject;
  const list = (key: string): readonly string[] | undefined => {
    const v = rule[key];
    return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : undefined;
  };
  const out: Record<string, readonly string[]> = {};
  for (const key of ["verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"]) {
    const v = list(key);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** Whether `rule` lists `verb` (or `*`). */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return (rule.verbs ?? []).some((v) => v === ALL || v === verb);
}

/** Whether `rule` lists `group` (or `*`). */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === ALL || g === group);
}

/**
 * Whether `rule` lists the resource: `*`, the resource itself (no subresource asked), the
 * `resource/subresource` pair, or `*` + `/subresource`.
 */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === "" ? resource : `${resource}/${subresource}`;
  return (rule.resources ?? []).some(
    (r) => r === ALL || r === combined || (subresource !== "" && r === `*/${subresource}`),
  );
}

/** Whether the rule's resourceNames allow `name`: no names allow every name (and none). */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** Whether the rule's nonResourceURLs match `path`: `*`, the path, or a prefix ending in `*`. */
export function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (url) =>
      url === ALL || url === path || (url.endsWith(ALL) && path.startsWith(url.slice(0, -1))),
  );
}

/** Whether `rule` allows the request described by `attributes`. */
export function ruleAllows(attributes: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (!attributes.resourceRequest) return nonResourceUrlMatches(rule, attributes.path);
  return (
    apiGroupMatches(rule, attributes.apiGroup) &&
    resourceMatches(rule, attributes.resource, attributes.subresource) &&
    resourceNameMatches(rule, attributes.name)
  );
}
