import { describe, expect, it } from "vitest";
import {
  MemoryCachedDiscovery,
  GroupDiscoveryFailedError,
  AmbiguousResourceError,
  NoMatchError,
  RESTMapper,
  type Logger,
  noopLogger,
} from "kubekit";
import { encodeAPIGroupList } from "../../../packages/kubekit/src/client/discovery-legacy.js";
import type {
  APIGroup,
  APIGroupList,
  CachedDiscoveryInterface,
  DiscoveredResource,
  DiscoveredResourceList,
  DiscoveryInterface,
  GroupsAndResources,
  ServerVersionInfo,
} from "../../../packages/kubekit/src/client/discovery-types.js";

interface ResourceSpec {
  readonly name: string;
  readonly kind: string;
  readonly singular?: string;
  readonly short?: string[];
  readonly categories?: string[];
  readonly cluster?: boolean;
}

function resources(group: string, version: string, specs: ResourceSpec[]): DiscoveredResourceList {
  return {
    groupVersion: group === "" ? version : `${group}/${version}`,
    group,
    version,
    resources: specs.map((s): DiscoveredResource => ({
      name: s.name,
      singularName: s.singular ?? s.kind.toLowerCase(),
      namespaced: !s.cluster,
      group,
      version,
      kind: s.kind,
      verbs: ["get", "list"],
      shortNames: s.short ?? [],
      categories: s.categories ?? [],
      subresources: [],
    })),
  };
}

function group(name: string, versions: string[], preferred = versions[0]!): APIGroup {
  const gv = (v: string): { groupVersion: string; version: string } => ({
    groupVersion: name === "" ? v : `${name}/${v}`,
    version: v,
  });
  return { name, versions: versions.map(gv), preferredVersion: gv(preferred) };
}

/** A cluster's discovery, in kube-apiserver's group order. */
function cluster(): { groups: APIGroup[]; lists: DiscoveredResourceList[] } {
  return {
    groups: [
      group("", ["v1"]),
      group("apps", ["v1"]),
      group("events.k8s.io", ["v1"]),
      group("example.com", ["v1beta1", "v2"], "v2"),
      group("other.io", ["v1"]),
      group("amb.io", ["v1"]),
      group("legacy.io", ["v1"]),
    ],
    lists: [
      resources("", "v1", [
        { name: "pods", kind: "Pod", short: ["po"], categories: ["all"] },
        { name: "events", kind: "Event", short: ["ev"] },
        { name: "services", kind: "Service", short: ["svc"], categories: ["all"] },
        { name: "nodes", kind: "Node", short: ["no"], cluster: true },
        { name: "endpoints", kind: "Endpoints", singular: "endpoints", short: ["ep"] },
      ]),
      resources("apps", "v1", [
        { name: "deployments", kind: "Deployment", short: ["deploy"], categories: ["all"] },
      ]),
      resources("events.k8s.io", "v1", [{ name: "events", kind: "Event", short: ["ev"] }]),
      resources("example.com", "v1beta1", [{ name: "widgets", kind: "Widget", short: ["wd"] }]),
      resources("example.com", "v2", [
        { name: "widgets", kind: "Widget", short: ["wd"], categories: ["all"] },
      ]),
      resources("other.io", "v1", [
        { name: "wonders", kind: "Wonder", short: ["wd"], cluster: true },
      ]),
      resources("amb.io", "v1", [
        { name: "foos", kind: "Foo", singular: "foo" },
        { name: "foo", kind: "FooAlias", singular: "fooalias" },
      ]),
      resources("legacy.io", "v1", [{ name: "legacies", kind: "Legacy", singular: "" }]),
    ],
  };
}

/** A live discovery (never cached) over mutable data; counts rounds. */
class FakeDiscovery implements DiscoveryInterface {
  data = cluster();
  rounds = 0;
  failures = new Map<string, Error>();

  async serverVersion(): Promise<ServerVersionInfo> {
    throw new Error("not used");
  }
  async serverGroups(): Promise<APIGroupList> {
    return encodeAPIGroupList(this.data.groups);
  }
  async serverResourcesForGroupVersion(gv: string): Promise<DiscoveredResourceList> {
    const found = this.data.lists.find((l) => l.groupVersion === gv);
    if (!found) throw new Error(`no ${gv}`);
    return found;
  }
  async serverGroupsAndResources(signal?: AbortSignal): Promise<GroupsAndResources> {
    this.rounds++;
    await Promise.resolve();
    signal?.throwIfAborted();
    const lists = this.data.lists.filter((l) => !this.failures.has(l.groupVersion));
    if (this.failures.size > 0) {
      throw new GroupDiscoveryFailedError(this.failures, this.data.groups, lists);
    }
    return { groups: this.data.groups, resources: lists };
  }
  async serverPreferredResources(): Promise<DiscoveredResourceList[]> {
    throw new Error("not used");
  }
  async serverPreferredNamespacedResources(): Promise<DiscoveredResourceList[]> {
    throw new Error("not used");
  }
}

/** A cached discovery that always reports stale data (like a disk cache read from old files). */
class StaleCache extends FakeDiscovery implements CachedDiscoveryInterface {
  invalidations = 0;
  fresh(): boolean {
    return false;
  }
  invalidate(): void {
    this.invalidations++;
  }
}

class RecordingLogger implements Logger {
  readonly warnings: string[] = [];
  debug(): void {}
  info(): void {}
  warn(message: string): void {
    this.warnings.push(message);
  }
  error(): void {}
}

function mapper(discovery: DiscoveryInterface = new FakeDiscovery(), logger: Logger = noopLogger) {
  return new RESTMapper(discovery, { logger });
}

describe("RESTMapper resource lookups", () => {
  it("resolves plural, singular and short names, case-insensitively", async () => {
    const m = mapper();
    const pods = { group: "", version: "v1", resource: "pods" };
    for (const name of ["pods", "pod", "po", "PODS", "Pod"]) {
      expect(await m.resourceFor({ resource: name }), name).toEqual(pods);
    }
    expect(await m.kindFor({ resource: "po" })).toEqual({ group: "", version: "v1", kind: "Pod" });
    expect(await m.resourceFor({ resource: "endpoints" })).toEqual({
      group: "",
      version: "v1",
      resource: "endpoints",
    });
  });

  it("derives the singular from the kind when discovery has none", async () => {
    expect(await mapper().resourceFor({ resource: "legacy" })).toEqual({
      group: "legacy.io",
      version: "v1",
      resource: "legacies",
    });
  });

  it("prefers earlier groups, and narrows by group and version", async () => {
    const m = mapper();
    expect(await m.resourceFor({ resource: "events" })).toEqual({
      group: "",
      version: "v1",
      resource: "events",
    });
    expect(await m.resourcesFor({ resource: "ev" })).toEqual([
      { group: "", version: "v1", resource: "events" },
      { group: "events.k8s.io", version: "v1", resource: "events" },
    ]);
    expect(await m.resourceFor({ resource: "events", group: "events.k8s.io" })).toEqual({
      group: "events.k8s.io",
      version: "v1",
      resource: "events",
    });
    await expect(m.resourceFor({ resource: "deployments", version: "v2" })).rejects.toBeInstanceOf(
      NoMatchError,
    );
  });

  it("ranks the preferred version first even when discovery lists it later", async () => {
    const m = mapper();
    expect(await m.resourcesFor({ resource: "widgets" })).toEqual([
      { group: "example.com", version: "v2", resource: "widgets" },
      { group: "example.com", version: "v1beta1", resource: "widgets" },
    ]);
    expect(await m.kindsFor({ resource: "widget" })).toEqual([
      { group: "example.com", version: "v2", kind: "Widget" },
      { group: "example.com", version: "v1beta1", kind: "Widget" },
    ]);
    expect(await m.resourceFor({ resource: "widgets", version: "v1beta1" })).toEqual({
      group: "example.com",
      version: "v1beta1",
      resource: "widgets",
    });
  });

  it("expands a short name to the best-ranked resource and warns about the others", async () => {
    const logger = new RecordingLogger();
    const m = mapper(new FakeDiscovery(), logger);
    expect(await m.resourceFor({ resource: "wd" })).toEqual({
      group: "example.com",
      version: "v2",
      resource: "widgets",
    });
    expect(logger.warnings).toEqual([
      'short name "wd" could also match lower priority resource wonders.other.io',
    ]);
    expect(await m.resourceFor({ resource: "wd", group: "other.io" })).toEqual({
      group: "other.io",
      version: "v1",
      resource: "wonders",
    });
  });

  it("prefers a full name anywhere over a short name", async () => {
    const discovery = new FakeDiscovery();
    discovery.data.lists.push(resources("zzz.io", "v1", [{ name: "po", kind: "Po" }]));
    discovery.data.groups.push(group("zzz.io", ["v1"]));
    expect(await mapper(discovery).resourceFor({ resource: "po" })).toEqual({
      group: "zzz.io",
      version: "v1",
      resource: "po",
    });
  });

  it("throws AmbiguousResourceError when the best group version matches twice", async () => {
    const err = await mapper()
      .resourceFor({ resource: "foo" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AmbiguousResourceError);
    const ambiguous = err as AmbiguousResourceError;
    expect(ambiguous.matchingResources).toEqual([
      { group: "amb.io", version: "v1", resource: "foos" },
      { group: "amb.io", version: "v1", resource: "foo" },
    ]);
    expect(ambiguous.matchingKinds.map((k) => k.kind)).toEqual(["Foo", "FooAlias"]);
    expect(ambiguous.message).toBe(
      '"foo" matches multiple resources: foos (amb.io/v1), foo (amb.io/v1)',
    );
    // Listing every match is not ambiguous.
    expect(await mapper().resourcesFor({ resource: "foo" })).toHaveLength(2);
  });

  it("fails with kubectl's message for an unknown resource, and rejects an empty name", async () => {
    const err = await mapper()
      .resourceFor({ resource: "gizmos" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoMatchError);
    expect((err as NoMatchError).message).toBe(`the server doesn't have a resource type "gizmos"`);
    expect((err as NoMatchError).target).toEqual({
      type: "resource",
      resource: { resource: "gizmos" },
    });
    await expect(mapper().resourceFor({ resource: "" })).rejects.toBeInstanceOf(TypeError);
  });
});

describe("RESTMapper kind lookups", () => {
  it("maps a kind to its resource and scope, preferred version first", async () => {
    const m = mapper();
    expect(await m.restMapping({ group: "apps", kind: "Deployment" })).toEqual({
      resource: { group: "apps", version: "v1", resource: "deployments" },
      gvk: { group: "apps", version: "v1", kind: "Deployment" },
      scope: "namespace",
    });
    expect((await m.restMapping({ group: "", kind: "Node" })).scope).toBe("root");
    expect((await m.restMapping({ group: "apps", kind: "deployment" })).gvk.kind).toBe(
      "Deployment",
    );
    expect(
      (await m.restMappings({ group: "example.com", kind: "Widget" })).map((x) => x.gvk.version),
    ).toEqual(["v2", "v1beta1"]);
  });

  it("uses the first listed version that serves the kind", async () => {
    const m = mapper();
    const mapping = await m.restMapping({ group: "example.com", kind: "Widget" }, [
      "v9",
      "v1beta1",
      "v2",
    ]);
    expect(mapping.resource).toEqual({
      group: "example.com",
      version: "v1beta1",
      resource: "widgets",
    });
    expect(
      await m.restMappings({ group: "example.com", kind: "Widget" }, ["", "v2", "v1beta1"]),
    ).toHaveLength(1);
  });

  it("fails with apimachinery's messages", async () => {
    const m = mapper();
    const message = async (versions?: string[]): Promise<string> =>
      String(
        await m
          .restMapping({ group: "example.com", kind: "Gizmo" }, versions)
          .catch((e: unknown) => (e instanceof NoMatchError ? e.message : e)),
      );
    expect(await message()).toBe('no matches for kind "Gizmo" in group "example.com"');
    expect(await message(["v1"])).toBe('no matches for kind "Gizmo" in version "example.com/v1"');
    expect(await message(["v2", "v1"])).toBe(
      'no matches for kind "Gizmo" in versions ["example.com/v1" "example.com/v2"]',
    );
    await expect(m.restMapping({ group: "example.com", kind: "Widget" }, ["v9"])).rejects.toThrow(
      'no matches for kind "Widget" in version "example.com/v9"',
    );
  });

  it("expands categories in rank order without duplicates", async () => {
    const m = mapper();
    expect(await m.expandCategory("all")).toEqual([
      { group: "", resource: "pods" },
      { group: "", resource: "services" },
      { group: "apps", resource: "deployments" },
      { group: "example.com", resource: "widgets" },
    ]);
    expect(await m.expandCategory("nothing")).toEqual([]);
  });
});

describe("RESTMapper refresh on a miss", () => {
  it("does not refresh a miss in data it loaded during the same call", async () => {
    const discovery = new FakeDiscovery();
    await expect(mapper(discovery).resourceFor({ resource: "gizmos" })).rejects.toBeInstanceOf(
      NoMatchError,
    );
    expect(discovery.rounds).toBe(1);
  });

  it("finds a type added after the first lookup with exactly one refresh", async () => {
    const discovery = new FakeDiscovery();
    const m = mapper(discovery);
    await m.resourceFor({ resource: "pods" });
    discovery.data.groups.push(group("new.io", ["v1"]));
    discovery.data.lists.push(resources("new.io", "v1", [{ name: "gizmos", kind: "Gizmo" }]));
    expect(await m.resourceFor({ resource: "gizmos" })).toEqual({
      group: "new.io",
      version: "v1",
      resource: "gizmos",
    });
    expect(discovery.rounds).toBe(2);
    expect((await m.restMapping({ group: "new.io", kind: "Gizmo" })).scope).toBe("namespace");
    expect(discovery.rounds).toBe(2);
  });

  it("fails an unknown type after exactly one refresh, for names and kinds alike", async () => {
    const discovery = new FakeDiscovery();
    const m = mapper(discovery);
    await m.kindFor({ resource: "pods" });
    await expect(m.kindFor({ resource: "gizmos" })).rejects.toBeInstanceOf(NoMatchError);
    expect(discovery.rounds).toBe(2);
    await expect(m.restMapping({ group: "x.io", kind: "Gizmo" })).rejects.toBeInstanceOf(
      NoMatchError,
    );
    expect(discovery.rounds).toBe(3);
  });

  it("does not refresh for an ambiguous match", async () => {
    const discovery = new FakeDiscovery();
    const m = mapper(discovery);
    await m.resourceFor({ resource: "pods" });
    await expect(m.resourceFor({ resource: "foo" })).rejects.toBeInstanceOf(AmbiguousResourceError);
    expect(discovery.rounds).toBe(1);
  });

  it("invalidates a memory cache to refresh, and trusts it when it just filled", async () => {
    const discovery = new FakeDiscovery();
    const cache = new MemoryCachedDiscovery({
      host: "https://h",
      serverVersion: () => discovery.serverVersion(),
      groupsAndMaybeResources: async () => {
        const answer = await discovery.serverGroupsAndResources();
        return {
          groups: encodeAPIGroupList(answer.groups),
          resources: new Map(answer.resources.map((l) => [l.groupVersion, l])),
          failures: new Map(),
        };
      },
      serverResourcesForGroupVersion: (gv) => discovery.serverResourcesForGroupVersion(gv),
    });
    const m = mapper(cache);
    await expect(m.resourceFor({ resource: "gizmos" })).rejects.toBeInstanceOf(NoMatchError);
    expect(discovery.rounds).toBe(1);
    discovery.data.groups.push(group("new.io", ["v1"]));
    discovery.data.lists.push(resources("new.io", "v1", [{ name: "gizmos", kind: "Gizmo" }]));
    expect((await m.resourceFor({ resource: "gizmos" })).group).toBe("new.io");
    expect(discovery.rounds).toBe(2);
    expect(cache.fresh()).toBe(true);
  });

  it("refreshes once when a cache reports stale data, even on the first lookup", async () => {
    const discovery = new StaleCache();
    await expect(mapper(discovery).resourceFor({ resource: "gizmos" })).rejects.toBeInstanceOf(
      NoMatchError,
    );
    expect(discovery.rounds).toBe(2);
    expect(discovery.invalidations).toBe(1);
  });

  it("uses partial discovery, logs the failure and refreshes on a miss", async () => {
    const discovery = new FakeDiscovery();
    discovery.failures.set("example.com/v2", new Error("boom"));
    discovery.failures.set("example.com/v1beta1", new Error("boom"));
    const logger = new RecordingLogger();
    const m = mapper(discovery, logger);
    expect((await m.resourceFor({ resource: "pods" })).resource).toBe("pods");
    expect(logger.warnings[0]).toContain("unable to retrieve the complete list of server APIs");
    discovery.failures.clear();
    expect((await m.resourceFor({ resource: "widgets" })).group).toBe("example.com");
    expect(discovery.rounds).toBe(2);
  });

  it("shares one discovery round between concurrent lookups", async () => {
    const discovery = new FakeDiscovery();
    const m = mapper(discovery);
    await Promise.all([
      m.resourceFor({ resource: "pods" }),
      m.kindFor({ resource: "deploy" }),
      m.restMapping({ group: "", kind: "Service" }),
    ]);
    expect(discovery.rounds).toBe(1);
  });

  it("reset() forgets the loaded discovery", async () => {
    const discovery = new FakeDiscovery();
    const m = mapper(discovery);
    await m.resourceFor({ resource: "pods" });
    m.reset();
    await m.resourceFor({ resource: "pods" });
    expect(discovery.rounds).toBe(2);
  });

  it("rejects with the signal's reason", async () => {
    const controller = new AbortController();
    const pending = mapper().resourceFor({ resource: "pods" }, controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(pending).rejects.toThrow("cancelled");
  });
});
