import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  DEFAULT_DISCOVERY_CACHE_TTL_MS,
  defaultCacheDir,
  DiskCachedDiscovery,
  discoveryCacheDirectory,
} from "../../../packages/kubekit/src/client/discovery-cache-disk.js";
import { encodeAPIGroupList } from "../../../packages/kubekit/src/client/discovery-legacy.js";
import type {
  APIGroup,
  DiscoveredResourceList,
  DiscoverySource,
  GroupsAndMaybeResources,
  ServerVersionInfo,
} from "../../../packages/kubekit/src/client/discovery-types.js";
import { FakeClock } from "kubekit/testing";
import { type Logger, noopLogger } from "kubekit";

const HOST = "https://127.0.0.1:18080";
const TTL = DEFAULT_DISCOVERY_CACHE_TTL_MS;

function group(name: string, ...versions: string[]): APIGroup {
  const entries = versions.map((version) => ({
    groupVersion: name === "" ? version : `${name}/${version}`,
    version,
  }));
  return { name, versions: entries, preferredVersion: entries[0]! };
}

function list(groupVersion: string, ...names: string[]): DiscoveredResourceList {
  const [g, version] = groupVersion.includes("/")
    ? (groupVersion.split("/") as [string, string])
    : ["", groupVersion];
  return {
    groupVersion,
    group: g,
    version,
    resources: names.map((name) => ({
      name,
      singularName: name.slice(0, -1),
      namespaced: true,
      group: g,
      version,
      kind: name[0]!.toUpperCase() + name.slice(1, -1),
      verbs: ["get", "list"],
      shortNames: [],
      categories: ["all"],
      subresources: [{ name: "status", group: g, version, kind: "Status", verbs: ["get"] }],
    })),
  };
}

/** A source answering like an aggregated server (or, with `aggregated = false`, a legacy one). */
class FakeSource implements DiscoverySource {
  readonly host: string;
  aggregated = true;
  groups: APIGroup[] = [group("", "v1"), group("apps", "v1")];
  lists = new Map<string, DiscoveredResourceList>([
    ["v1", list("v1", "pods")],
    ["apps/v1", list("apps/v1", "deployments")],
  ]);
  groupCalls = 0;
  listCalls: string[] = [];

  constructor(host = HOST) {
    this.host = host;
  }

  async serverVersion(): Promise<ServerVersionInfo> {
    throw new Error("not used");
  }

  async groupsAndMaybeResources(): Promise<GroupsAndMaybeResources> {
    this.groupCalls++;
    const resources = new Map<string, DiscoveredResourceList>();
    if (this.aggregated) {
      for (const g of this.groups) {
        for (const v of g.versions) {
          const l = this.lists.get(v.groupVersion);
          if (l) resources.set(v.groupVersion, l);
        }
      }
    }
    return { groups: encodeAPIGroupList(this.groups), resources, failures: new Map() };
  }

  async serverResourcesForGroupVersion(groupVersion: string): Promise<DiscoveredResourceList> {
    this.listCalls.push(groupVersion);
    const l = this.lists.get(groupVersion);
    if (!l) throw new Error(`no ${groupVersion}`);
    return l;
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

let root: string;
let clock: FakeClock;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "kubekit-discovery-"));
  clock = new FakeClock(Date.UTC(2026, 0, 1));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function cacheFor(source: FakeSource, ttlMs?: number): DiskCachedDiscovery {
  return new DiskCachedDiscovery(source, {
    cacheDir: root,
    clock,
    logger: noopLogger,
    ...(ttlMs !== undefined ? { ttlMs } : {}),
  });
}

const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe("discovery cache location", () => {
  it("names the host folder as kubectl does", () => {
    expect(discoveryCacheDirectory("/c", "https://127.0.0.1:18080")).toBe(
      "/c/discovery/127.0.0.1_18080",
    );
    expect(discoveryCacheDirectory("/c", "http://localhost:8080")).toBe(
      "/c/discovery/localhost_8080",
    );
    expect(discoveryCacheDirectory("/c", "https://rancher.example:443/k8s/clusters/c-1")).toBe(
      "/c/discovery/rancher.example_443/k8s/clusters/c_1",
    );
    expect(discoveryCacheDirectory("/c", "https://[::1]:6443")).toBe("/c/discovery/___1__6443");
    // One "_" per character, also outside ASCII (Go's \w is ASCII only).
    expect(discoveryCacheDirectory("/c", "https://kübe-api.local")).toBe(
      "/c/discovery/k_be_api.local",
    );
  });

  it("defaults to $KUBECACHEDIR, else ~/.kube/cache", () => {
    expect(defaultCacheDir({ KUBECACHEDIR: "/var/cache/kube" })).toBe("/var/cache/kube");
    expect(defaultCacheDir({ KUBECACHEDIR: "" })).toBe(join(homedir(), ".kube", "cache"));
    expect(defaultCacheDir({})).toBe(join(homedir(), ".kube", "cache"));
    const cache = new DiskCachedDiscovery(new FakeSource(), { logger: noopLogger });
    expect(cache.directory.startsWith(defaultCacheDir())).toBe(true);
  });
});

describe("DiskCachedDiscovery", () => {
  it("writes kubectl's layout: 0600 files in 0700 folders, no temporary files left", async () => {
    const cache = cacheFor(new FakeSource());
    await cache.serverGroupsAndResources();
    const dir = join(root, "discovery", "127.0.0.1_18080");
    expect(cache.directory).toBe(dir);
    expect((await readdir(dir)).sort()).toEqual(["apps", "servergroups.json", "v1"]);
    expect(await readdir(join(dir, "apps", "v1"))).toEqual(["serverresources.json"]);

    for (const file of [
      join(dir, "servergroups.json"),
      join(dir, "v1", "serverresources.json"),
      join(dir, "apps", "v1", "serverresources.json"),
    ]) {
      expect(await mode(file)).toBe(0o600);
    }
    for (const folder of [
      join(root, "discovery"),
      dir,
      join(dir, "apps"),
      join(dir, "apps", "v1"),
    ]) {
      expect(await mode(folder)).toBe(0o700);
    }

    const groups = JSON.parse(await readFile(join(dir, "servergroups.json"), "utf8"));
    expect(groups.kind).toBe("APIGroupList");
    expect(groups.groups.map((g: { name: string }) => g.name)).toEqual(["", "apps"]);
    const resources = JSON.parse(
      await readFile(join(dir, "apps", "v1", "serverresources.json"), "utf8"),
    );
    expect(resources).toMatchObject({ kind: "APIResourceList", groupVersion: "apps/v1" });
    expect(resources.resources.map((r: { name: string }) => r.name)).toEqual([
      "deployments",
      "deployments/status",
    ]);
  });

  it("answers a warm cache without asking the server, and is then not fresh", async () => {
    await cacheFor(new FakeSource()).serverGroupsAndResources();
    const source = new FakeSource();
    const cache = cacheFor(source);
    expect(cache.fresh()).toBe(true);
    const answer = await cache.serverGroupsAndResources();
    expect(source.groupCalls).toBe(0);
    expect(source.listCalls).toEqual([]);
    expect(answer.resources.map((l) => l.groupVersion)).toEqual(["v1", "apps/v1"]);
    expect(answer.resources[1]?.resources[0]?.subresources[0]?.name).toBe("status");
    expect(cache.fresh()).toBe(false);
  });

  it("stays fresh while it answers from files it wrote itself", async () => {
    const source = new FakeSource();
    const cache = cacheFor(source);
    await cache.serverGroupsAndResources();
    await cache.serverGroupsAndResources();
    expect(source.groupCalls).toBe(1);
    expect(cache.fresh()).toBe(true);
  });

  it("fetches group versions on their own when the server answers legacy, and caches them", async () => {
    const source = new FakeSource();
    source.aggregated = false;
    const cache = cacheFor(source);
    await cache.serverGroupsAndResources();
    expect(source.listCalls.sort()).toEqual(["apps/v1", "v1"]);
    const again = new FakeSource();
    await cacheFor(again).serverPreferredResources();
    expect(again.groupCalls + again.listCalls.length).toBe(0);
  });

  it("expires files after the TTL on the injected clock", async () => {
    const ttl = 60_000;
    await cacheFor(new FakeSource(), ttl).serverGroups();
    const file = join(root, "discovery", "127.0.0.1_18080", "servergroups.json");
    expect(Math.round((await stat(file)).mtimeMs)).toBe(clock.now());

    clock.advance(ttl);
    const within = new FakeSource();
    await cacheFor(within, ttl).serverGroups();
    expect(within.groupCalls).toBe(0);

    clock.advance(1);
    const expired = new FakeSource();
    await cacheFor(expired, ttl).serverGroups();
    expect(expired.groupCalls).toBe(1);
    expect(Math.round((await stat(file)).mtimeMs)).toBe(clock.now());

    // The rewritten file (mtime not on a whole second) is again valid for exactly the TTL.
    clock.advance(ttl);
    const again = new FakeSource();
    await cacheFor(again, ttl).serverGroups();
    expect(again.groupCalls).toBe(0);
  });

  it("uses kubectl's 6 hour TTL by default", async () => {
    await cacheFor(new FakeSource()).serverGroups();
    clock.advance(TTL - 1);
    const fresh = new FakeSource();
    await cacheFor(fresh).serverGroups();
    expect(fresh.groupCalls).toBe(0);
    clock.advance(2);
    const stale = new FakeSource();
    await cacheFor(stale).serverGroups();
    expect(stale.groupCalls).toBe(1);
  });

  it("ignores a corrupt group file, refetches and rewrites it", async () => {
    const dir = join(root, "discovery", "127.0.0.1_18080");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "servergroups.json"), "{not json");
    const source = new FakeSource();
    const groups = await cacheFor(source).serverGroups();
    expect(source.groupCalls).toBe(1);
    expect(groups.groups).toHaveLength(2);
    expect(JSON.parse(await readFile(join(dir, "servergroups.json"), "utf8")).kind).toBe(
      "APIGroupList",
    );
  });

  it("ignores resource files of the wrong shape or group version", async () => {
    const seed = new FakeSource();
    seed.aggregated = false;
    await cacheFor(seed).serverGroupsAndResources();
    const dir = join(root, "discovery", "127.0.0.1_18080");
    await writeFile(
      join(dir, "v1", "serverresources.json"),
      JSON.stringify({ kind: "APIResourceList" }),
    );
    await writeFile(
      join(dir, "apps", "v1", "serverresources.json"),
      JSON.stringify({ kind: "APIResourceList", groupVersion: "batch/v1", resources: [] }),
    );
    const source = new FakeSource();
    source.aggregated = false;
    const answer = await cacheFor(source).serverGroupsAndResources();
    expect(source.groupCalls).toBe(0);
    expect(source.listCalls.sort()).toEqual(["apps/v1", "v1"]);
    expect(answer.resources.map((l) => l.resources[0]?.name)).toEqual(["pods", "deployments"]);
  });

  it("reads files written by kubectl", async () => {
    const dir = join(root, "discovery", "127.0.0.1_18080");
    await mkdir(join(dir, "v1"), { recursive: true });
    await writeFile(
      join(dir, "servergroups.json"),
      '{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"","versions":[{"groupVersion":"v1","version":"v1"}],"preferredVersion":{"groupVersion":"v1","version":"v1"}}]}\n',
    );
    await writeFile(
      join(dir, "v1", "serverresources.json"),
      '{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","list"],"shortNames":["po"],"categories":["all"],"storageVersionHash":"xPOwRZ+Yhw8="},{"name":"pods/log","singularName":"","namespaced":true,"kind":"Pod","verbs":["get"]}]}\n',
    );
    const source = new FakeSource();
    const { resources } = await cacheFor(source).serverGroupsAndResources();
    expect(source.groupCalls + source.listCalls.length).toBe(0);
    expect(resources[0]?.resources[0]).toMatchObject({
      name: "pods",
      shortNames: ["po"],
      storageVersionHash: "xPOwRZ+Yhw8=",
      subresources: [{ name: "log", kind: "Pod" }],
    });
  });

  it("ignores files it did not write after invalidate(), and uses the ones it writes", async () => {
    await cacheFor(new FakeSource()).serverGroupsAndResources();
    const source = new FakeSource();
    source.groups.push(group("example.com", "v1"));
    source.lists.set("example.com/v1", list("example.com/v1", "widgets"));
    const cache = cacheFor(source);
    expect((await cache.serverGroups()).groups).toHaveLength(2);
    expect(cache.fresh()).toBe(false);

    cache.invalidate();
    expect(cache.fresh()).toBe(true);
    const { groups } = await cache.serverGroupsAndResources();
    expect(groups.map((g) => g.name)).toEqual(["", "apps", "example.com"]);
    expect(source.groupCalls).toBe(1);
    await cache.serverGroupsAndResources();
    expect(source.groupCalls).toBe(1);
    expect(cache.fresh()).toBe(true);
  });

  it("never writes outside its folder for unsafe group names", async () => {
    const source = new FakeSource();
    source.aggregated = false;
    source.groups = [group("..", "v1")];
    source.lists = new Map([["../v1", list("../v1", "escapes")]]);
    const cache = cacheFor(source);
    await cache.serverGroupsAndResources();
    await cache.serverGroupsAndResources();
    expect(source.listCalls).toEqual(["../v1", "../v1"]);
    expect(await readdir(join(root, "discovery"))).toEqual(["127.0.0.1_18080"]);
  });

  it("still answers when the cache cannot be written, and logs it", async () => {
    const blocker = join(root, "not-a-dir");
    await writeFile(blocker, "");
    const logger = new RecordingLogger();
    const source = new FakeSource();
    const cache = new DiskCachedDiscovery(source, { cacheDir: blocker, clock, logger });
    const { resources } = await cache.serverGroupsAndResources();
    expect(resources).toHaveLength(2);
    expect(logger.warnings.length).toBeGreaterThan(0);
  });

  it("validates its options", () => {
    expect(() => cacheFor(new FakeSource(), -1)).toThrow(RangeError);
    expect(
      () => new DiskCachedDiscovery(new FakeSource(), { cacheDir: root, concurrency: 0 }),
    ).toThrow(RangeError);
  });
});
