import { describe, expect, it } from "vitest";
import {
  expectPlainNotFound,
  expectRouteNotFound,
  header,
  useServer,
} from "../../support/server-test-helpers.js";
import type { Json } from "../../support/server-test-helpers.js";

/**
 * The non-resource endpoints and discovery of the embedded server over real HTTP, against
 * kube-apiserver serves them (`staging/src/k8s.io/apiserver/pkg/endpoints/discovery/`, KEP-3352
 * aggregated discovery) and with what kubectl sends and needs.
 */

/**
 * The Accept header kubectl 1.32 sends to /api and /apis
 * (`staging/src/k8s.io/client-go/discovery/discovery_client.go`).
 */
const KUBECTL_132_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList," +
  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
/**
 * The Accept header kubectl 1.27 to 1.29 send (client-go's discovery_client.go of those releases).
 */
const KUBECTL_127_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const V2_CONTENT_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const V2BETA1_CONTENT_TYPE =
  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
const STANDARD_VERBS = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

function resourceNamed(list: { resources: Json[] }, name: string): Json {
  const found = list.resources.find((r) => r["name"] === name);
  if (!found) throw new Error(`APIResourceList has no ${name}`);
  return found;
}

function aggregatedResource(doc: { items: Json[] }, group: string, resource: string): Json {
  const item = doc.items.find((i) => ((i["metadata"] as Json)["name"] ?? "") === group);
  if (!item) throw new Error(`no aggregated discovery item for group "${group}"`);
  const versions = item["versions"] as { version: string; resources: Json[] }[];
  const found = versions[0]?.resources.find((r) => r["resource"] === resource);
  if (!found) throw new Error(`no aggregated resource ${resource} in group "${group}"`);
  return found;
}

function subresourceNamed(resource: Json, name: string): Json | undefined {
  return (resource["subresources"] as Json[] | undefined)?.find((s) => s["subresource"] === name);
}

describe("version, health and the root path", () => {
  const h = useServer();

  it("/version reports major 1, minor 32 by default, as JSON", async () => {
    const res = await h.client.get("/version");
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toMatch(/^application\/json/);
    expect(res.json.major).toBe("1");
    expect(res.json.minor).toBe("32");
    expect(res.json.gitVersion).toMatch(/^v1\.32\./);
    for (const field of ["gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler"]) {
      expect(typeof res.json[field], field).toBe("string");
    }
    expect(res.json.platform).toMatch(/^[a-z0-9]+\/[a-z0-9]+$/);
  });

  it("/version answers the dispatcher's request with ?timeout=5s", async () => {
    const res = await h.client.get("/version?timeout=5s", {
      headers: { accept: "application/json, */*", "cache-control": "max-age=7200" },
    });
    expect(res.status).toBe(200);
    expect(res.json.minor).toBe("32");
  });

  for (const path of ["/healthz", "/livez", "/readyz"]) {
    it(`${path} answers "ok" in plain text`, async () => {
      const res = await h.client.get(path);
      expect(res.status).toBe(200);
      expect(header(res, "content-type")).toBe("text/plain; charset=utf-8");
      expect(res.text).toBe("ok");
    });

    it(`${path}?verbose lists the checks and ends with "${path.slice(1)} check passed"`, async () => {
      const res = await h.client.get(`${path}?verbose`);
      expect(res.status).toBe(200);
      expect(header(res, "content-type")).toBe("text/plain; charset=utf-8");
      const lines = res.text.trimEnd().split("\n");
      expect(lines[0]).toBe("[+]ping ok");
      for (const line of lines.slice(0, -1)) expect(line).toMatch(/^\[\+\]\S+ ok$/);
      expect(lines.at(-1)).toBe(`${path.slice(1)} check passed`);
    });
  }

  it("/ lists the API roots, the group versions and the non-resource paths", async () => {
    const res = await h.client.get("/");
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toMatch(/^application\/json/);
    const paths = res.json.paths as string[];
    for (const p of [
      "/api",
      "/api/v1",
      "/apis",
      "/apis/apps",
      "/apis/apps/v1",
      "/apis/apiextensions.k8s.io/v1",
      "/healthz",
      "/livez",
      "/readyz",
      "/version",
      "/openapi/v3",
    ]) {
      expect(paths, p).toContain(p);
    }
    for (const p of paths) expect(p.startsWith("/"), p).toBe(true);
  });
});

describe("/version with the minorVersion option", () => {
  const h = useServer({ minorVersion: "27" });

  it("reports the configured minor version (which picks the kubectl the dispatcher runs)", async () => {
    const res = await h.client.get("/version");
    expect(res.status).toBe(200);
    expect(res.json.major).toBe("1");
    expect(res.json.minor).toBe("27");
    expect(res.json.gitVersion).toMatch(/^v1\.27\./);
  });
});

describe("legacy discovery", () => {
  const h = useServer();

  it("/api is an APIVersions without apiVersion", async () => {
    const res = await h.client.get("/api", { headers: { accept: "application/json, */*" } });
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toBe("application/json");
    expect(res.json.kind).toBe("APIVersions");
    expect("apiVersion" in res.json).toBe(false);
    expect(res.json.versions).toEqual(["v1"]);
    expect(res.json.serverAddressByClientCIDRs).toEqual([
      { clientCIDR: "0.0.0.0/0", serverAddress: expect.any(String) },
    ]);
  });

  it("/apis is an APIGroupList of the named groups with their preferred versions", async () => {
    const res = await h.client.get("/apis", { headers: { accept: "application/json, */*" } });
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toBe("application/json");
    expect(res.json.kind).toBe("APIGroupList");
    expect(res.json.apiVersion).toBe("v1");
    const groups = res.json.groups as Json[];
    expect(groups.some((g) => g["name"] === "")).toBe(false);
    const apps = groups.find((g) => g["name"] === "apps");
    expect(apps).toEqual({
      name: "apps",
      versions: [{ groupVersion: "apps/v1", version: "v1" }],
      preferredVersion: { groupVersion: "apps/v1", version: "v1" },
    });
    for (const g of groups) {
      const versions = g["versions"] as Json[];
      expect(g["preferredVersion"], String(g["name"])).toEqual(versions[0]);
    }
    expect(groups.map((g) => g["name"])).toEqual(
      expect.arrayContaining(["apiextensions.k8s.io", "batch", "coordination.k8s.io"]),
    );
  });

  it("/api without any Accept header is the legacy document", async () => {
    const res = await h.client.get("/api");
    expect(res.status).toBe(200);
    expect(res.json.kind).toBe("APIVersions");
  });

  it("an aggregated Accept of an unknown version falls back to legacy, never 406", async () => {
    const res = await h.client.get("/apis", {
      headers: {
        accept:
          "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json",
      },
    });
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toBe("application/json");
    expect(res.json.kind).toBe("APIGroupList");
  });

  it("/apis/apps is one APIGroup", async () => {
    const res = await h.client.get("/apis/apps");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      kind: "APIGroup",
      apiVersion: "v1",
      name: "apps",
      versions: [{ groupVersion: "apps/v1", version: "v1" }],
      preferredVersion: { groupVersion: "apps/v1", version: "v1" },
    });
  });

  it("/api/v1 lists pods with short names, category, hash and subresources", async () => {
    const res = await h.client.get("/api/v1?timeout=32s", {
      headers: { accept: "application/json, */*" },
    });
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toMatch(/^application\/json/);
    expect(res.json.kind).toBe("APIResourceList");
    expect(res.json.apiVersion).toBe("v1");
    expect(res.json.groupVersion).toBe("v1");
    const pods = resourceNamed(res.json, "pods");
    expect(pods).toEqual({
      name: "pods",
      singularName: "pod",
      namespaced: true,
      kind: "Pod",
      verbs: expect.arrayContaining(STANDARD_VERBS),
      shortNames: ["po"],
      categories: ["all"],
      storageVersionHash: "xPOwRZ+Yhw8=",
    });
    expect([...(pods["verbs"] as string[])].sort()).toEqual(STANDARD_VERBS);
    expect(resourceNamed(res.json, "pods/status")).toEqual({
      name: "pods/status",
      singularName: "",
      namespaced: true,
      kind: "Pod",
      verbs: ["get", "patch", "update"],
    });
    const log = resourceNamed(res.json, "pods/log");
    expect(log["singularName"]).toBe("");
    expect(log["kind"]).toBe("Pod");
    expect(log["verbs"]).toEqual(["get"]);
    expect("storageVersionHash" in log).toBe(false);
    expect(resourceNamed(res.json, "pods/eviction")).toMatchObject({
      group: "policy",
      version: "v1",
      kind: "Eviction",
      verbs: ["create"],
    });
  });

  it("/api/v1 lists configmaps and cluster-scoped namespaces with their hashes", async () => {
    const res = await h.client.get("/api/v1");
    const configmaps = resourceNamed(res.json, "configmaps");
    expect(configmaps["storageVersionHash"]).toBe("qFsyl6wFWjQ=");
    expect(configmaps["shortNames"]).toEqual(["cm"]);
    expect(configmaps["namespaced"]).toBe(true);
    const namespaces = resourceNamed(res.json, "namespaces");
    expect(namespaces["namespaced"]).toBe(false);
    expect(namespaces["shortNames"]).toEqual(["ns"]);
    expect(namespaces["verbs"]).not.toContain("deletecollection");
  });

  it("/apis/apps/v1 lists deployments and deployments/scale as autoscaling/v1 Scale", async () => {
    const res = await h.client.get("/apis/apps/v1");
    expect(res.status).toBe(200);
    expect(res.json.kind).toBe("APIResourceList");
    expect(res.json.groupVersion).toBe("apps/v1");
    const deployments = resourceNamed(res.json, "deployments");
    expect(deployments).toMatchObject({
      singularName: "deployment",
      namespaced: true,
      kind: "Deployment",
      shortNames: ["deploy"],
      categories: ["all"],
      storageVersionHash: "8aSe+NMegvE=",
    });
    expect("group" in deployments).toBe(false);
    expect([...(deployments["verbs"] as string[])].sort()).toEqual(STANDARD_VERBS);
    expect(resourceNamed(res.json, "deployments/scale")).toEqual({
      name: "deployments/scale",
      singularName: "",
      namespaced: true,
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
      verbs: ["get", "patch", "update"],
    });
    const status = resourceNamed(res.json, "deployments/status");
    expect(status).toEqual({
      name: "deployments/status",
      singularName: "",
      namespaced: true,
      kind: "Deployment",
      verbs: ["get", "patch", "update"],
    });
  });

  it("an unknown group version is a plain-text 404, not a Status", async () => {
    expectPlainNotFound(await h.client.get("/apis/nope.example.com/v1"));
    expectPlainNotFound(await h.client.get("/apis/apps/v9"));
    expectPlainNotFound(await h.client.get("/api/v2"));
    expectPlainNotFound(await h.client.get("/apis/nope.example.com"));
  });

  it("an unknown resource in a known group version is a NotFound Status (go-restful route miss)", async () => {
    expectRouteNotFound(await h.client.get("/api/v1/nopes"));
    expectRouteNotFound(await h.client.get("/apis/apps/v1/namespaces/default/nopes/x"));
  });

  it("a cluster-scoped resource under a namespaced path is a plain-text 404", async () => {
    const node = await h.client.post("/api/v1/nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "scoped-node" },
    });
    expect(node.status).toBe(201);
    expect((await h.client.get("/api/v1/nodes/scoped-node")).status).toBe(200);
    expectRouteNotFound(await h.client.get("/api/v1/namespaces/default/nodes/scoped-node"));
    expectRouteNotFound(await h.client.get("/api/v1/namespaces/default/nodes"));
    expectRouteNotFound(
      await h.client.get("/apis/rbac.authorization.k8s.io/v1/namespaces/default/clusterroles"),
    );
  });
});

describe("aggregated discovery", () => {
  const h = useServer();

  it("/api with kubectl 1.32's Accept is a v2 APIGroupDiscoveryList holding only the core group", async () => {
    const res = await h.client.get("/api?timeout=32s", { headers: { accept: KUBECTL_132_ACCEPT } });
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toBe(V2_CONTENT_TYPE);
    expect(header(res, "vary")).toMatch(/\bAccept\b/);
    expect(header(res, "etag")).toMatch(/^"[^"]+"$/);
    expect(res.json.kind).toBe("APIGroupDiscoveryList");
    expect(res.json.apiVersion).toBe("apidiscovery.k8s.io/v2");
    const items = res.json.items as Json[];
    expect(items).toHaveLength(1);
    expect((items[0] as Json)["metadata"]).not.toHaveProperty("name");
    const versions = (items[0] as Json)["versions"] as Json[];
    expect(versions.map((v) => v["version"])).toEqual(["v1"]);
    expect(versions[0]?.["freshness"]).toBe("Current");
  });

  it("the core group describes pods with scope, responseKind, short names and subresources", async () => {
    const res = await h.client.get("/api", { headers: { accept: KUBECTL_132_ACCEPT } });
    const pods = aggregatedResource(res.json, "", "pods");
    expect(pods).toMatchObject({
      resource: "pods",
      singularResource: "pod",
      scope: "Namespaced",
      responseKind: { group: "", version: "", kind: "Pod" },
      shortNames: ["po"],
      categories: ["all"],
    });
    expect([...(pods["verbs"] as string[])].sort()).toEqual(STANDARD_VERBS);
    expect("storageVersionHash" in pods).toBe(false);
    expect(subresourceNamed(pods, "status")).toEqual({
      subresource: "status",
      responseKind: { group: "", version: "", kind: "Pod" },
      verbs: ["get", "patch", "update"],
    });
    expect(subresourceNamed(pods, "log")).toMatchObject({ verbs: ["get"] });
    const namespaces = aggregatedResource(res.json, "", "namespaces");
    expect(namespaces["scope"]).toBe("Cluster");
  });

  it("/apis with kubectl 1.32's Accept lists every named group with deployments/scale", async () => {
    const res = await h.client.get("/apis?timeout=32s", {
      headers: { accept: KUBECTL_132_ACCEPT },
    });
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toBe(V2_CONTENT_TYPE);
    expect(res.json.apiVersion).toBe("apidiscovery.k8s.io/v2");
    const names = (res.json.items as Json[]).map((i) => (i["metadata"] as Json)["name"]);
    expect(names).not.toContain(undefined);
    expect(names).toEqual(expect.arrayContaining(["apps", "batch", "apiextensions.k8s.io"]));
    const deployments = aggregatedResource(res.json, "apps", "deployments");
    expect(deployments).toMatchObject({
      scope: "Namespaced",
      singularResource: "deployment",
      responseKind: { group: "", version: "", kind: "Deployment" },
      shortNames: ["deploy"],
      categories: ["all"],
    });
    expect(subresourceNamed(deployments, "scale")).toEqual({
      subresource: "scale",
      responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
      verbs: ["get", "patch", "update"],
    });
    expect(subresourceNamed(deployments, "status")).toEqual({
      subresource: "status",
      responseKind: { group: "", version: "", kind: "Deployment" },
      verbs: ["get", "patch", "update"],
    });
  });

  it("kubectl 1.27's Accept gets v2beta1 with its own Content-Type and apiVersion", async () => {
    const res = await h.client.get("/apis", { headers: { accept: KUBECTL_127_ACCEPT } });
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toBe(V2BETA1_CONTENT_TYPE);
    expect(header(res, "vary")).toMatch(/\bAccept\b/);
    expect(res.json.kind).toBe("APIGroupDiscoveryList");
    expect(res.json.apiVersion).toBe("apidiscovery.k8s.io/v2beta1");
    expect(aggregatedResource(res.json, "apps", "deployments")["resource"]).toBe("deployments");
    const core = await h.client.get("/api", { headers: { accept: KUBECTL_127_ACCEPT } });
    expect(header(core, "content-type")).toBe(V2BETA1_CONTENT_TYPE);
    expect(aggregatedResource(core.json, "", "pods")["resource"]).toBe("pods");
  });

  it("answers 304 to If-None-Match with the ETag it sent, and 200 to another tag", async () => {
    const first = await h.client.get("/apis", { headers: { accept: KUBECTL_132_ACCEPT } });
    const etag = header(first, "etag");
    expect(etag).toBeDefined();
    const again = await h.client.get("/apis", { headers: { accept: KUBECTL_132_ACCEPT } });
    expect(header(again, "etag")).toBe(etag);
    const revalidated = await h.client.get("/apis", {
      headers: { accept: KUBECTL_132_ACCEPT, "if-none-match": etag as string },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe("");
    const stale = await h.client.get("/apis", {
      headers: { accept: KUBECTL_132_ACCEPT, "if-none-match": '"0000"' },
    });
    expect(stale.status).toBe(200);
    expect(stale.json.kind).toBe("APIGroupDiscoveryList");
  });

  it("gives v2 and v2beta1 documents different ETags (the tag is per representation)", async () => {
    const v2 = await h.client.get("/apis", { headers: { accept: KUBECTL_132_ACCEPT } });
    const v2beta1 = await h.client.get("/apis", { headers: { accept: KUBECTL_127_ACCEPT } });
    expect(header(v2, "etag")).not.toBe(header(v2beta1, "etag"));
    const crossed = await h.client.get("/apis", {
      headers: { accept: KUBECTL_127_ACCEPT, "if-none-match": header(v2, "etag") as string },
    });
    expect(crossed.status).toBe(200);
    expect(header(crossed, "content-type")).toBe(V2BETA1_CONTENT_TYPE);
  });
});

describe("OpenAPI", () => {
  const h = useServer();

  async function index(): Promise<Record<string, { serverRelativeURL: string }>> {
    const res = await h.client.get("/openapi/v3?timeout=32s", {
      headers: { accept: "application/json, */*" },
    });
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toMatch(/^application\/json/);
    return res.json.paths;
  }

  /** Resolves a parameter that may be a `$ref` into `components.parameters`. */
  function resolveParameter(doc: Json, p: Json): Json {
    const ref = p["$ref"];
    if (typeof ref !== "string") return p;
    const name = ref.replace("#/components/parameters/", "");
    return ((doc["components"] as Json)["parameters"] as Json)[name] as Json;
  }

  function expectPatchWithFieldValidation(doc: Json, path: string, gvk: Json): void {
    const item = (doc["paths"] as Json)[path] as Json | undefined;
    expect(item, path).toBeDefined();
    const patch = (item as Json)["patch"] as Json | undefined;
    expect(patch, `${path} patch`).toBeDefined();
    expect((patch as Json)["x-kubernetes-group-version-kind"]).toEqual(gvk);
    const params = [
      ...(((item as Json)["parameters"] as Json[] | undefined) ?? []),
      ...(((patch as Json)["parameters"] as Json[] | undefined) ?? []),
    ].map((p) => resolveParameter(doc, p));
    expect(params).toContainEqual(
      expect.objectContaining({ name: "fieldValidation", in: "query" }),
    );
  }

  it("the /openapi/v3 index keys group versions without a leading slash, URLs with ?hash=", async () => {
    const paths = await index();
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining(["api/v1", "apis/apps/v1", "apis/apiextensions.k8s.io/v1"]),
    );
    for (const [key, entry] of Object.entries(paths)) {
      expect(key.startsWith("/"), key).toBe(false);
      expect(entry.serverRelativeURL).toMatch(
        new RegExp(`^/openapi/v3/${key.replace(/\./g, "\\.")}\\?hash=[0-9A-Za-z]+$`),
      );
    }
  });

  it("the api/v1 document has a Pod PATCH with the GVK and fieldValidation, cached immutably", async () => {
    const url = (await index())["api/v1"]?.serverRelativeURL as string;
    const res = await h.client.get(`${url}&timeout=32s`, {
      headers: { accept: "application/json" },
    });
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toMatch(/^application\/json/);
    expect(header(res, "etag")).toMatch(/^"[^"]+"$/);
    expect(header(res, "cache-control")).toBe("public, immutable");
    expect(String(res.json.openapi)).toMatch(/^3\.0/);
    expectPatchWithFieldValidation(res.json, "/api/v1/namespaces/{namespace}/pods/{name}", {
      group: "",
      version: "v1",
      kind: "Pod",
    });
    expectPatchWithFieldValidation(res.json, "/api/v1/namespaces/{name}", {
      group: "",
      version: "v1",
      kind: "Namespace",
    });
  });

  it("the apis/apps/v1 document has a Deployment PATCH with the GVK and fieldValidation", async () => {
    const url = (await index())["apis/apps/v1"]?.serverRelativeURL as string;
    const res = await h.client.get(url, { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(header(res, "cache-control")).toBe("public, immutable");
    expectPatchWithFieldValidation(
      res.json,
      "/apis/apps/v1/namespaces/{namespace}/deployments/{name}",
      { group: "apps", version: "v1", kind: "Deployment" },
    );
  });

  it("a per-group-version document answers 304 to its own ETag", async () => {
    const url = (await index())["apis/apps/v1"]?.serverRelativeURL as string;
    const first = await h.client.get(url);
    const etag = header(first, "etag") as string;
    const revalidated = await h.client.get(url, { headers: { "if-none-match": etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe("");
  });

  it("an unserved group version has no document (404)", async () => {
    const res = await h.client.get("/openapi/v3/apis/nope.example.com/v1");
    expect(res.status).toBe(404);
  });

  it("/openapi/v2 answers kubectl's protobuf Accept with gnostic protobuf", async () => {
    const res = await h.client.get("/openapi/v2?timeout=32s", {
      headers: { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" },
    });
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toBe(
      "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
    );
  });
});
