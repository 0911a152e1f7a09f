import { beforeAll, describe, expect, it } from "vitest";
import { ApiClient, type RawResponse } from "../../support/api-client.js";
import { eventually, useServer } from "../../support/server-test-helpers.js";

/**
 * `ApiServer.start({ authorization: "RBAC" })` over HTTPS: kube's bootstrap policy, RBAC
 * decisions from Roles, ClusterRoles and bindings (aggregation included), 403s worded as
 * kube-apiserver's `responsewriters/errors.go`, impersonation, the access reviews answered by
 * the RBAC authorizer, and streaming upgrades authorized like every request.
 */

const RBAC = "/apis/rbac.authorization.k8s.io/v1";
const SSAR = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

function expectForbidden(res: RawResponse, message: string): void {
  expect(res.status, res.text).toBe(403);
  expect(res.json).toMatchObject({ kind: "Status", reason: "Forbidden", code: 403, message });
}

describe("RBAC authorization", () => {
  const h = useServer({ authorization: "RBAC" });
  let admin: ApiClient;
  let jane: ApiClient;

  beforeAll(async () => {
    const doc = h.server.kubeconfigDocument();
    const user = doc.users[0]?.user ?? {};
    admin = ApiClient.for(h.server, {
      cert: Buffer.from(String(user["client-certificate-data"]), "base64").toString(),
      key: Buffer.from(String(user["client-key-data"]), "base64").toString(),
    });
    const cert = await h.server.issueClientCertificate("jane", ["devs"]);
    jane = ApiClient.for(h.server, { cert: cert.certPem, key: cert.keyPem });
    return async () => {
      await admin.close();
      await jane.close();
    };
  });

  it("serves HTTPS, and the kubeconfig's admin certificate (system:masters) may do everything", async () => {
    expect(h.server.url).toMatch(/^https:/);
    expect((await admin.get("/api/v1/namespaces")).status).toBe(200);
    expect((await admin.get("/logs")).status).not.toBe(403);
  });

  it("stores kube's bootstrap roles and bindings, with admin/edit/view aggregated", async () => {
    const binding = await admin.get(`${RBAC}/clusterrolebindings/cluster-admin`);
    expect(binding.json.subjects).toEqual([
      { apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "system:masters" },
    ]);
    await eventually("view aggregated", async () => {
      const view = await admin.get(`${RBAC}/clusterroles/view`);
      return (view.json.rules as unknown[] | undefined)?.length ? true : undefined;
    });
    const edit = await admin.get(`${RBAC}/clusterroles/edit`);
    const view = await admin.get(`${RBAC}/clusterroles/view`);
    // edit aggregates view's rules (view carries aggregate-to-edit) and its own.
    for (const rule of view.json.rules as unknown[]) expect(edit.json.rules).toContainEqual(rule);
  });

  it("answers a user without a binding 403 in kube's words, discovery and /version allowed", async () => {
    expectForbidden(
      await jane.get("/api/v1/namespaces/default/pods"),
      'pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    const named = await jane.get("/apis/apps/v1/namespaces/default/deployments/web");
    expectForbidden(
      named,
      'deployments.apps "web" is forbidden: User "jane" cannot get resource "deployments" in API group "apps" in the namespace "default"',
    );
    expect(named.json.details).toEqual({ name: "web", group: "apps", kind: "deployments" });
    expectForbidden(
      await jane.get("/api/v1/nodes"),
      'nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope',
    );
    expectForbidden(await jane.get("/logs"), 'forbidden: User "jane" cannot get path "/logs"');
    expect((await jane.get("/api")).status).toBe(200);
    expect((await jane.get("/version")).status).toBe(200);
    const watch = await jane.watch("/api/v1/namespaces/default/configmaps?watch=true");
    expect(watch.status).toBe(403);
    watch.close();
  });

  it("allows what a RoleBinding grants, per verb, subresource and resource name", async () => {
    const role = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "cm-reader", namespace: "default" },
      rules: [
        { apiGroups: [""], resources: ["configmaps"], verbs: ["get"], resourceNames: ["app"] },
        { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
      ],
    };
    expect((await admin.post(`${RBAC}/namespaces/default/roles`, role)).status).toBe(201);
    const binding = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "devs-read", namespace: "default" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "cm-reader" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "devs" }],
    };
    expect((await admin.post(`${RBAC}/namespaces/default/rolebindings`, binding)).status).toBe(201);
    expect((await jane.get("/api/v1/namespaces/default/configmaps/app")).status).toBe(404);
    expect((await jane.get("/api/v1/namespaces/default/configmaps/other")).status).toBe(403);
    expect((await jane.get("/api/v1/namespaces/default/configmaps")).status).toBe(403);
    expect((await jane.get("/api/v1/namespaces/other/configmaps/app")).status).toBe(403);
    const review = await jane.post(SSAR, {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: {
        resourceAttributes: {
          namespace: "default",
          verb: "get",
          resource: "pods",
          subresource: "log",
        },
      },
    });
    expect(review.json.status).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "devs-read/default" of Role "cm-reader" to Group "devs"',
    });
    const rules = await jane.post("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectRulesReview",
      spec: { namespace: "default" },
    });
    expect(rules.json.status.resourceRules).toContainEqual({
      verbs: ["get"],
      apiGroups: [""],
      resources: ["configmaps"],
      resourceNames: ["app"],
    });
    expect(rules.json.status.incomplete).toBe(false);
  });

  it("aggregates a labelled ClusterRole into edit and admin", async () => {
    const crd = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: {
        name: "widgets-edit",
        labels: { "rbac.authorization.k8s.io/aggregate-to-edit": "true" },
      },
      rules: [{ apiGroups: ["example.com"], resources: ["widgets"], verbs: ["*"] }],
    };
    expect((await admin.post(`${RBAC}/clusterroles`, crd)).status).toBe(201);
    for (const name of ["edit", "admin"]) {
      await eventually(`${name} aggregates widgets`, async () => {
        const role = await admin.get(`${RBAC}/clusterroles/${name}`);
        return JSON.stringify(role.json.rules).includes("widgets") ? true : undefined;
      });
    }
  });

  it("checks impersonation with the impersonate verb, then runs as the impersonated user", async () => {
    expectForbidden(
      await admin.get("/api/v1/namespaces/default/secrets", {
        headers: { "impersonate-user": "bob" },
      }),
      'secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "default"',
    );
    expectForbidden(
      await jane.get("/api/v1/namespaces/default/secrets", {
        headers: { "impersonate-user": "admin" },
      }),
      'users "admin" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const whoami = await admin.post(
      "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      {},
      {
        headers: { "impersonate-user": "bob", "impersonate-group": "qa" },
      },
    );
    expect(whoami.json.status.userInfo).toEqual({
      username: "bob",
      groups: ["qa", "system:authenticated"],
    });
  });

  it("answers a SubjectAccessReview for another user from RBAC", async () => {
    const sar = (user: string, groups: string[]): Promise<RawResponse> =>
      admin.post("/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { user, groups, resourceAttributes: { verb: "delete", resource: "nodes" } },
      });
    expect((await sar("bob", [])).json.status).toEqual({ allowed: false });
    expect((await sar("bob", ["system:masters"])).json.status).toEqual({ allowed: true });
  });

  it("authorizes pods/exec like every subresource (create for a POST)", async () => {
    expectForbidden(
      await jane.request("POST", "/api/v1/namespaces/default/pods/web/exec?command=true"),
      'pods "web" is forbidden: User "jane" cannot create resource "pods/exec" in API group "" in the namespace "default"',
    );
  });
});
