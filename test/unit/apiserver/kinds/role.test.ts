import { describe, expect, it } from "vitest";
import { roleStrategy } from "../../../../packages/apiserver/src/kinds/role.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/** rbac.authorization.k8s.io/v1 Roles (`pkg/apis/rbac/validation/validation.go` ValidateRole). */

const role = hooksOf(roleStrategy);

describe("Role", () => {
  it("accepts resource rules and rejects non-resource URLs, on create and update", () => {
    const ok = {
      metadata: { name: "reader" },
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }],
    };
    expect(role.validateCreate(ok)).toEqual([]);
    const urls = {
      metadata: { name: "reader" },
      rules: [{ nonResourceURLs: ["/healthz"], verbs: ["get"] }],
    };
    const expected = [
      'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
    ];
    expect(messages(role.validateCreate(urls))).toEqual(expected);
    expect(messages(role.validateUpdate(urls, ok))).toEqual(expected);
  });

  it("names are path segments", () => {
    expect(roleStrategy.policy).toEqual({ nameRule: "path-segment" });
  });
});
