import { describe, expect, it } from "vitest";
import {
  MemoryCachedDiscovery,
  GroupDiscoveryFailedError,
  StaleGroupVersionError,
  StatusError,
} from "kubekit";
import { encodeAPIGroupList } from "../../../packages/kubekit/src/client/discovery-legacy.js";
import type {
  APIGroup,
  DiscoveredResourceList,
  DiscoverySource,
  GroupsAndMaybeResources,
} from "../../../packages/kubekit/src/client/discovery-types.js";

function group(name: string, ...versions: string[]): APIGroup {
  const entries = versions.map((version) => ({
    groupVersion: name === "" ? version : `${name}/${version}`,
    version,
  }));
  return { name, versions: entries, preferredVersion: entries[0]! };
}

function list(groupVersion: string, ...names: string[]): DiscoveredResourceList {
  const [group, version] = groupVersion.includes("/")
    ? (groupVersion.split("/") as [string, string])
    : ["", groupVersion];
  return {
    groupVersion,
    group,
    version,
    resources: names.map((name) => ({
      name,
      singularName: name.slice(0, -1),
      namespaced: true,
      group,
      version,
      kind: name[0]!.toUpperCase() + name.slice(1, -1),
      verbs: ["get"],
      shortNames: [],
      categories: [],
      subresources: [],
    })),
  };
}

function statusError(code: number): StatusError {
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `failed with ${code}`,
    code,
  });
}

/** A legacy-style source (groups without resources) that counts its calls. */
class FakeSource implements DiscoverySource {
  readonly host = "https://10.0.0.1:6443";
  groups: APIGroup[] = [group("", "v1"), group("apps", "v1")];
  lists = new Map<string, DiscoveredResourceList | Error>([
    ["v1", list("v1", "pods")],
    ["apps/v1", list("apps/v1", "deployments")],
  ]);
  stale = new Map<string, Error>();
  groupCalls = 0;
  listCalls: string[] = [];
  versionCalls = 0;
  invalidations = 0;
  /** When set, group list calls wait for it. */
  gate: Promise<void> | undefined;

  async serverVersion(): Promise<{
    major: string;
    minor: string;
    gitVersion: string;
    gitCommit: string;
    gitTreeState: string;
    buildDate: string;
    goVersion: string;
    compiler: string;
    platform: string;
  }> {
    this.versionCalls++;
    return {
      major: "1",
      minor: "32",
      gitVersion: "",
      gitCommit: "",
      gitTreeState: "",
      buildDate: "",
      goVersion: "",
      compiler: "",
      platform: "",
    };
  }

  async groupsAndMaybeResources(signal?: AbortSignal): Promise<GroupsAndMaybeResources> {
    this.groupCalls++;
    if (this.gate) await this.gate;
    signal?.throwIfAborted();
    return { groups: encodeAPIGroupList(this.groups), resources: new Map(), failures: this.stale };
  }

  async serverResourcesForGroupVersion(groupVersion: string): Promise<DiscoveredResourceList> {
    this.listCalls.push(groupVersion);
    const entry = this.lists.get(groupVersion);
    if (entry === undefined) throw statusError(404);
    if (entry instanceof Error) throw entry;
    return entry;
  }

  invalidate(): void {
    this.invalidations++;
  }
}

describe("MemoryCachedDiscovery", () => {
  it("runs one discovery round, then answers every query from memory", async () => {
    const source = new FakeSource();
    const cache = new MemoryCachedDiscovery(source);
    expect(cache.fresh()).toBe(false);
    const first = await cache.serverGroupsAndResources();
    expect(cache.fresh()).toBe(true);
    expect(first.resources.map((l) => l.groupVersion)).toEqual(["v1", "apps/v1"]);
    expect((await cache.serverGroups()).groups.map((g) => g.name)).toEqual(["", "apps"]);
    expect((await cache.serverResourcesForGroupVersion("apps/v1")).resources[0]?.name).toBe(
      "deployments",
    );
    expect(await cache.serverPreferredResources()).toHaveLength(2);
    expect(source.groupCalls).toBe(1);
    expect(source.listCalls.sort()).toEqual(["apps/v1", "v1"]);
  });

  it("shares one round between concurrent callers", async () => {
    const source = new FakeSource();
    let open!: () => void;
    source.gate = new Promise((resolve) => (open = resolve));
    const cache = new MemoryCachedDiscovery(source);
    const calls = [cache.serverGroups(), cache.serverGroupsAndResources(), cache.serverGroups()];
    open();
    await Promise.all(calls);
    expect(source.groupCalls).toBe(1);
  });

  it("asks again after invalidate() and invalidates a caching delegate", async () => {
    const source = new FakeSource();
    const cache = new MemoryCachedDiscovery(source);
    await cache.serverGroups();
    source.groups.push(group("example.com", "v1"));
    source.lists.set("example.com/v1", list("example.com/v1", "widgets"));
    expect((await cache.serverGroups()).groups).toHaveLength(2);
    cache.invalidate();
    expect(cache.fresh()).toBe(false);
    expect(source.invalidations).toBe(1);
    expect((await cache.serverGroups()).groups.map((g) => g.name)).toEqual([
      "",
      "apps",
      "example.com",
    ]);
    expect(source.groupCalls).toBe(2);
    expect(cache.fresh()).toBe(true);
  });

  it("keeps permanent failures until invalidation and retries transient ones", async () => {
    const source = new FakeSource();
    source.groups.push(group("broken.io", "v1"), group("flaky.io", "v1"));
    source.lists.set("broken.io/v1", statusError(403));
    source.lists.set("flaky.io/v1", statusError(503));
    const cache = new MemoryCachedDiscovery(source);

    const first = await cache.serverGroupsAndResources().catch((e: unknown) => e);
    expect(first).toBeInstanceOf(GroupDiscoveryFailedError);
    expect([...(first as GroupDiscoveryFailedError).failures.keys()].sort()).toEqual([
      "broken.io/v1",
      "flaky.io/v1",
    ]);
    expect(source.listCalls.filter((gv) => gv === "broken.io/v1")).toHaveLength(1);
    // Filling asked it once; the query, needing it, asked once more (client-go does the same).
    expect(source.listCalls.filter((gv) => gv === "flaky.io/v1")).toHaveLength(2);

    // The flaky group version recovers: the next query asks it again, the broken one not.
    source.lists.set("flaky.io/v1", list("flaky.io/v1", "flakes"));
    const second = await cache.serverGroupsAndResources().catch((e: unknown) => e);
    expect(second).toBeInstanceOf(GroupDiscoveryFailedError);
    expect([...(second as GroupDiscoveryFailedError).failures.keys()]).toEqual(["broken.io/v1"]);
    expect((second as GroupDiscoveryFailedError).resources.map((l) => l.groupVersion)).toContain(
      "flaky.io/v1",
    );
    expect(source.listCalls.filter((gv) => gv === "flaky.io/v1")).toHaveLength(3);
    expect(source.listCalls.filter((gv) => gv === "broken.io/v1")).toHaveLength(1);

    // Now cached: no further request for it.
    await cache.serverResourcesForGroupVersion("flaky.io/v1");
    expect(source.listCalls.filter((gv) => gv === "flaky.io/v1")).toHaveLength(3);
    await expect(cache.serverResourcesForGroupVersion("broken.io/v1")).rejects.toMatchObject({
      code: 403,
    });
  });

  it("reports stale group versions of the source on every query", async () => {
    const source = new FakeSource();
    source.stale = new Map([
      ["metrics.k8s.io/v1beta1", new StaleGroupVersionError("metrics.k8s.io/v1beta1")],
    ]);
    const cache = new MemoryCachedDiscovery(source);
    for (let i = 0; i < 2; i++) {
      const err = await cache.serverPreferredResources().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GroupDiscoveryFailedError);
      expect((err as GroupDiscoveryFailedError).resources.map((l) => l.groupVersion)).toEqual([
        "v1",
        "apps/v1",
      ]);
    }
    expect(source.groupCalls).toBe(1);
  });

  it("asks the delegate, uncached, for a group version it does not list", async () => {
    const source = new FakeSource();
    source.lists.set("example.com/v1", list("example.com/v1", "widgets"));
    const cache = new MemoryCachedDiscovery(source);
    await cache.serverResourcesForGroupVersion("example.com/v1");
    await cache.serverResourcesForGroupVersion("example.com/v1");
    expect(source.listCalls.filter((gv) => gv === "example.com/v1")).toHaveLength(2);
  });

  it("never caches the server version", async () => {
    const source = new FakeSource();
    const cache = new MemoryCachedDiscovery(source);
    await cache.serverVersion();
    await cache.serverVersion();
    expect(source.versionCalls).toBe(2);
  });

  it("lets one caller abort without failing the others or the shared round", async () => {
    const source = new FakeSource();
    let open!: () => void;
    source.gate = new Promise((resolve) => (open = resolve));
    const cache = new MemoryCachedDiscovery(source);
    const controller = new AbortController();
    const aborted = cache.serverGroups(controller.signal);
    const patient = cache.serverGroups();
    controller.abort(new Error("gave up"));
    await expect(aborted).rejects.toThrow("gave up");
    open();
    expect((await patient).groups).toHaveLength(2);
    expect(cache.fresh()).toBe(true);
    expect(source.groupCalls).toBe(1);
  });

  it("abandons the round when its only caller aborts, and starts anew for the next", async () => {
    const source = new FakeSource();
    let open!: () => void;
    source.gate = new Promise((resolve) => (open = resolve));
    const cache = new MemoryCachedDiscovery(source);
    const controller = new AbortController();
    const aborted = cache.serverGroups(controller.signal);
    controller.abort(new Error("gave up"));
    await expect(aborted).rejects.toThrow("gave up");
    source.gate = undefined;
    open();
    expect((await cache.serverGroups()).groups).toHaveLength(2);
    expect(source.groupCalls).toBe(2);
  });

  it("rejects an invalid concurrency", () => {
    expect(() => new MemoryCachedDiscovery(new FakeSource(), { concurrency: 0 })).toThrow(
      RangeError,
    );
  });
});
