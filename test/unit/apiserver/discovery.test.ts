import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import {
  aggregatedDiscoveryContentType,
  aggregatedDiscoveryDocument,
  apiGroupDocument,
  apiGroupListDocument,
  apiResourceListDocument,
  apiVersionsDocument,
  discoveryEtag,
  negotiateDiscovery,
} from "../../../packages/apiserver/src/discovery/discovery.js";
import { builtinVersion, servedGroups, widgetResource } from "./served-fixtures.js";

const KUBECTL_132_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const KUBECTL_127_ACCEPT =
  "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

function entries(doc: JsonObject): JsonObject[] {
  return doc["resources"] as JsonObject[];
}

function byName(doc: JsonObject, name: string): JsonObject | undefined {
  return entries(doc).find((r) => r["name"] === name);
}

describe("legacy discovery", () => {
  it("APIVersions has no apiVersion field and the server address for every client", () => {
    expect(apiVersionsDocument("127.0.0.1:6443")).toEqual({
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1:6443" }],
    });
  });

  it("APIGroupList excludes the core group and prefers the first version", () => {
    const doc = apiGroupListDocument(servedGroups());
    expect(doc["kind"]).toBe("APIGroupList");
    expect(doc["apiVersion"]).toBe("v1");
    const groups = doc["groups"] as JsonObject[];
    expect(groups.map((g) => g["name"])).toEqual(["apps", "example.com"]);
    expect(groups[1]).toEqual({
      name: "example.com",
      versions: [
        { groupVersion: "example.com/v1", version: "v1" },
        { groupVersion: "example.com/v1beta1", version: "v1beta1" },
      ],
      preferredVersion: { groupVersion: "example.com/v1", version: "v1" },
    });
  });

  it("APIGroup is one group with kind and apiVersion", () => {
    const apps = servedGroups()[1];
    if (!apps) throw new Error("fixture");
    expect(apiGroupDocument(apps)).toEqual({
      kind: "APIGroup",
      apiVersion: "v1",
      name: "apps",
      versions: [{ groupVersion: "apps/v1", version: "v1" }],
      preferredVersion: { groupVersion: "apps/v1", version: "v1" },
    });
  });

  it("APIResourceList of apps/v1 lists deployments, its Scale subresource and status as kube does", () => {
    const doc = apiResourceListDocument("apps/v1", builtinVersion("apps", "v1"));
    expect(doc["kind"]).toBe("APIResourceList");
    expect(doc["apiVersion"]).toBe("v1");
    expect(doc["groupVersion"]).toBe("apps/v1");
    expect(byName(doc, "deployments")).toEqual({
      name: "deployments",
      singularName: "deployment",
      namespaced: true,
      kind: "Deployment",
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
      shortNames: ["deploy"],
      categories: ["all"],
      storageVersionHash: "8aSe+NMegvE=",
    });
    expect(byName(doc, "deployments/scale")).toEqual({
      name: "deployments/scale",
      singularName: "",
      namespaced: true,
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
      verbs: ["get", "patch", "update"],
    });
    expect(byName(doc, "deployments/status")).toEqual({
      name: "deployments/status",
      singularName: "",
      namespaced: true,
      kind: "Deployment",
      verbs: ["get", "patch", "update"],
    });
  });

  it("omits empty shortNames and categories, and puts subresources right after their parent", () => {
    const doc = apiResourceListDocument("apps/v1", builtinVersion("apps", "v1"));
    const cr = byName(doc, "controllerrevisions");
    expect(cr).toBeDefined();
    expect(cr).not.toHaveProperty("shortNames");
    expect(cr).not.toHaveProperty("categories");
    const names = entries(doc).map((r) => r["name"] as string);
    const i = names.indexOf("deployments");
    expect(names.slice(i, i + 3)).toEqual([
      "deployments",
      "deployments/scale",
      "deployments/status",
    ]);
    const mains = names.filter((n) => !n.includes("/"));
    expect(mains).toEqual([...mains].sort());
  });

  it("hashes stored core resources only, never subresources", () => {
    const doc = apiResourceListDocument("v1", builtinVersion("", "v1"));
    expect(byName(doc, "pods")?.["storageVersionHash"]).toBe("xPOwRZ+Yhw8=");
    expect(byName(doc, "configmaps")?.["storageVersionHash"]).toBe("qFsyl6wFWjQ=");
    expect(byName(doc, "bindings")).toMatchObject({ kind: "Binding", verbs: ["create"] });
    expect(byName(doc, "bindings")).not.toHaveProperty("storageVersionHash");
    for (const e of entries(doc).filter((r) => (r["name"] as string).includes("/"))) {
      expect(e).not.toHaveProperty("storageVersionHash");
      expect(e["singularName"]).toBe("");
    }
    expect(byName(doc, "pods/eviction")).toMatchObject({
      group: "policy",
      version: "v1",
      kind: "Eviction",
    });
  });

  it("gives a CRD's scale subresource its own group/version but not its status", () => {
    const doc = apiResourceListDocument("example.com/v1", [widgetResource()]);
    expect(byName(doc, "widgets")).toMatchObject({
      singularName: "widget",
      shortNames: ["wd"],
      kind: "Widget",
    });
    expect(byName(doc, "widgets")).not.toHaveProperty("categories");
    expect(byName(doc, "widgets")?.["storageVersionHash"]).toMatch(/^[A-Za-z0-9+/]{11}=$/);
    expect(byName(doc, "widgets/scale")).toMatchObject({
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
    });
    expect(byName(doc, "widgets/status")).toMatchObject({ kind: "Widget", singularName: "" });
    expect(byName(doc, "widgets/status")).not.toHaveProperty("group");
  });
});

describe("aggregated discovery", () => {
  const groups = servedGroups();
  const core = groups.filter((g) => g.name === "");
  const named = groups.filter((g) => g.name !== "");

  function resource(
    doc: JsonObject,
    group: string,
    version: string,
    plural: string,
  ): JsonObject | undefined {
    const item = (doc["items"] as JsonObject[]).find(
      (i) => ((i["metadata"] as JsonObject)["name"] ?? "") === group,
    );
    const v = (item?.["versions"] as JsonObject[] | undefined)?.find(
      (x) => x["version"] === version,
    );
    return (v?.["resources"] as JsonObject[] | undefined)?.find((r) => r["resource"] === plural);
  }

  it("the /api list holds the core group, whose item has no name", () => {
    const doc = aggregatedDiscoveryDocument(core, "v2");
    expect(doc["kind"]).toBe("APIGroupDiscoveryList");
    expect(doc["apiVersion"]).toBe("apidiscovery.k8s.io/v2");
    expect(doc["metadata"]).toEqual({});
    const items = doc["items"] as JsonObject[];
    expect(items).toHaveLength(1);
    expect(items[0]?.["metadata"]).toEqual({});
    const versions = items[0]?.["versions"] as JsonObject[];
    expect(versions.map((v) => [v["version"], v["freshness"]])).toEqual([["v1", "Current"]]);
  });

  it("v2beta1 differs only in apiVersion", () => {
    const v2 = aggregatedDiscoveryDocument(named, "v2");
    const beta = aggregatedDiscoveryDocument(named, "v2beta1");
    expect(beta["apiVersion"]).toBe("apidiscovery.k8s.io/v2beta1");
    expect({ ...beta, apiVersion: "x" }).toEqual({ ...v2, apiVersion: "x" });
  });

  it("the /apis list names each group and keeps version preference order", () => {
    const doc = aggregatedDiscoveryDocument(named, "v2");
    const items = doc["items"] as JsonObject[];
    expect(items.map((i) => i["metadata"])).toEqual([{ name: "apps" }, { name: "example.com" }]);
    expect((items[1]?.["versions"] as JsonObject[]).map((v) => v["version"])).toEqual([
      "v1",
      "v1beta1",
    ]);
  });

  it("built-ins send an empty responseKind group/version, Scale and custom resources send them filled", () => {
    const doc = aggregatedDiscoveryDocument(named, "v2");
    expect(resource(doc, "apps", "v1", "deployments")).toEqual({
      resource: "deployments",
      responseKind: { group: "", version: "", kind: "Deployment" },
      scope: "Namespaced",
      singularResource: "deployment",
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
      shortNames: ["deploy"],
      categories: ["all"],
      subresources: [
        {
          subresource: "scale",
          responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
          verbs: ["get", "patch", "update"],
        },
        {
          subresource: "status",
          responseKind: { group: "", version: "", kind: "Deployment" },
          verbs: ["get", "patch", "update"],
        },
      ],
    });
    const widget = resource(doc, "example.com", "v1beta1", "widgets");
    expect(widget?.["responseKind"]).toEqual({
      group: "example.com",
      version: "v1beta1",
      kind: "Widget",
    });
    expect(widget?.["subresources"]).toContainEqual({
      subresource: "status",
      responseKind: { group: "example.com", version: "v1beta1", kind: "Widget" },
      verbs: ["get", "patch", "update"],
    });
  });

  it("has no storageVersionHash, marks cluster scope, and omits empty optional lists", () => {
    const doc = aggregatedDiscoveryDocument(core, "v2");
    expect(JSON.stringify(doc)).not.toContain("storageVersionHash");
    expect(resource(doc, "", "v1", "namespaces")?.["scope"]).toBe("Cluster");
    const cm = resource(doc, "", "v1", "configmaps");
    expect(cm).not.toHaveProperty("subresources");
    expect(cm).not.toHaveProperty("categories");
    expect(cm?.["shortNames"]).toEqual(["cm"]);
  });
});

describe("negotiateDiscovery", () => {
  it("answers kubectl 1.32's Accept with aggregated v2 and the exact Content-Type", () => {
    expect(negotiateDiscovery(KUBECTL_132_ACCEPT)).toEqual({
      kind: "aggregated",
      version: "v2",
      contentType: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    });
  });

  it("answers kubectl 1.27's Accept with aggregated v2beta1", () => {
    expect(negotiateDiscovery(KUBECTL_127_ACCEPT)).toEqual({
      kind: "aggregated",
      version: "v2beta1",
      contentType: "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
    });
    expect(aggregatedDiscoveryContentType("v2beta1")).toBe(
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
    );
  });

  it("accepts parameters in any order and a profile=nopeer variant, but not other profiles", () => {
    expect(
      negotiateDiscovery("application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io"),
    ).toMatchObject({
      kind: "aggregated",
      version: "v2",
    });
    expect(
      negotiateDiscovery(
        `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer,${KUBECTL_132_ACCEPT}`,
      ),
    ).toMatchObject({ kind: "aggregated", version: "v2" });
    expect(
      negotiateDiscovery(
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=other,application/json",
      ),
    ).toEqual({
      kind: "legacy",
    });
  });

  it("falls back to legacy for plain JSON, wildcards, no header, or nothing acceptable (never 406)", () => {
    expect(negotiateDiscovery("application/json, */*")).toEqual({ kind: "legacy" });
    expect(negotiateDiscovery("*/*")).toEqual({ kind: "legacy" });
    expect(negotiateDiscovery(undefined)).toEqual({ kind: "legacy" });
    expect(negotiateDiscovery("")).toEqual({ kind: "legacy" });
    expect(negotiateDiscovery("application/vnd.kubernetes.protobuf")).toEqual({ kind: "legacy" });
    expect(
      negotiateDiscovery("application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList"),
    ).toEqual({
      kind: "legacy",
    });
  });

  it("honours q values: a higher-q legacy clause beats aggregated, q=0 refuses a clause", () => {
    expect(
      negotiateDiscovery(
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5,application/json",
      ),
    ).toEqual({ kind: "legacy" });
    expect(
      negotiateDiscovery(
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.4,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList;q=0.6",
      ),
    ).toMatchObject({ version: "v2beta1" });
    expect(
      negotiateDiscovery(
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0",
      ),
    ).toEqual({
      kind: "legacy",
    });
  });

  it("skips a Table clause instead of treating it as plain JSON", () => {
    expect(
      negotiateDiscovery(`application/json;as=Table;v=v1;g=meta.k8s.io,${KUBECTL_127_ACCEPT}`),
    ).toMatchObject({ kind: "aggregated", version: "v2beta1" });
  });
});

describe("discoveryEtag", () => {
  it("is quoted, stable for the same body and different for another", () => {
    const body = JSON.stringify(aggregatedDiscoveryDocument(servedGroups(), "v2"));
    const tag = discoveryEtag(body);
    expect(tag.startsWith('"') && tag.endsWith('"')).toBe(true);
    expect(discoveryEtag(body)).toBe(tag);
    expect(discoveryEtag(`${body} `)).not.toBe(tag);
  });
});
