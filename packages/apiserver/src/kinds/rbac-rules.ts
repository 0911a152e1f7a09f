/**
 * The RBAC rules Roles, ClusterRoles, RoleBindings and ClusterRoleBindings share
 * (`pkg/apis/rbac/validation/validation.go`: ValidatePolicyRule, ValidateRoleBinding,
 * validateRoleBindingSubject, ValidateRoleBindingUpdate).
 */
import type { FieldError, JsonObject } from "kubekit";
import {
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  deepEqual,
  isJsonObject,
} from "kubekit/apimachinery";
import { objectAt } from "./pod-spec.js";

/** The RBAC API group, the only one a roleRef or a User or Group subject may name. */
export const RBAC_GROUP = "rbac.authorization.k8s.io";

function nonEmpty(v: unknown): boolean {
  return Array.isArray(v) && v.length > 0;
}

/**
 * ValidatePolicyRule for each of `rules`: verbs required; a rule is either about resources
 * (api groups and resources required) or, for cluster roles only, non-resource URLs.
 */
export function validatePolicyRules(obj: JsonObject, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const rules = Array.isArray(obj["rules"]) ? obj["rules"] : [];
  rules.forEach((rule, i) => {
    if (!isJsonObject(rule)) return;
    const at = `rules[${i}]`;
    if (!nonEmpty(rule["verbs"]))
      errors.push(fieldRequired(`${at}.verbs`, "verbs must contain at least one value"));
    const urls = rule["nonResourceURLs"];
    if (nonEmpty(urls)) {
      if (namespaced) {
        errors.push(
          fieldInvalid(
            `${at}.nonResourceURLs`,
            urls,
            "namespaced rules cannot apply to non-resource URLs",
          ),
        );
      }
      if (
        nonEmpty(rule["apiGroups"]) ||
        nonEmpty(rule["resources"]) ||
        nonEmpty(rule["resourceNames"])
      ) {
        errors.push(
          fieldInvalid(
            `${at}.nonResourceURLs`,
            urls,
            "rules cannot apply to both regular resources and non-resource URLs",
          ),
        );
      }
      return;
    }
    if (!nonEmpty(rule["apiGroups"]))
      errors.push(
        fieldRequired(`${at}.apiGroups`, "resource rules must supply at least one api group"),
      );
    if (!nonEmpty(rule["resources"]))
      errors.push(
        fieldRequired(`${at}.resources`, "resource rules must supply at least one resource"),
      );
  });
  return errors;
}

/**
 * ValidateRoleBinding's roleRef and subject rules; `roleKinds` are the kinds the roleRef may
 * name (a ClusterRoleBinding only ClusterRole); ServiceAccount subjects of a
 * ClusterRoleBinding need a namespace.
 */
export function validateBinding(
  obj: JsonObject,
  roleKinds: readonly string[],
  clusterScoped: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  const roleRef = objectAt(obj, "roleRef");
  if (roleRef["apiGroup"] !== RBAC_GROUP)
    errors.push(fieldNotSupported("roleRef.apiGroup", roleRef["apiGroup"] ?? "", [RBAC_GROUP]));
  if (!roleKinds.includes(String(roleRef["kind"])))
    errors.push(fieldNotSupported("roleRef.kind", roleRef["kind"] ?? "", roleKinds));
  if (typeof roleRef["name"] !== "string" || roleRef["name"] === "")
    errors.push(fieldRequired("roleRef.name"));
  const subjects = Array.isArray(obj["subjects"]) ? obj["subjects"] : [];
  subjects.forEach((subject, i) => {
    if (!isJsonObject(subject)) return;
    const at = `subjects[${i}]`;
    if (typeof subject["name"] !== "string" || subject["name"] === "")
      errors.push(fieldRequired(`${at}.name`));
    const kind = subject["kind"];
    const apiGroup = subject["apiGroup"] ?? "";
    if (kind === "ServiceAccount") {
      if (apiGroup !== "") errors.push(fieldNotSupported(`${at}.apiGroup`, apiGroup, [""]));
      if (clusterScoped && (subject["namespace"] ?? "") === "")
        errors.push(fieldRequired(`${at}.namespace`));
    } else if (kind === "User" || kind === "Group") {
      if (apiGroup !== RBAC_GROUP)
        errors.push(fieldNotSupported(`${at}.apiGroup`, apiGroup, [RBAC_GROUP]));
    } else {
      errors.push(fieldNotSupported(`${at}.kind`, kind ?? "", ["ServiceAccount", "User", "Group"]));
    }
  });
  return errors;
}

/**
 * ValidateRoleBindingUpdate: `roleRef: Invalid value: …: cannot change roleRef`. The value is
 * the internal RoleRef, which has no JSON tags: Go prints its field names.
 */
export function validateRoleRefUnchanged(next: JsonObject, old: JsonObject): FieldError[] {
  if (deepEqual(next["roleRef"], old["roleRef"])) return [];
  const roleRef = objectAt(next, "roleRef");
  const value = {
    APIGroup: roleRef["apiGroup"] ?? "",
    Kind: roleRef["kind"] ?? "",
    Name: roleRef["name"] ?? "",
  };
  return [fieldInvalid("roleRef", value, "cannot change roleRef")];
}
