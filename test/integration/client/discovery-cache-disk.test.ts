import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DiskCachedDiscovery,
  DiscoveryClient,
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

  override send(req: TransportRequest): Promise<TransportResponse> {
    this.paths.push(req.url.pathname);
    return super.send(req);
  }
}

let server: ApiServer;
let config: RestConfig;
let cacheDir: string;
const transports: Transport[] = [];

/** A disk-cached discovery as a fresh kubectl process would build it, with its request log. */
function newProcess(aggregated = true): { cache: DiskCachedDiscovery; paths: string[] } {
  const transport = new CountingTransport(config);
  transports.push(transport);
  const rest = new RESTClient(config, { transport, logger: noopLogger });
  const cache = new DiskCachedDiscovery(new DiscoveryClient(rest, { aggregated }), {
    cacheDir,
    logger: noopLogger,
  });
  return { cache, paths: transport.paths };
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
  cacheDir = await mkdtemp(join(tmpdir(), "kubekit-cache-"));
});

afterAll(async () => {
  await Promise.all(transports.map((t) => t.close()));
  await server.stop();
  await rm(cacheDir, { recursive: true, force: true });
});

describe("DiskCachedDiscovery against the embedded API server", () => {
  it("fills kubectl's layout from one aggregated round", async () => {
    const { cache, paths } = newProcess();
    const { resources } = await cache.serverGroupsAndResources();
    expect(paths).toEqual(["/api", "/apis"]);
    const hostDir = join(cacheDir, "discovery", `127.0.0.1_${server.port}`);
    expect(cache.directory).toBe(hostDir);
    const entries = await readdir(hostDir);
    expect(entries).toContain("servergroups.json");
    expect(entries).toContain("v1");
    expect(entries).toContain("apps");
    for (const list of resources) {
      const file =
        list.group === ""
          ? join(hostDir, list.version, "serverresources.json")
          : join(hostDir, list.group, list.version, "serverresources.json");
      expect(((await stat(file)).mode & 0o777).toString(8), file).toBe("600");
    }
    expect(((await stat(join(hostDir, "apps"))).mode & 0o777).toString(8)).toBe("700");
  });

  it("sends no request at all with a warm cache", async () => {
    const { cache, paths } = newProcess();
    const preferred = await cache.serverPreferredResources();
    const groups = await cache.serverGroups();
    expect(paths).toEqual([]);
    expect(groups.groups[0]?.name).toBe("");
    expect(preferred.flatMap((l) => l.resources).some((r) => r.name === "deployments")).toBe(true);
    expect(cache.fresh()).toBe(false);
  });

  it("asks the server again after invalidate()", async () => {
    const { cache, paths } = newProcess();
    cache.invalidate();
    await cache.serverGroupsAndResources();
    expect(paths).toEqual(["/api", "/apis"]);
    expect(cache.fresh()).toBe(true);
  });

  it("fetches and caches each group version for a legacy server", async () => {
    await rm(join(cacheDir, "discovery"), { recursive: true, force: true });
    const cold = newProcess(false);
    await cold.cache.serverGroupsAndResources();
    expect(cold.paths.length).toBeGreaterThan(10);
    expect(cold.paths).toContain("/apis/apps/v1");

    const warm = newProcess(false);
    await warm.cache.serverGroupsAndResources();
    expect(warm.paths).toEqual([]);
  });
});
