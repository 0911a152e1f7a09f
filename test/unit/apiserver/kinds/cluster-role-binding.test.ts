import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { clusterRoleBindingStrategy } from "../../../../packages/apiserver/src/kinds/cluster-role-binding.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/** rbac.authorization.k8s.io/v1 ClusterRoleBindings (ValidateClusterRoleBinding and its Update). */

const binding = hooksOf(clusterRoleBindingStrategy);
const GROUP = "rbac.authorization.k8s.io";

function bindingTo(kind: string, name: string, subjects: JsonObject[] = []): JsonObject {
  return { metadata: { name: "b" }, roleRef: { apiGroup: GROUP, kind, name }, subjects };
}

describe("ClusterRoleBinding", () => {
  it("binds only ClusterRoles, and ServiceAccount subjects need a namespace", () => {
    expect(
      binding.validateCreate(
        bindingTo("ClusterRole", "view", [
          { kind: "ServiceAccount", name: "default", namespace: "team" },
        ]),
      ),
    ).toEqual([]);
    expect(
      messages(
        binding.validateCreate(
          bindingTo("Role", "reader", [{ kind: "ServiceAccount", name: "default" }]),
        ),
      ),
    ).toEqual([
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      "subjects[0].namespace: Required value",
    ]);
  });

  it("keeps the roleRef immutable", () => {
    const old = bindingTo("ClusterRole", "view");
    expect(binding.validateUpdate(old, old)).toEqual([]);
    expect(messages(binding.validateUpdate(bindingTo("ClusterRole", "edit"), old))).toEqual([
      `roleRef: Invalid value: {"APIGroup":"${GROUP}","Kind":"ClusterRole","Name":"edit"}: cannot change roleRef`,
    ]);
  });

  it("names are path segments", () => {
    expect(clusterRoleBindingStrategy.policy).toEqual({ nameRule: "path-segment" });
  });
});
