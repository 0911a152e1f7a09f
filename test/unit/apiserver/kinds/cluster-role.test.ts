import { describe, expect, it } from "vitest";
import { clusterRoleStrategy } from "../../../../packages/apiserver/src/kinds/cluster-role.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/** rbac.authorization.k8s.io/v1 ClusterRoles (`pkg/apis/rbac/validation/validation.go` ValidateClusterRole). */

const clusterRole = hooksOf(clusterRoleStrategy);

describe("ClusterRole", () => {
  it("accepts resource rules and non-resource URLs", () => {
    expect(
      clusterRole.validateCreate({
        metadata: { name: "viewer" },
        rules: [
          { apiGroups: ["apps"], resources: ["deployments"], verbs: ["get"] },
          { nonResourceURLs: ["/healthz", "/metrics"], verbs: ["get"] },
        ],
      }),
    ).toEqual([]);
  });

  it("requires verbs, on create and update", () => {
    const bad = { metadata: { name: "viewer" }, rules: [{ nonResourceURLs: ["/healthz"] }] };
    const expected = ["rules[0].verbs: Required value: verbs must contain at least one value"];
    expect(messages(clusterRole.validateCreate(bad))).toEqual(expected);
    expect(messages(clusterRole.validateUpdate(bad, { metadata: { name: "viewer" } }))).toEqual(
      expected,
    );
  });

  it("names are path segments", () => {
    expect(clusterRoleStrategy.policy).toEqual({ nameRule: "path-segment" });
  });
});
