import { describe, expect, it } from "vitest";
import { isJsonObject, type JsonObject } from "../../../packages/kubekit/src/core/json.js";
import {
  openApiDocumentHash,
  openApiV3Document,
  openApiV3Index,
} from "../../../packages/apiserver/src/discovery/openapi.js";
import type { ServedGroup } from "../../../packages/apiserver/src/registry/served-resource.js";
import { builtin, builtinVersion, servedGroups, widgetResource } from "./served-fixtures.js";

type Operation = JsonObject & { parameters?: JsonObject[] };

function paths(doc: JsonObject): Record<string, JsonObject> {
  return doc["paths"] as Record<string, JsonObject>;
}

/** The PATCH operations tagged with a GVK, as kubectl's query-parameter verifier looks for them. */
function patchOperationsFor(
  doc: JsonObject,
  group: string,
  version: string,
  kind: string,
): Operation[] {
  return Object.values(paths(doc))
    .map((item) => item["patch"])
    .filter((op): op is Operation => isJsonObject(op))
    .filter((op) => {
      const gvk = op["x-kubernetes-group-version-kind"] as JsonObject;
      return gvk["group"] === group && gvk["version"] === version && gvk["kind"] === kind;
    });
}

function hasQueryParam(op: Operation, name: string): boolean {
  return (op.parameters ?? []).some((p) => p["name"] === name && p["in"] === "query");
}

describe("openApiV3Document", () => {
  it("gives every resource of apps/v1 a PATCH with its GVK and fieldValidation, and no requestBody", () => {
    const resources = builtinVersion("apps", "v1");
    const doc = openApiV3Document("apps", "v1", resources);
    expect(doc["openapi"]).toBe("3.0.0");
    for (const r of resources.filter((x) => x.verbs.includes("patch"))) {
      const ops = patchOperationsFor(doc, "apps", "v1", r.kind);
      expect(ops.length, r.kind).toBeGreaterThan(0);
      for (const op of ops) {
        expect(hasQueryParam(op, "fieldValidation"), r.kind).toBe(true);
        expect(op).not.toHaveProperty("requestBody");
      }
    }
  });

  it("describes the fieldValidation, dryRun, fieldManager and force parameters on an item PATCH", () => {
    const doc = openApiV3Document("", "v1", builtinVersion("", "v1"));
    const item = paths(doc)["/api/v1/namespaces/{namespace}/pods/{name}"];
    const patch = item?.["patch"] as Operation;
    expect(patch["x-kubernetes-group-version-kind"]).toEqual({
      group: "",
      version: "v1",
      kind: "Pod",
    });
    expect(patch["x-kubernetes-action"]).toBe("patch");
    expect(patch.parameters).toContainEqual(
      expect.objectContaining({
        name: "fieldValidation",
        in: "query",
        schema: expect.objectContaining({ type: "string" }),
      }),
    );
    for (const name of ["dryRun", "fieldManager", "force"])
      expect(hasQueryParam(patch, name), name).toBe(true);
    expect(item?.["parameters"]).toContainEqual(
      expect.objectContaining({ name: "name", in: "path", required: true }),
    );
    expect(item?.["parameters"]).toContainEqual(
      expect.objectContaining({ name: "namespace", in: "path" }),
    );
  });

  it("serves namespaced collections per namespace and across namespaces, cluster-scoped ones once", () => {
    const doc = openApiV3Document("", "v1", builtinVersion("", "v1"));
    const p = paths(doc);
    expect(Object.keys(p["/api/v1/namespaces/{namespace}/pods"] ?? {}).sort()).toEqual([
      "delete",
      "get",
      "parameters",
      "post",
    ]);
    expect((p["/api/v1/pods"]?.["get"] as JsonObject)["x-kubernetes-action"]).toBe("list");
    expect(p["/api/v1/pods"]).not.toHaveProperty("post");
    expect(p["/api/v1/namespaces/{name}"]).toHaveProperty("patch");
    expect(p["/api/v1/namespaces"]).toHaveProperty("post");
    expect(p).not.toHaveProperty("/api/v1/namespaces/{namespace}/namespaces");
    const nsPatch = p["/api/v1/namespaces/{name}"]?.["patch"] as Operation;
    expect(nsPatch["x-kubernetes-group-version-kind"]).toEqual({
      group: "",
      version: "v1",
      kind: "Namespace",
    });
    expect(hasQueryParam(nsPatch, "fieldValidation")).toBe(true);
  });

  it("gives subresources their own GVK (Scale) and only the verbs they serve", () => {
    const doc = openApiV3Document("apps", "v1", [builtin("apps", "v1", "deployments")]);
    const scale = paths(doc)["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"];
    expect((scale?.["patch"] as JsonObject)["x-kubernetes-group-version-kind"]).toEqual({
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
    });
    expect(Object.keys(scale ?? {}).sort()).toEqual(["get", "parameters", "patch", "put"]);
    const status = paths(doc)["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status"];
    expect((status?.["patch"] as JsonObject)["x-kubernetes-group-version-kind"]).toMatchObject({
      kind: "Deployment",
    });
  });

  it("does not offer verbs a resource lacks", () => {
    const doc = openApiV3Document("", "v1", [builtin("", "v1", "bindings")]);
    const p = paths(doc);
    expect(Object.keys(p)).toEqual(["/api/v1/namespaces/{namespace}/bindings"]);
    expect(Object.keys(p["/api/v1/namespaces/{namespace}/bindings"] ?? {}).sort()).toEqual([
      "parameters",
      "post",
    ]);
  });

  it("uses kube-style, unique operation ids", () => {
    const doc = openApiV3Document("apps", "v1", builtinVersion("apps", "v1"));
    const ids = Object.values(paths(doc)).flatMap((item) =>
      Object.values(item)
        .filter(isJsonObject)
        .map((op) => op["operationId"] as string),
    );
    expect(ids).toContain("patchAppsV1NamespacedDeployment");
    expect(ids).toContain("listAppsV1DeploymentForAllNamespaces");
    expect(ids).toContain("readAppsV1NamespacedDeploymentScale");
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("publishes a custom resource's schema with TypeMeta, ObjectMeta and its GVK", () => {
    const schema = { type: "object", properties: { spec: { type: "object" } } };
    const doc = openApiV3Document("example.com", "v1", [widgetResource("v1", [], schema)]);
    const schemas = (doc["components"] as JsonObject)["schemas"] as JsonObject;
    const widget = schemas["com.example.v1.Widget"] as JsonObject;
    expect(widget["x-kubernetes-group-version-kind"]).toEqual([
      { group: "example.com", kind: "Widget", version: "v1" },
    ]);
    expect(Object.keys(widget["properties"] as JsonObject).sort()).toEqual([
      "apiVersion",
      "kind",
      "metadata",
      "spec",
    ]);
    expect(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]).toBeDefined();
    expect(patchOperationsFor(doc, "example.com", "v1", "Widget").length).toBeGreaterThan(0);
    const builtinDoc = openApiV3Document("apps", "v1", builtinVersion("apps", "v1"));
    const builtinSchemas = (builtinDoc["components"] as JsonObject)["schemas"] as JsonObject;
    expect(builtinSchemas["io.k8s.api.apps.v1.Deployment"]).toBeDefined();
  });
});

describe("openApiV3Index", () => {
  it("keys group versions without a leading slash and points at hashed document URLs", () => {
    const index = openApiV3Index(servedGroups());
    expect(Object.keys(index.paths)).toEqual([
      "api/v1",
      "apis/apps/v1",
      "apis/example.com/v1",
      "apis/example.com/v1beta1",
    ]);
    const apps = index.paths["apis/apps/v1"]?.serverRelativeURL;
    const hash = openApiDocumentHash(openApiV3Document("apps", "v1", builtinVersion("apps", "v1")));
    expect(apps).toBe(`/openapi/v3/apis/apps/v1?hash=${hash}`);
    expect(hash).toMatch(/^[0-9A-F]{128}$/);
  });

  it("changes a group version's hash when its resources change, and only that one", () => {
    const before = openApiV3Index(servedGroups());
    const groups: ServedGroup[] = servedGroups().map((g) =>
      g.name === "example.com"
        ? {
            ...g,
            versions: g.versions.map((v) =>
              v.version === "v1"
                ? { ...v, resources: [widgetResource("v1", [], { type: "object" })] }
                : v,
            ),
          }
        : g,
    );
    const after = openApiV3Index(groups);
    expect(after.paths["apis/example.com/v1"]).not.toEqual(before.paths["apis/example.com/v1"]);
    expect(after.paths["apis/example.com/v1beta1"]).toEqual(
      before.paths["apis/example.com/v1beta1"],
    );
    expect(after.paths["apis/apps/v1"]).toEqual(before.paths["apis/apps/v1"]);
  });

  it("drops a group version once it is no longer served", () => {
    const groups = servedGroups().filter((g) => g.name !== "example.com");
    expect(Object.keys(openApiV3Index(groups).paths)).toEqual(["api/v1", "apis/apps/v1"]);
  });
});

describe("openApiDocumentHash", () => {
  it("is deterministic for equal documents", () => {
    const a = openApiV3Document("", "v1", builtinVersion("", "v1"));
    const b = openApiV3Document("", "v1", builtinVersion("", "v1"));
    expect(openApiDocumentHash(a)).toBe(openApiDocumentHash(b));
    expect(openApiDocumentHash({ x: 1 })).not.toBe(openApiDocumentHash({ x: 2 }));
  });
});
