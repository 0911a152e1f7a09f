import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DiscoveryClient,
  type DiscoveredResourceList,
  type GroupsAndResources,
  type RestConfig,
  noopLogger,
  RESTClient,
  type TransportRequest,
  type TransportResponse,
  Transport,
} from "kubekit";
import { ApiServer } from "@kubekit/apiserver";

/** A real transport that records the path of every request. */
class CountingTransport extends Transport {
  readonly paths: string[] = [];
  readonly accepts: string[] = [];

  override send(req: TransportRequest): Promise<TransportResponse> {
    this.paths.push(req.url.pathname);
    this.accepts.push(req.headers["accept"] ?? "");
    return super.send(req);
  }
}

let server: ApiServer;
let config: RestConfig;
const transports: Transport[] = [];

function counting(): CountingTransport {
  const transport = new CountingTransport(config);
  transports.push(transport);
  return transport;
}

function discovery(transport: Transport, aggregated = true): DiscoveryClient {
  const rest = new RESTClient(config, { transport, logger: noopLogger });
  return new DiscoveryClient(rest, { aggregated });
}

function withoutHashes(lists: readonly DiscoveredResourceList[]): DiscoveredResourceList[] {
  return lists.map((list) => ({
    ...list,
    resources: list.resources.map((r) => {
      const copy = { ...r };
      delete copy.storageVersionHash;
      return copy;
    }),
  }));
}

beforeAll(async () => {
  server = await ApiServer.start({ tls: true, auth: { tokens: { t0k: "admin" } } });
  config = {
    host: server.url,
    tls: { caPem: server.caPem! },
    credentials: {
      kind: "token",
      get: async () => ({ headers: { authorization: "Bearer t0k" } }),
      invalidate() {},
    },
    qps: -1,
    burst: 10,
  };
});

afterAll(async () => {
  await Promise.all(transports.map((t) => t.close()));
  await server.stop();
});

describe("DiscoveryClient against the embedded API server", () => {
  let aggregated: GroupsAndResources;

  it("discovers everything with exactly two requests, /api and /apis, in aggregated form", async () => {
    const transport = counting();
    aggregated = await discovery(transport).serverGroupsAndResources();
    expect(transport.paths).toEqual(["/api", "/apis"]);
    expect(transport.accepts[0]).toContain("g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");

    expect(aggregated.groups[0]).toEqual({
      name: "",
      versions: [{ groupVersion: "v1", version: "v1" }],
      preferredVersion: { groupVersion: "v1", version: "v1" },
    });
    const names = aggregated.groups.map((g) => g.name);
    expect(names).toContain("apps");
    expect(names).toContain("apiextensions.k8s.io");
    const core = aggregated.resources.find((l) => l.groupVersion === "v1");
    expect(core?.resources.find((r) => r.name === "pods")).toMatchObject({
      singularName: "pod",
      namespaced: true,
      group: "",
      version: "v1",
      kind: "Pod",
      shortNames: ["po"],
      categories: ["all"],
    });
    const apps = aggregated.resources.find((l) => l.groupVersion === "apps/v1");
    expect(
      apps?.resources.find((r) => r.name === "deployments")?.subresources.map((s) => s.name),
    ).toEqual(["scale", "status"]);
  });

  it("falls back to legacy discovery and arrives at the same model", async () => {
    const transport = counting();
    const legacy = await discovery(transport, false).serverGroupsAndResources();
    expect(transport.paths.slice(0, 2)).toEqual(["/api", "/apis"]);
    expect(transport.accepts.slice(0, 2)).toEqual(["application/json", "application/json"]);
    const perVersion = transport.paths.slice(2).sort();
    const expected = legacy.groups
      .flatMap((g) =>
        g.versions.map((v) => (g.name === "" ? `/api/${v.version}` : `/apis/${v.groupVersion}`)),
      )
      .sort();
    expect(perVersion).toEqual(expected);
    expect(perVersion.length).toBeGreaterThan(10);

    expect(legacy.groups).toEqual(aggregated.groups);
    expect(withoutHashes(legacy.resources)).toEqual(aggregated.resources);
    const pods = legacy.resources[0]?.resources.find((r) => r.name === "pods");
    expect(pods?.storageVersionHash).toBe("xPOwRZ+Yhw8=");
  });

  it("answers the version, one group version and the preferred resources", async () => {
    const transport = counting();
    const client = discovery(transport);
    expect(await client.serverVersion()).toMatchObject({ major: "1", minor: "32" });
    const apps = await client.serverResourcesForGroupVersion("apps/v1");
    expect(apps.resources.map((r) => r.name)).toContain("deployments");
    expect(transport.paths).toEqual(["/version", "/apis/apps/v1"]);

    const preferred = await client.serverPreferredNamespacedResources();
    const all = preferred.flatMap((l) => l.resources);
    expect(all.every((r) => r.namespaced)).toBe(true);
    expect(all.some((r) => r.name === "pods")).toBe(true);
    expect(all.some((r) => r.name === "nodes")).toBe(false);
  });

  it("works when built from the RestConfig itself", async () => {
    const client = new DiscoveryClient(config, { logger: noopLogger });
    transports.push(client.restClient.transport);
    const groups = await client.serverGroups();
    expect(groups.groups[0]?.name).toBe("");
    expect(client.host).toBe(server.url);
  });
});
