import { beforeAll, describe, expect, it } from "vitest";
import { encodeKubernetesProtobuf } from "../../../packages/apiserver/src/encoding/protobuf.js";
import { type RawResponse } from "../../support/api-client.js";
import { expectStatus, useServer } from "../../support/server-test-helpers.js";

/**
 * Create (POST) on the embedded server over real HTTP, checked against kube-apiserver as
 * `staging/src/k8s.io/apiserver/pkg/registry/rest/create.go` and
 * `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go` implement it (server-set fields,
 * generateName, names, the namespace admission, fieldValidation, dryRun, Status bodies), and
 * with the protobuf bodies kubectl 1.32's `kubectl create <generator>` sends.
 */

const GENERATED_SUFFIX = /^[bcdfghjklmnpqrstvwxz2456789]{5}$/;
const RFC3339_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', " +
  "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation " +
  "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function header(res: RawResponse, name: string): string[] {
  const value = res.headers[name.toLowerCase()];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function configMap(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "1" }, ...extra };
}

function deployment(name: string): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels: { app: "web" } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "web", image: "nginx:1.27" }] },
      },
    },
  };
}

function pod(name: string, container: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { containers: [{ name: "c", image: "nginx", ...container }] },
  };
}

describe("create: the stored object and server-set fields", () => {
  const h = useServer();

  beforeAll(async () => {
    expect(
      (await h.client.post("/api/v1/namespaces", { metadata: { name: "create-fields" } })).status,
    ).toBe(201);
  });

  it("answers 201 with uid, creationTimestamp, resourceVersion and no generation for a ConfigMap", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/create-fields/configmaps?fieldManager=test-manager",
      configMap("cm-fields", { metadata: { name: "cm-fields", labels: { app: "x" } } }),
    );
    expect(res.status, res.text).toBe(201);
    const obj = res.json;
    expect(obj.kind).toBe("ConfigMap");
    expect(obj.apiVersion).toBe("v1");
    expect(obj.metadata.name).toBe("cm-fields");
    expect(obj.metadata.namespace).toBe("create-fields");
    expect(obj.metadata.uid).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    expect(obj.metadata.creationTimestamp).toMatch(RFC3339_SECONDS);
    expect(obj.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(obj.metadata.generation).toBeUndefined();
    expect(obj.data).toEqual({ a: "1" });
    expect(obj.metadata.managedFields).toEqual([
      {
        manager: "test-manager",
        operation: "Update",
        apiVersion: "v1",
        time: expect.stringMatching(RFC3339_SECONDS),
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:data": { ".": {}, "f:a": {} },
          "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
        },
      },
    ]);
    const got = await h.client.get("/api/v1/namespaces/create-fields/configmaps/cm-fields");
    expect(got.status).toBe(200);
    expect(got.json.metadata.uid).toBe(obj.metadata.uid);
    expect(got.json.metadata.resourceVersion).toBe(obj.metadata.resourceVersion);
  });

  it("overwrites a client-supplied uid", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/create-fields/configmaps",
      configMap("cm-uid", {
        metadata: { name: "cm-uid", uid: "11111111-2222-3333-4444-555555555555" },
      }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.json.metadata.uid).not.toBe("11111111-2222-3333-4444-555555555555");
  });

  it("sets generation 1 on a workload (Deployment)", async () => {
    const res = await h.client.post(
      "/apis/apps/v1/namespaces/create-fields/deployments",
      deployment("web-gen"),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.json.metadata.generation).toBe(1);
  });

  it("records the User-Agent up to its first '/' as the manager when fieldManager is absent", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/create-fields/configmaps",
      configMap("cm-ua"),
      {
        headers: { "user-agent": "my-tool/1.2.3 (linux/amd64) kubernetes/abc" },
      },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.json.metadata.managedFields).toHaveLength(1);
    expect(res.json.metadata.managedFields[0]).toMatchObject({
      manager: "my-tool",
      operation: "Update",
    });
  });

  it("generateName: prefix plus 5 characters of the allowed alphabet", async () => {
    const names = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const res = await h.client.post("/api/v1/namespaces/create-fields/configmaps", {
        metadata: { generateName: "gen-" },
        data: {},
      });
      expect(res.status, res.text).toBe(201);
      const name = res.json.metadata.name as string;
      expect(name.startsWith("gen-")).toBe(true);
      expect(name.slice(4)).toMatch(GENERATED_SUFFIX);
      expect(res.json.metadata.generateName).toBe("gen-");
      names.add(name);
      expect(
        (await h.client.get(`/api/v1/namespaces/create-fields/configmaps/${name}`)).status,
      ).toBe(200);
    }
    expect(names.size).toBe(3);
  });

  it("generateName: a long prefix is truncated to 58 characters (63 in all)", async () => {
    const prefix = `${"p".repeat(70)}-`;
    const res = await h.client.post("/api/v1/namespaces/create-fields/configmaps", {
      metadata: { generateName: prefix },
    });
    expect(res.status, res.text).toBe(201);
    const name = res.json.metadata.name as string;
    expect(name).toHaveLength(63);
    expect(name.slice(0, 58)).toBe("p".repeat(58));
    expect(name.slice(58)).toMatch(GENERATED_SUFFIX);
  });

  it("neither name nor generateName: 422 with kube's message and cause", async () => {
    const res = await h.client.post("/api/v1/namespaces/create-fields/configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {},
    });
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toBe(
      'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    );
    expect(status["details"]).toEqual({
      kind: "ConfigMap",
      causes: [
        {
          reason: "FieldValueRequired",
          message: "Required value: name or generateName is required",
          field: "metadata.name",
        },
      ],
    });
  });

  it("an invalid name: 422 Invalid with the RFC 1123 subdomain message and cause", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/create-fields/configmaps",
      configMap("Bad_Name"),
    );
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toBe(
      `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${SUBDOMAIN_MESSAGE}`,
    );
    expect(status["details"]).toEqual({
      name: "Bad_Name",
      kind: "ConfigMap",
      causes: [
        {
          reason: "FieldValueInvalid",
          message: `Invalid value: "Bad_Name": ${SUBDOMAIN_MESSAGE}`,
          field: "metadata.name",
        },
      ],
    });
  });

  it("an invalid Deployment name carries the group in the kind: Deployment.apps", async () => {
    const res = await h.client.post(
      "/apis/apps/v1/namespaces/create-fields/deployments",
      deployment("Web"),
    );
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toBe(
      `Deployment.apps "Web" is invalid: metadata.name: Invalid value: "Web": ${SUBDOMAIN_MESSAGE}`,
    );
    expect(status["details"]).toMatchObject({ name: "Web", group: "apps", kind: "Deployment" });
  });

  it("an existing name: 409 AlreadyExists with details name and kind (the resource)", async () => {
    expect(
      (await h.client.post("/api/v1/namespaces/create-fields/configmaps", configMap("cm-dup")))
        .status,
    ).toBe(201);
    const res = await h.client.post(
      "/api/v1/namespaces/create-fields/configmaps",
      configMap("cm-dup"),
    );
    const status = expectStatus(res, 409, "AlreadyExists");
    expect(status["message"]).toBe('configmaps "cm-dup" already exists');
    expect(status["details"]).toEqual({ name: "cm-dup", kind: "configmaps" });
  });

  it("an existing Deployment: 409 AlreadyExists naming deployments.apps, details with the group", async () => {
    const path = "/apis/apps/v1/namespaces/create-fields/deployments";
    expect((await h.client.post(path, deployment("web-dup"))).status).toBe(201);
    const status = expectStatus(
      await h.client.post(path, deployment("web-dup")),
      409,
      "AlreadyExists",
    );
    expect(status["message"]).toBe('deployments.apps "web-dup" already exists');
    expect(status["details"]).toEqual({ name: "web-dup", group: "apps", kind: "deployments" });
  });

  it('a missing namespace: 404 namespaces "nope" not found', async () => {
    const res = await h.client.post("/api/v1/namespaces/nope/configmaps", configMap("cm"));
    const status = expectStatus(res, 404, "NotFound");
    expect(status["message"]).toBe('namespaces "nope" not found');
    expect(status["details"]).toEqual({ name: "nope", kind: "namespaces" });
  });

  it("a resourceVersion on create: 500 with the storage message and no reason", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/create-fields/configmaps",
      configMap("cm-rv", { metadata: { name: "cm-rv", resourceVersion: "12" } }),
    );
    const status = expectStatus(res, 500, undefined);
    expect(status["message"]).toBe("resourceVersion should not be set on objects to be created");
    expect((await h.client.get("/api/v1/namespaces/create-fields/configmaps/cm-rv")).status).toBe(
      404,
    );
  });

  it("a body namespace that differs from the URL: 400 BadRequest", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/create-fields/configmaps",
      configMap("cm-ns", { metadata: { name: "cm-ns", namespace: "default" } }),
    );
    const status = expectStatus(res, 400, "BadRequest");
    expect(status["message"]).toBe(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
    expect((await h.client.get("/api/v1/namespaces/default/configmaps/cm-ns")).status).toBe(404);
  });

  it("a body namespace equal to the URL's is accepted", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/create-fields/configmaps",
      configMap("cm-ns-same", { metadata: { name: "cm-ns-same", namespace: "create-fields" } }),
    );
    expect(res.status, res.text).toBe(201);
  });

  it("a body whose apiVersion or kind is not the endpoint's: 400 BadRequest, nothing stored", async () => {
    const wrongKind = await h.client.post("/api/v1/namespaces/create-fields/configmaps", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "cm-kind" },
    });
    expectStatus(wrongKind, 400, "BadRequest");
    const wrongVersion = await h.client.post("/api/v1/namespaces/create-fields/configmaps", {
      apiVersion: "apps/v1",
      kind: "ConfigMap",
      metadata: { name: "cm-version" },
    });
    expectStatus(wrongVersion, 400, "BadRequest");
    expect((await h.client.get("/api/v1/namespaces/create-fields/configmaps/cm-kind")).status).toBe(
      404,
    );
    expect(
      (await h.client.get("/api/v1/namespaces/create-fields/configmaps/cm-version")).status,
    ).toBe(404);
  });

  it("drops status on create for a type with a status subresource (Deployment)", async () => {
    const body = { ...deployment("web-status"), status: { replicas: 5, readyReplicas: 5 } };
    const res = await h.client.post("/apis/apps/v1/namespaces/create-fields/deployments", body);
    expect(res.status, res.text).toBe(201);
    expect(res.json.status?.replicas).toBeUndefined();
    expect(res.json.status?.readyReplicas).toBeUndefined();
    const got = await h.client.get("/apis/apps/v1/namespaces/create-fields/deployments/web-status");
    expect(got.json.status?.replicas).toBeUndefined();
  });

  it("dryRun=All answers 201 with the would-be object and persists nothing", async () => {
    const before = h.server.resourceVersion;
    const res = await h.client.post(
      "/api/v1/namespaces/create-fields/configmaps?dryRun=All",
      configMap("cm-dry"),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.json.metadata.name).toBe("cm-dry");
    expect(res.json.data).toEqual({ a: "1" });
    expect(res.json.metadata.resourceVersion ?? "").toBe("");
    expect((await h.client.get("/api/v1/namespaces/create-fields/configmaps/cm-dry")).status).toBe(
      404,
    );
    expect(h.server.resourceVersion).toBe(before);
  });

  it("dryRun=All still runs validation (422 for an invalid name)", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/create-fields/configmaps?dryRun=All",
      configMap("Not_Valid"),
    );
    expectStatus(res, 422, "Invalid");
  });

  it("dryRun=x: 422 on CreateOptions with the Unsupported value message", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/create-fields/configmaps?dryRun=x",
      configMap("cm-dryx"),
    );
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["x"]: supported values: "All"',
    );
    expect(status["details"]).toMatchObject({ group: "meta.k8s.io", kind: "CreateOptions" });
    expect((await h.client.get("/api/v1/namespaces/create-fields/configmaps/cm-dryx")).status).toBe(
      404,
    );
  });
});

describe("create in a terminating namespace", () => {
  const h = useServer();

  it("403 Forbidden with the NamespaceTerminating cause while the namespace is terminating", async () => {
    expect(
      (await h.client.post("/api/v1/namespaces", { metadata: { name: "doomed" } })).status,
    ).toBe(201);
    // A finalizer keeps this object, and so the namespace, around while it terminates.
    const held = await h.client.post(
      "/api/v1/namespaces/doomed/configmaps",
      configMap("held", { metadata: { name: "held", finalizers: ["example.com/hold"] } }),
    );
    expect(held.status, held.text).toBe(201);
    const del = await h.client.delete("/api/v1/namespaces/doomed");
    expect(del.status, del.text).toBe(200);

    const res = await h.client.post("/api/v1/namespaces/doomed/configmaps", configMap("late"));
    const status = expectStatus(res, 403, "Forbidden");
    expect(status["message"]).toBe(
      'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );
    expect(status["details"]).toEqual({
      name: "late",
      kind: "configmaps",
      causes: [
        {
          reason: "NamespaceTerminating",
          message: "namespace doomed is being terminated",
          field: "metadata.namespace",
        },
      ],
    });

    const generated = await h.client.post("/api/v1/namespaces/doomed/configmaps", {
      metadata: { generateName: "late-" },
    });
    expect(expectStatus(generated, 403, "Forbidden")["message"]).toBe(
      'configmaps "late-" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );
    const unnamed = await h.client.post("/api/v1/namespaces/doomed/configmaps", { metadata: {} });
    expect(expectStatus(unnamed, 403, "Forbidden")["message"]).toBe(
      'configmaps "Unknown" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );
  });
});

describe("request bodies: YAML, protobuf and malformed input", () => {
  const h = useServer();

  beforeAll(async () => {
    expect(
      (await h.client.post("/api/v1/namespaces", { metadata: { name: "bodies" } })).status,
    ).toBe(201);
  });

  async function expectServerAlive(): Promise<void> {
    const res = await h.client.get("/api/v1/namespaces/default");
    expect(res.status).toBe(200);
    expect(res.json.metadata.name).toBe("default");
  }

  it("accepts a YAML body (application/yaml)", async () => {
    const yaml = [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      "  name: from-yaml",
      "  labels:",
      "    source: yaml",
      "data:",
      "  key: value",
      '  number: "42"',
      "",
    ].join("\n");
    const res = await h.client.post("/api/v1/namespaces/bodies/configmaps", yaml, {
      contentType: "application/yaml",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.json.data).toEqual({ key: "value", number: "42" });
    expect(res.json.metadata.labels).toEqual({ source: "yaml" });
  });

  it("accepts protobuf bodies for Namespace, ConfigMap, Secret and Deployment (kubectl 1.32 create)", async () => {
    const pb = (obj: Record<string, unknown>): Buffer =>
      Buffer.from(encodeKubernetesProtobuf(obj as Parameters<typeof encodeKubernetesProtobuf>[0]));
    const options = {
      contentType: "application/vnd.kubernetes.protobuf",
      headers: { accept: "application/vnd.kubernetes.protobuf,application/json" },
    };

    const ns = await h.client.post(
      "/api/v1/namespaces?fieldManager=kubectl-create&fieldValidation=Strict",
      pb({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "pb-ns" },
        spec: {},
        status: {},
      }),
      options,
    );
    expect(ns.status, ns.text).toBe(201);
    expect(ns.json).toMatchObject({
      kind: "Namespace",
      metadata: { name: "pb-ns" },
      status: { phase: "Active" },
    });

    const cm = await h.client.post(
      "/api/v1/namespaces/bodies/configmaps?fieldManager=kubectl-create&fieldValidation=Strict",
      pb({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "pb-cm" },
        data: { k: "v", other: "x" },
      }),
      options,
    );
    expect(cm.status, cm.text).toBe(201);
    expect(cm.json.data).toEqual({ k: "v", other: "x" });
    expect(cm.json.metadata.managedFields[0].manager).toBe("kubectl-create");

    const secretData = { password: Buffer.from("s3cret").toString("base64") };
    const secret = await h.client.post(
      "/api/v1/namespaces/bodies/secrets?fieldManager=kubectl-create&fieldValidation=Strict",
      pb({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "pb-secret" },
        type: "Opaque",
        data: secretData,
      }),
      options,
    );
    expect(secret.status, secret.text).toBe(201);
    expect(secret.json.data).toEqual(secretData);
    expect(secret.json.type).toBe("Opaque");

    const deploy = await h.client.post(
      "/apis/apps/v1/namespaces/bodies/deployments?fieldManager=kubectl-create&fieldValidation=Strict",
      pb(deployment("pb-deploy")),
      options,
    );
    expect(deploy.status, deploy.text).toBe(201);
    expect(deploy.json.metadata.generation).toBe(1);
    expect(deploy.json.spec.replicas).toBe(2);
    expect(deploy.json.spec.selector).toEqual({ matchLabels: { app: "web" } });
    expect(deploy.json.spec.template.spec.containers[0]).toMatchObject({
      name: "web",
      image: "nginx:1.27",
    });

    const stored = await h.client.get("/api/v1/namespaces/bodies/secrets/pb-secret");
    expect(stored.json.data).toEqual(secretData);
  });

  it("malformed JSON: 400 BadRequest, nothing stored", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/bodies/configmaps",
      '{"metadata": {"name": "broken"',
      {
        contentType: "application/json",
      },
    );
    expectStatus(res, 400, "BadRequest");
    expect((await h.client.get("/api/v1/namespaces/bodies/configmaps/broken")).status).toBe(404);
    await expectServerAlive();
  });

  it("malformed YAML: 400 BadRequest", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/bodies/configmaps",
      "metadata:\n  name: [unclosed\n  : :\n",
      {
        contentType: "application/yaml",
      },
    );
    expectStatus(res, 400, "BadRequest");
    await expectServerAlive();
  });

  it("malformed protobuf: 400 BadRequest", async () => {
    const garbage = Buffer.concat([
      Buffer.from("k8s\0", "binary"),
      Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]),
    ]);
    const res = await h.client.post("/api/v1/namespaces/bodies/configmaps", garbage, {
      contentType: "application/vnd.kubernetes.protobuf",
    });
    expectStatus(res, 400, "BadRequest");
    const noMagic = await h.client.post(
      "/api/v1/namespaces/bodies/configmaps",
      Buffer.from("not protobuf at all"),
      {
        contentType: "application/vnd.kubernetes.protobuf",
      },
    );
    expectStatus(noMagic, 400, "BadRequest");
    await expectServerAlive();
  });

  it("a body over 3 MiB: 413 RequestEntityTooLarge", async () => {
    const big = configMap("too-big", { data: { blob: "x".repeat(3 * 1024 * 1024 + 16) } });
    const res = await h.client.post("/api/v1/namespaces/bodies/configmaps", big);
    const status = expectStatus(res, 413, "RequestEntityTooLarge");
    expect(status["message"]).toBe("Request entity too large: limit is 3145728");
    expect((await h.client.get("/api/v1/namespaces/bodies/configmaps/too-big")).status).toBe(404);
    await expectServerAlive();
  });

  it("an unsupported Content-Type: 415 UnsupportedMediaType listing the accepted types", async () => {
    const res = await h.client.post("/api/v1/namespaces/bodies/configmaps", "<configmap/>", {
      contentType: "application/xml",
    });
    const status = expectStatus(res, 415, "UnsupportedMediaType");
    const message = String(status["message"]);
    expect(
      message.startsWith(
        "the body of the request was in an unknown format - accepted media types include: ",
      ),
    ).toBe(true);
    expect(message).toContain("application/json");
    expect(message).toContain("application/yaml");
    expect(message).toContain("application/vnd.kubernetes.protobuf");
    await expectServerAlive();
  });

  it("PUT without a Content-Type header is decoded as JSON", async () => {
    const created = await h.client.post(
      "/api/v1/namespaces/bodies/configmaps",
      configMap("no-ctype"),
    );
    expect(created.status).toBe(201);
    const body = { ...created.json, data: { a: "2" } };
    const res = await h.client.put("/api/v1/namespaces/bodies/configmaps/no-ctype", body, {
      contentType: null,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toEqual({ a: "2" });
  });
});

describe("fieldValidation", () => {
  const h = useServer();

  beforeAll(async () => {
    expect(
      (await h.client.post("/api/v1/namespaces", { metadata: { name: "validation" } })).status,
    ).toBe(201);
  });

  it("Strict: an unknown field is a 400 strict decoding error, nothing stored", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/validation/pods?fieldValidation=Strict",
      pod("strict", { bogus: true }),
    );
    const status = expectStatus(res, 400, "BadRequest");
    // transformDecodeError's prefix, then the strict decoding error (kube endpoints/handlers/rest.go).
    expect(status["message"]).toBe(
      'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].bogus"',
    );
    expect((await h.client.get("/api/v1/namespaces/validation/pods/strict")).status).toBe(404);
  });

  it("Warn (the default): 201 with a Warning header, the unknown field dropped", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/validation/pods",
      pod("warned", { bogus: true }),
    );
    expect(res.status, res.text).toBe(201);
    expect(header(res, "warning")).toEqual([
      '299 - "unknown field \\"spec.containers[0].bogus\\""',
    ]);
    expect(res.json.spec.containers[0].bogus).toBeUndefined();
    expect(res.json.spec.containers[0].image).toBe("nginx");
    const got = await h.client.get("/api/v1/namespaces/validation/pods/warned");
    expect(got.json.spec.containers[0].bogus).toBeUndefined();
  });

  it("Warn explicitly: one Warning header per unknown field", async () => {
    const body = pod("warned-twice", { bogus: 1 });
    (body["spec"] as Record<string, unknown>)["alsoBogus"] = "x";
    const res = await h.client.post(
      "/api/v1/namespaces/validation/pods?fieldValidation=Warn",
      body,
    );
    expect(res.status, res.text).toBe(201);
    expect([...header(res, "warning")].sort()).toEqual([
      '299 - "unknown field \\"spec.alsoBogus\\""',
      '299 - "unknown field \\"spec.containers[0].bogus\\""',
    ]);
  });

  it("Ignore: the unknown field is dropped silently", async () => {
    const res = await h.client.post(
      "/api/v1/namespaces/validation/pods?fieldValidation=Ignore",
      pod("ignored", { bogus: true }),
    );
    expect(res.status, res.text).toBe(201);
    expect(header(res, "warning")).toEqual([]);
    expect(res.json.spec.containers[0].bogus).toBeUndefined();
  });

  it("no Warning header when every field is known", async () => {
    const res = await h.client.post("/api/v1/namespaces/validation/pods", pod("clean", {}));
    expect(res.status, res.text).toBe(201);
    expect(header(res, "warning")).toEqual([]);
  });
});
