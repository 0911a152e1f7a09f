import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import {
  RBAC_GROUP,
  validateBinding,
  validatePolicyRules,
  validateRoleRefUnchanged,
} from "../../../../packages/apiserver/src/kinds/rbac-rules.js";
import { frozen, messages } from "./kind-test-helpers.js";

/**
 * The RBAC rules (`pkg/apis/rbac/validation/validation.go`: ValidatePolicyRule,
 * ValidateRoleBinding, validateRoleBindingSubject, ValidateRoleBindingUpdate).
 */

const SUPPORTED_GROUP = `supported values: "${RBAC_GROUP}"`;

describe("validatePolicyRules (ValidatePolicyRule)", () => {
  it("requires verbs, and api groups and resources for resource rules", () => {
    const rules = frozen({ rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }, {}] });
    expect(messages(validatePolicyRules(rules, true))).toEqual([
      "rules[1].verbs: Required value: verbs must contain at least one value",
      "rules[1].apiGroups: Required value: resource rules must supply at least one api group",
      "rules[1].resources: Required value: resource rules must supply at least one resource",
    ]);
  });

  it("allows non-resource URLs only in cluster-wide rules, never mixed with resources", () => {
    const urls = frozen({ rules: [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }] });
    expect(validatePolicyRules(urls, false)).toEqual([]);
    expect(messages(validatePolicyRules(urls, true))).toEqual([
      'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
    ]);
    const mixed = frozen({
      rules: [{ nonResourceURLs: ["/metrics"], resources: ["pods"], verbs: ["get"] }],
    });
    expect(messages(validatePolicyRules(mixed, false))).toEqual([
      'rules[0].nonResourceURLs: Invalid value: ["/metrics"]: rules cannot apply to both regular resources and non-resource URLs',
    ]);
  });
});

describe("validateBinding (ValidateRoleBinding, validateRoleBindingSubject)", () => {
  const roleRef = { apiGroup: RBAC_GROUP, kind: "Role", name: "reader" };

  function binding(fields: JsonObject): JsonObject {
    return frozen({ metadata: { name: "b" }, roleRef, ...fields });
  }

  it("accepts ServiceAccount, User and Group subjects", () => {
    expect(
      validateBinding(
        binding({
          subjects: [
            { kind: "ServiceAccount", name: "default", namespace: "team" },
            { kind: "User", apiGroup: RBAC_GROUP, name: "alice" },
            { kind: "Group", apiGroup: RBAC_GROUP, name: "devs" },
          ],
        }),
        ["Role", "ClusterRole"],
        false,
      ),
    ).toEqual([]);
  });

  it("checks the roleRef's group, kind and name", () => {
    expect(
      messages(
        validateBinding(
          binding({ roleRef: { apiGroup: "", kind: "Secret" } }),
          ["Role", "ClusterRole"],
          false,
        ),
      ),
    ).toEqual([
      `roleRef.apiGroup: Unsupported value: "": ${SUPPORTED_GROUP}`,
      'roleRef.kind: Unsupported value: "Secret": supported values: "Role", "ClusterRole"',
      "roleRef.name: Required value",
    ]);
  });

  it("checks each subject's name, kind, api group and (cluster-wide) namespace", () => {
    expect(
      messages(
        validateBinding(
          binding({
            subjects: [
              { kind: "ServiceAccount", apiGroup: RBAC_GROUP, name: "sa" },
              { kind: "User", name: "bob" },
              { kind: "Robot", name: "r2" },
              { kind: "Group", apiGroup: RBAC_GROUP },
            ],
          }),
          ["ClusterRole"],
          true,
        ),
      ),
    ).toEqual([
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      `subjects[0].apiGroup: Unsupported value: "${RBAC_GROUP}": supported values: ""`,
      "subjects[0].namespace: Required value",
      `subjects[1].apiGroup: Unsupported value: "": ${SUPPORTED_GROUP}`,
      'subjects[2].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      "subjects[3].name: Required value",
    ]);
  });
});

describe("validateRoleRefUnchanged (ValidateRoleBindingUpdate)", () => {
  it("reports a changed roleRef with the internal type's Go field names", () => {
    const old = frozen({ roleRef: { apiGroup: RBAC_GROUP, kind: "Role", name: "a" } });
    expect(validateRoleRefUnchanged(old, old)).toEqual([]);
    expect(
      messages(
        validateRoleRefUnchanged(
          frozen({ roleRef: { apiGroup: RBAC_GROUP, kind: "Role", name: "b" } }),
          old,
        ),
      ),
    ).toEqual([
      `roleRef: Invalid value: {"APIGroup":"${RBAC_GROUP}","Kind":"Role","Name":"b"}: cannot change roleRef`,
    ]);
  });
});
