import { describe, expect, it } from "vitest";
import { convertAggregatedDiscovery } from "../../../packages/kubekit/src/client/discovery-aggregated.js";
import {
  InvalidDiscoveryDocumentError,
  StaleGroupVersionError,
  type DiscoveredResourceList,
  builtinResources,
} from "kubekit";
import {
  coreGroupFromAPIVersions,
  encodeAPIGroupList,
  encodeAPIResourceList,
  groupsFromAPIGroupList,
  resourceListFromAPIResourceList,
} from "../../../packages/kubekit/src/client/discovery-legacy.js";
import {
  aggregatedDiscoveryDocument,
  apiGroupListDocument,
  apiResourceListDocument,
  apiVersionsDocument,
} from "../../../packages/apiserver/src/discovery/discovery.js";
import type { ServedGroup } from "../../../packages/apiserver/src/registry/served-resource.js";

/** Served groups built from the built-in table: core/v1 and apps/v1. */
function servedGroups(): ServedGroup[] {
  const of = (group: string, version: string): ServedGroup["versions"][number] => ({
    version,
    resources: builtinResources.filter((r) => r.group === group && r.version === version),
  });
  return [
    { name: "", versions: [of("", "v1")] },
    { name: "apps", versions: [of("apps", "v1")] },
  ];
}

/** A list without the storage version hashes (the aggregated format carries none). */
function withoutHashes(list: DiscoveredResourceList): DiscoveredResourceList {
  return {
    ...list,
    resources: list.resources.map((r) => {
      const copy = { ...r };
      delete copy.storageVersionHash;
      return copy;
    }),
  };
}

describe("aggregated and legacy discovery convert to the same model", () => {
  const groups = servedGroups();
  const aggregatedCore = convertAggregatedDiscovery(
    aggregatedDiscoveryDocument([groups[0]!], "v2"),
    "/api",
  );
  const aggregatedApis = convertAggregatedDiscovery(
    aggregatedDiscoveryDocument(groups.slice(1), "v2"),
    "/apis",
  );

  it('gives the core group as kubectl shows it (name "", v1 preferred) from both formats', () => {
    const core = {
      name: "",
      versions: [{ groupVersion: "v1", version: "v1" }],
      preferredVersion: { groupVersion: "v1", version: "v1" },
    };
    expect(aggregatedCore.groups).toEqual([core]);
    expect(coreGroupFromAPIVersions(apiVersionsDocument("10.0.0.1:6443"), "/api")).toEqual(core);
  });

  it("gives the same named groups from APIGroupList and aggregated /apis", () => {
    expect(groupsFromAPIGroupList(apiGroupListDocument(groups), "/apis")).toEqual(
      aggregatedApis.groups,
    );
    expect(aggregatedApis.groups).toEqual([
      {
        name: "apps",
        versions: [{ groupVersion: "apps/v1", version: "v1" }],
        preferredVersion: { groupVersion: "apps/v1", version: "v1" },
      },
    ]);
  });

  it("gives equal resource lists (apart from storageVersionHash) for core/v1 and apps/v1", () => {
    for (const [gv, served] of [
      ["v1", groups[0]!],
      ["apps/v1", groups[1]!],
    ] as const) {
      const legacy = resourceListFromAPIResourceList(
        apiResourceListDocument(gv, served.versions[0]!.resources),
        gv,
        `/x/${gv}`,
      );
      const aggregated = (gv === "v1" ? aggregatedCore : aggregatedApis).resources.get(gv);
      expect(aggregated).toBeDefined();
      expect(withoutHashes(legacy)).toEqual(aggregated);
      expect(legacy.resources.length).toBeGreaterThanOrEqual(5);
    }
  });

  it("nests subresources and fills in implicit groups and versions", () => {
    const apps = aggregatedApis.resources.get("apps/v1")!;
    const deployments = apps.resources.find((r) => r.name === "deployments");
    expect(deployments).toMatchObject({
      singularName: "deployment",
      namespaced: true,
      group: "apps",
      version: "v1",
      kind: "Deployment",
      shortNames: ["deploy"],
      categories: ["all"],
    });
    expect(deployments?.subresources).toEqual([
      {
        name: "scale",
        group: "autoscaling",
        version: "v1",
        kind: "Scale",
        verbs: ["get", "patch", "update"],
      },
      {
        name: "status",
        group: "apps",
        version: "v1",
        kind: "Deployment",
        verbs: ["get", "patch", "update"],
      },
    ]);
    expect(apps.resources.some((r) => r.name.includes("/"))).toBe(false);
    const legacyCore = resourceListFromAPIResourceList(
      apiResourceListDocument("v1", groups[0]!.versions[0]!.resources),
      "v1",
      "/api/v1",
    );
    expect(legacyCore.resources.find((r) => r.name === "pods")).toMatchObject({
      group: "",
      version: "v1",
      kind: "Pod",
      storageVersionHash: "xPOwRZ+Yhw8=",
    });
    expect(legacyCore.resources.find((r) => r.name === "namespaces")?.namespaced).toBe(false);
  });
});

describe("convertAggregatedDiscovery edge cases", () => {
  it("leaves stale versions out of the group, reports them, and prefers the first fresh version", () => {
    const result = convertAggregatedDiscovery(
      {
        kind: "APIGroupDiscoveryList",
        apiVersion: "apidiscovery.k8s.io/v2",
        items: [
          {
            metadata: { name: "metrics.k8s.io" },
            versions: [
              { version: "v1", freshness: "Stale", resources: [] },
              { version: "v1beta1", freshness: "Current", resources: [] },
            ],
          },
          {
            metadata: { name: "gone.example.com" },
            versions: [{ version: "v1", freshness: "Stale" }],
          },
        ],
      },
      "/apis",
    );
    expect(result.groups).toEqual([
      {
        name: "metrics.k8s.io",
        versions: [{ groupVersion: "metrics.k8s.io/v1beta1", version: "v1beta1" }],
        preferredVersion: { groupVersion: "metrics.k8s.io/v1beta1", version: "v1beta1" },
      },
    ]);
    expect([...result.failures.keys()]).toEqual(["metrics.k8s.io/v1", "gone.example.com/v1"]);
    const stale = result.failures.get("metrics.k8s.io/v1");
    expect(stale).toBeInstanceOf(StaleGroupVersionError);
    expect(stale?.message).toBe("stale GroupVersion discovery: metrics.k8s.io/v1");
    expect([...result.resources.keys()]).toEqual(["metrics.k8s.io/v1beta1"]);
  });

  it("keeps filled-in responseKinds (custom resources) and drops entries without one", () => {
    const result = convertAggregatedDiscovery(
      {
        items: [
          {
            metadata: { name: "example.com" },
            versions: [
              {
                version: "v1",
                resources: [
                  {
                    resource: "widgets",
                    singularResource: "widget",
                    scope: "Cluster",
                    responseKind: { group: "example.com", version: "v1", kind: "Widget" },
                    verbs: ["get", "list"],
                    subresources: [
                      { subresource: "status", verbs: ["get"] },
                      {
                        subresource: "scale",
                        responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
                        verbs: ["get"],
                      },
                    ],
                  },
                  { resource: "orphans", scope: "Namespaced", verbs: ["get"] },
                ],
              },
            ],
          },
        ],
      },
      "/apis",
    );
    expect(result.resources.get("example.com/v1")?.resources).toEqual([
      {
        name: "widgets",
        singularName: "widget",
        namespaced: false,
        group: "example.com",
        version: "v1",
        kind: "Widget",
        verbs: ["get", "list"],
        shortNames: [],
        categories: [],
        subresources: [
          { name: "scale", group: "autoscaling", version: "v1", kind: "Scale", verbs: ["get"] },
        ],
      },
    ]);
  });

  it("reads a document without items as empty and rejects a non-object", () => {
    expect(convertAggregatedDiscovery({ kind: "APIGroupDiscoveryList" }, "/apis").groups).toEqual(
      [],
    );
    expect(() => convertAggregatedDiscovery([], "/apis")).toThrow(InvalidDiscoveryDocumentError);
    expect(() => convertAggregatedDiscovery("x", "/apis")).toThrow(
      "invalid discovery document from /apis",
    );
  });
});

describe("legacy documents", () => {
  it("reads an aggregated body as an empty legacy group list (the Content-Type decides)", () => {
    const aggregated = aggregatedDiscoveryDocument(servedGroups().slice(1), "v2");
    expect(groupsFromAPIGroupList(aggregated, "/apis")).toEqual([]);
  });

  it("normalises groups: recomputed groupVersion, unknown preferredVersion replaced, empty groups dropped", () => {
    const groups = groupsFromAPIGroupList(
      {
        kind: "APIGroupList",
        groups: [
          {
            name: "batch",
            versions: [{ version: "v1" }, { groupVersion: "batch/v1beta1", version: "v1beta1" }],
            preferredVersion: { groupVersion: "batch/v2", version: "v2" },
          },
          {
            name: "flow",
            versions: [
              { groupVersion: "flow/v1beta3", version: "v1beta3" },
              { groupVersion: "flow/v1", version: "v1" },
            ],
            preferredVersion: { groupVersion: "flow/v1", version: "v1" },
          },
          { name: "empty", versions: [] },
        ],
      },
      "/apis",
    );
    expect(groups).toEqual([
      {
        name: "batch",
        versions: [
          { groupVersion: "batch/v1", version: "v1" },
          { groupVersion: "batch/v1beta1", version: "v1beta1" },
        ],
        preferredVersion: { groupVersion: "batch/v1", version: "v1" },
      },
      {
        name: "flow",
        versions: [
          { groupVersion: "flow/v1beta3", version: "v1beta3" },
          { groupVersion: "flow/v1", version: "v1" },
        ],
        preferredVersion: { groupVersion: "flow/v1", version: "v1" },
      },
    ]);
  });

  it("reads a bare entry (no singular, short names or categories) and drops orphan subresources", () => {
    const list = resourceListFromAPIResourceList(
      {
        kind: "APIResourceList",
        groupVersion: "v1",
        resources: [
          { name: "ghosts/status", namespaced: true, kind: "Ghost", verbs: ["get"] },
          { name: "pods", namespaced: true, kind: "Pod", verbs: ["get", "list"] },
          { name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] },
        ],
      },
      "v1",
      "/api/v1",
    );
    expect(list).toEqual({
      groupVersion: "v1",
      group: "",
      version: "v1",
      resources: [
        {
          name: "pods",
          singularName: "",
          namespaced: true,
          group: "",
          version: "v1",
          kind: "Pod",
          verbs: ["get", "list"],
          shortNames: [],
          categories: [],
          subresources: [{ name: "log", group: "", version: "v1", kind: "Pod", verbs: ["get"] }],
        },
      ],
    });
  });

  it("encodes lists and groups back to the wire form losslessly", () => {
    const served = servedGroups();
    const source = apiResourceListDocument("apps/v1", served[1]!.versions[0]!.resources);
    const decoded = resourceListFromAPIResourceList(source, "apps/v1", "/apis/apps/v1");
    const encoded = encodeAPIResourceList(decoded);
    // The same document the server sends (same entries, same order, same optional fields).
    expect(JSON.parse(JSON.stringify(encoded))).toEqual(source);
    expect(resourceListFromAPIResourceList(encoded, "apps/v1", "cache")).toEqual(decoded);

    const groups = groupsFromAPIGroupList(apiGroupListDocument(served), "/apis");
    const groupList = encodeAPIGroupList(groups);
    expect(groupList.kind).toBe("APIGroupList");
    expect(groupList.apiVersion).toBe("v1");
    expect(groupsFromAPIGroupList(groupList, "cache")).toEqual(groups);
  });

  it("gives no core group for APIVersions without versions and rejects non-objects", () => {
    expect(coreGroupFromAPIVersions({ kind: "APIVersions", versions: [] }, "/api")).toBeUndefined();
    expect(() => coreGroupFromAPIVersions(null, "/api")).toThrow(InvalidDiscoveryDocumentError);
    expect(() => resourceListFromAPIResourceList(7, "v1", "/api/v1")).toThrow(
      InvalidDiscoveryDocumentError,
    );
  });
});
