import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { roleBindingStrategy } from "../../../../packages/apiserver/src/kinds/role-binding.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/** rbac.authorization.k8s.io/v1 RoleBindings (ValidateRoleBinding, ValidateRoleBindingUpdate). */

const roleBinding = hooksOf(roleBindingStrategy);
const GROUP = "rbac.authorization.k8s.io";

function bindingTo(kind: string, name: string, subjects: JsonObject[] = []): JsonObject {
  return {
    metadata: { name: "b", namespace: "team" },
    roleRef: { apiGroup: GROUP, kind, name },
    subjects,
  };
}

describe("RoleBinding", () => {
  it("binds a Role or a ClusterRole; a ServiceAccount subject needs no namespace", () => {
    expect(
      roleBinding.validateCreate(
        bindingTo("Role", "reader", [{ kind: "ServiceAccount", name: "default" }]),
      ),
    ).toEqual([]);
    expect(roleBinding.validateCreate(bindingTo("ClusterRole", "view"))).toEqual([]);
    expect(messages(roleBinding.validateCreate(bindingTo("Group", "x")))).toEqual([
      'roleRef.kind: Unsupported value: "Group": supported values: "Role", "ClusterRole"',
    ]);
  });

  it("keeps the roleRef immutable and checks subjects on update", () => {
    const old = bindingTo("Role", "reader");
    expect(
      roleBinding.validateUpdate(
        bindingTo("Role", "reader", [{ kind: "User", apiGroup: GROUP, name: "alice" }]),
        old,
      ),
    ).toEqual([]);
    expect(
      messages(
        roleBinding.validateUpdate(
          bindingTo("ClusterRole", "view", [{ kind: "User", name: "alice" }]),
          old,
        ),
      ),
    ).toEqual([
      `subjects[0].apiGroup: Unsupported value: "": supported values: "${GROUP}"`,
      `roleRef: Invalid value: {"APIGroup":"${GROUP}","Kind":"ClusterRole","Name":"view"}: cannot change roleRef`,
    ]);
  });

  it("names are path segments", () => {
    expect(roleBindingStrategy.policy).toEqual({ nameRule: "path-segment" });
  });
});
