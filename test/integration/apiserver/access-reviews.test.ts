import { describe, expect, it } from "vitest";
import { ApiClient } from "../../support/api-client.js";
import { causesOf, expectStatus, type Json, useServer } from "../../support/server-test-helpers.js";

/**
 * The create-only virtual resources of authorization.k8s.io/v1 (SelfSubjectAccessReview,
 * SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview) and
 * authentication.k8s.io/v1 SelfSubjectReview over real HTTP: kube-apiserver's answers under
 * `--authorization-mode=AlwaysAllow` (everything allowed, nothing stored), its 422s for
 * malformed specs (`pkg/apis/authorization/validation/validation.go`), and the authenticated
 * user echoed back (`pkg/registry/authentication/selfsubjectreview/rest.go`).
 */

const AUTHZ = "/apis/authorization.k8s.io/v1";
const SSAR = `${AUTHZ}/selfsubjectaccessreviews`;
const SAR = `${AUTHZ}/subjectaccessreviews`;
const SSRR = `${AUTHZ}/selfsubjectrulesreviews`;
const SSR = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
const ALLOWED = {
  allowed: true,
  reason: "kubekit: no authorization is enforced, every request is allowed",
};

function ssar(spec: Json, metadata: Json = {}): Json {
  return {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    metadata,
    spec,
  };
}

const CREATE_PODS = {
  resourceAttributes: { namespace: "default", verb: "create", resource: "pods" },
};

describe("access reviews and SelfSubjectReview on an anonymous server", () => {
  const h = useServer();

  it("allows a SelfSubjectAccessReview, echoing the spec with managedFields, and stores nothing", async () => {
    const res = await h.client.post(SSAR, ssar(CREATE_PODS), {
      headers: { "user-agent": "kubectl/v1.32.4 (linux/amd64)" },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      metadata: { creationTimestamp: null },
      spec: CREATE_PODS,
      status: ALLOWED,
    });
    expect(res.json.metadata.managedFields).toEqual([
      expect.objectContaining({
        manager: "kubectl",
        operation: "Update",
        apiVersion: "authorization.k8s.io/v1",
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:spec": {
            "f:resourceAttributes": { ".": {}, "f:namespace": {}, "f:resource": {}, "f:verb": {} },
          },
        },
      }),
    ]);
    expect(Object.keys(res.json as Json).slice(0, 2)).toEqual(["apiVersion", "kind"]);
    // Create-only: the collection cannot be read.
    expectStatus(await h.client.get(SSAR), 405, "MethodNotAllowed");
  });

  it("allows non-resource attributes", async () => {
    const spec = { nonResourceAttributes: { path: "/healthz", verb: "get" } };
    const res = await h.client.post(SSAR, ssar(spec));
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ spec, status: ALLOWED });
  });

  it("rejects a spec with neither or both attribute kinds with kube-apiserver's 422", async () => {
    const neither = expectStatus(await h.client.post(SSAR, ssar({})), 422, "Invalid");
    expect(neither["message"]).toBe(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    expect(neither["details"]).toMatchObject({
      group: "authorization.k8s.io",
      kind: "SelfSubjectAccessReview",
    });
    const both = expectStatus(
      await h.client.post(
        SSAR,
        ssar({ ...CREATE_PODS, nonResourceAttributes: { path: "/x", verb: "get" } }),
      ),
      422,
      "Invalid",
    );
    expect(causesOf(both)).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.nonResourceAttributes",
        message:
          'Invalid value: {"path":"/x","verb":"get"}: cannot be specified in combination with resourceAttributes',
      },
    ]);
  });

  it("requires empty metadata (a name or generateName is a 422, a namespace is dropped)", async () => {
    for (const metadata of [{ name: "x" }, { generateName: "x-" }, { labels: { a: "b" } }]) {
      const status = expectStatus(
        await h.client.post(SSAR, ssar(CREATE_PODS, metadata)),
        422,
        "Invalid",
      );
      expect(causesOf(status).map((c) => [c.field, c.message.endsWith(": must be empty")])).toEqual(
        [["metadata", true]],
      );
    }
    const res = await h.client.post(SSAR, ssar(CREATE_PODS, { namespace: "default", labels: {} }));
    expect(res.status, res.text).toBe(201);
    expect(res.json.metadata.namespace).toBeUndefined();
  });

  it("answers 400 for a body of the wrong kind or with wrongly typed fields", async () => {
    const wrongKind = expectStatus(
      await h.client.post(SSAR, { ...ssar(CREATE_PODS), kind: "SubjectAccessReview" }),
      400,
      "BadRequest",
    );
    expect(wrongKind["message"]).toBe(
      "the kind in the data (SubjectAccessReview) does not match the expected kind (SelfSubjectAccessReview)",
    );
    const typed = expectStatus(
      await h.client.post(SSAR, ssar({ resourceAttributes: { verb: 3 } })),
      400,
      "BadRequest",
    );
    expect(typed["message"]).toBe(
      'SelfSubjectAccessReview in version "authorization.k8s.io/v1" cannot be handled as a SelfSubjectAccessReview: json: cannot unmarshal number into Go struct field ResourceAttributes.spec.resourceAttributes.verb of type string',
    );
  });

  it("allows a SubjectAccessReview for a user, and requires a user or a group", async () => {
    const spec = { ...CREATE_PODS, user: "alice", groups: ["devs"] };
    const res = await h.client.post(SAR, {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ kind: "SubjectAccessReview", spec, status: ALLOWED });
    const status = expectStatus(await h.client.post(SAR, { spec: CREATE_PODS }), 422, "Invalid");
    expect(status["message"]).toBe(
      'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
    );
  });

  it("checks a LocalSubjectAccessReview's namespace against the request's", async () => {
    const path = `${AUTHZ}/namespaces/team/localsubjectaccessreviews`;
    const spec = {
      user: "alice",
      resourceAttributes: { namespace: "team", verb: "get", resource: "secrets" },
    };
    const res = await h.client.post(path, { spec });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      kind: "LocalSubjectAccessReview",
      metadata: { namespace: "team" },
      spec,
      status: ALLOWED,
    });
    const mismatch = expectStatus(
      await h.client.post(path, {
        spec: { ...spec, resourceAttributes: { ...spec.resourceAttributes, namespace: "other" } },
      }),
      422,
      "Invalid",
    );
    expect(causesOf(mismatch)).toEqual([
      {
        reason: "FieldValueInvalid",
        field: "spec.resourceAttributes.namespace",
        message: 'Invalid value: "other": must match metadata.namespace',
      },
    ]);
    const nonResource = expectStatus(
      await h.client.post(path, {
        spec: { user: "alice", nonResourceAttributes: { path: "/x", verb: "get" } },
      }),
      422,
      "Invalid",
    );
    expect(causesOf(nonResource).map((c) => c.message)).toEqual([
      'Invalid value: {"path":"/x","verb":"get"}: disallowed on this kind of request',
    ]);
    const otherBody = expectStatus(
      await h.client.post(path, { metadata: { namespace: "other" }, spec }),
      400,
      "BadRequest",
    );
    expect(otherBody["message"]).toBe(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  });

  it("answers a SelfSubjectRulesReview with every verb on everything, complete", async () => {
    const res = await h.client.post(SSRR, {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectRulesReview",
      metadata: { generateName: "ignored-" },
      spec: { namespace: "default" },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectRulesReview",
      metadata: { creationTimestamp: null },
      spec: {},
      status: {
        resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
        nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
        incomplete: false,
      },
    });
    const status = expectStatus(await h.client.post(SSRR, { spec: {} }), 400, "BadRequest");
    expect(status["message"]).toBe("no namespace on request");
  });

  it("answers a SelfSubjectReview with the anonymous user", async () => {
    const res = await h.client.post(SSR, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
      status: { userInfo: { username: "system:anonymous", groups: ["system:unauthenticated"] } },
    });
    expect(Number.isNaN(Date.parse(res.json.metadata.creationTimestamp as string))).toBe(false);
  });
});

describe("SelfSubjectReview with token authentication", () => {
  const h = useServer({
    auth: {
      tokens: { "tok-alice": { name: "alice", groups: ["devs"], uid: "u-1" } },
      anonymous: true,
    },
  });

  it("answers the token's user, with system:authenticated", async () => {
    const client = new ApiClient(h.server.url, { token: "tok-alice" });
    try {
      const res = await client.post(SSR, {});
      expect(res.status, res.text).toBe(201);
      expect(res.json.status).toEqual({
        userInfo: { username: "alice", uid: "u-1", groups: ["devs", "system:authenticated"] },
      });
    } finally {
      await client.close();
    }
  });

  it("answers the anonymous user for a request without a token", async () => {
    const res = await h.client.post(SSR, {});
    expect(res.status, res.text).toBe(201);
    expect(res.json.status.userInfo.username).toBe("system:anonymous");
  });
});
