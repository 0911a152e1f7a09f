import { describe, expect, it } from "vitest";
import {
  nonResourceAttributes,
  type AuthorizationAttributes,
} from "../../../packages/apiserver/src/authorization/authorization-attributes.js";
import { createAlwaysAllowAuthorizer } from "../../../packages/apiserver/src/authorization/always-allow-authorizer.js";
import { forbiddenError } from "../../../packages/apiserver/src/authorization/forbidden.js";
import {
  policyRuleOf,
  ruleAllows,
} from "../../../packages/apiserver/src/authorization/policy-rule-matching.js";

const JANE = { name: "jane", groups: ["system:authenticated"] };
const ANONYMOUS = { name: "system:anonymous", groups: ["system:unauthenticated"] };

function resource(
  verb: string,
  resourceName: string,
  extra: Partial<AuthorizationAttributes> = {},
): AuthorizationAttributes {
  return {
    user: JANE,
    verb,
    resourceRequest: true,
    path: "",
    namespace: "default",
    apiGroup: "",
    apiVersion: "v1",
    resource: resourceName,
    subresource: "",
    name: "",
    ...extra,
  };
}

describe("RBAC rule matching (kube's RuleAllows)", () => {
  it("matches verbs, groups and resources, with * for each", () => {
    const rule = { verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] };
    expect(ruleAllows(resource("get", "pods"), rule)).toBe(true);
    expect(ruleAllows(resource("delete", "pods"), rule)).toBe(false);
    expect(ruleAllows(resource("get", "pods", { apiGroup: "apps" }), rule)).toBe(false);
    expect(ruleAllows(resource("get", "secrets"), rule)).toBe(false);
    const all = { verbs: ["*"], apiGroups: ["*"], resources: ["*"] };
    expect(
      ruleAllows(
        resource("escalate", "roles", { apiGroup: "rbac.authorization.k8s.io", subresource: "x" }),
        all,
      ),
    ).toBe(true);
  });

  it("matches subresources by pair or */subresource, never by the parent alone", () => {
    const pods = { verbs: ["get"], apiGroups: [""], resources: ["pods"] };
    expect(ruleAllows(resource("get", "pods", { subresource: "log" }), pods)).toBe(false);
    const log = { verbs: ["get"], apiGroups: [""], resources: ["pods/log"] };
    expect(ruleAllows(resource("get", "pods", { subresource: "log" }), log)).toBe(true);
    const anyStatus = { verbs: ["get"], apiGroups: ["*"], resources: ["*/status"] };
    expect(
      ruleAllows(
        resource("get", "deployments", { apiGroup: "apps", subresource: "status" }),
        anyStatus,
      ),
    ).toBe(true);
    expect(ruleAllows(resource("get", "deployments", { apiGroup: "apps" }), anyStatus)).toBe(false);
  });

  it("restricts to resourceNames when listed (a collection never matches)", () => {
    const rule = {
      verbs: ["get", "list"],
      apiGroups: [""],
      resources: ["configmaps"],
      resourceNames: ["app"],
    };
    expect(ruleAllows(resource("get", "configmaps", { name: "app" }), rule)).toBe(true);
    expect(ruleAllows(resource("get", "configmaps", { name: "other" }), rule)).toBe(false);
    expect(ruleAllows(resource("list", "configmaps"), rule)).toBe(false);
  });

  it("matches non-resource URLs exactly, by * prefix, or *", () => {
    const rule = { verbs: ["get"], nonResourceURLs: ["/healthz", "/apis/*"] };
    expect(ruleAllows(nonResourceAttributes(JANE, "get", "/healthz"), rule)).toBe(true);
    expect(ruleAllows(nonResourceAttributes(JANE, "get", "/healthz/ping"), rule)).toBe(false);
    expect(ruleAllows(nonResourceAttributes(JANE, "get", "/apis/apps/v1"), rule)).toBe(true);
    expect(ruleAllows(nonResourceAttributes(JANE, "post", "/healthz"), rule)).toBe(false);
    expect(ruleAllows(resource("get", "healthz"), rule)).toBe(false);
  });

  it("reads stored rules defensively: non-string members dropped, non-objects empty", () => {
    expect(policyRuleOf({ verbs: ["get", 3], resources: "pods" })).toEqual({ verbs: ["get"] });
    expect(policyRuleOf(null)).toEqual({});
  });
});

describe("the AlwaysAllow authorizer's anonymous rule", () => {
  it("restricts anonymous users to GET of the public-info paths when asked to", () => {
    const restricted = createAlwaysAllowAuthorizer({ restrictAnonymous: true });
    expect(restricted.authorize(nonResourceAttributes(ANONYMOUS, "get", "/version")).allowed).toBe(
      true,
    );
    expect(restricted.authorize(nonResourceAttributes(ANONYMOUS, "get", "/api")).allowed).toBe(
      false,
    );
    expect(restricted.authorize(nonResourceAttributes(ANONYMOUS, "head", "/healthz")).allowed).toBe(
      false,
    );
    expect(restricted.authorize(resource("get", "pods", { user: JANE })).allowed).toBe(true);
    const open = createAlwaysAllowAuthorizer({ restrictAnonymous: false });
    expect(open.authorize(nonResourceAttributes(ANONYMOUS, "get", "/api")).allowed).toBe(true);
  });
});

describe("forbiddenError (responsewriters.Forbidden)", () => {
  it("words resource, named, cluster-scope and path denials as kube-apiserver", () => {
    expect(forbiddenError(resource("list", "pods"), "").status.message).toBe(
      'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    const named = forbiddenError(
      resource("create", "pods", { name: "web", subresource: "exec" }),
      "",
    );
    expect(named.status.message).toBe(
      'pods "web" is forbidden: User "jane" cannot create resource "pods/exec" in API group "" in the namespace "default"',
    );
    expect(named.status.details).toEqual({ name: "web", kind: "pods" });
    expect(
      forbiddenError(
        resource("list", "clusterroles", { namespace: "", apiGroup: "rbac.authorization.k8s.io" }),
        "RBAC: x",
      ).status.message,
    ).toBe(
      'clusterroles.rbac.authorization.k8s.io is forbidden: User "jane" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope: RBAC: x',
    );
    expect(
      forbiddenError(nonResourceAttributes(ANONYMOUS, "get", "/a<b>"), "").status.message,
    ).toBe('forbidden: User "system:anonymous" cannot get path "/a&lt;b&gt;"');
  });
});
