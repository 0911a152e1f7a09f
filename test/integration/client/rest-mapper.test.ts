import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DiskCachedDiscovery,
  DiscoveryClient,
  NoMatchError,
  RESTMapper,
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

  /** How many discovery rounds (`/api` requests) were sent. */
  rounds(): number {
    return this.paths.filter((p) => p === "/api").length;
  }
}

let server: ApiServer;
let config: RestConfig;
let cacheDir: string;
const transports: Transport[] = [];

function client(): { rest: RESTClient; transport: CountingTransport } {
  const transport = new CountingTransport(config);
  transports.push(transport);
  return { rest: new RESTClient(config, { transport, logger: noopLogger }), transport };
}

/** Creates a namespaced CRD with one served version v1 via a raw POST. */
async function createCrd(
  rest: RESTClient,
  group: string,
  plural: string,
  kind: string,
  shortNames: string[],
): Promise<void> {
  await rest
    .post()
    .absPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
    .body({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: {
          plural,
          singular: kind.toLowerCase(),
          kind,
          listKind: `${kind}List`,
          shortNames,
        },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        ],
      },
    })
    .do();
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
  cacheDir = await mkdtemp(join(tmpdir(), "kubekit-mapper-"));
});

afterAll(async () => {
  await Promise.all(transports.map((t) => t.close()));
  await server.stop();
  await rm(cacheDir, { recursive: true, force: true });
});

describe("RESTMapper against the embedded API server", () => {
  it("maps built-in names, short names and kinds", async () => {
    const { rest } = client();
    const mapper = new RESTMapper(new DiscoveryClient(rest), { logger: noopLogger });
    expect(await mapper.resourceFor({ resource: "deploy" })).toEqual({
      group: "apps",
      version: "v1",
      resource: "deployments",
    });
    expect(await mapper.kindFor({ resource: "po" })).toEqual({
      group: "",
      version: "v1",
      kind: "Pod",
    });
    expect(await mapper.restMapping({ group: "", kind: "Namespace" })).toEqual({
      resource: { group: "", version: "v1", resource: "namespaces" },
      gvk: { group: "", version: "v1", kind: "Namespace" },
      scope: "root",
    });
    const all = await mapper.expandCategory("all");
    expect(all).toContainEqual({ group: "", resource: "pods" });
    expect(all).toContainEqual({ group: "apps", resource: "deployments" });
  });

  it("picks up a CRD created after the first discovery with one refresh", async () => {
    const { rest, transport } = client();
    const mapper = new RESTMapper(new DiscoveryClient(rest), { logger: noopLogger });
    await mapper.resourceFor({ resource: "pods" });
    expect(transport.paths).toEqual(["/api", "/apis"]);

    await createCrd(rest, "example.com", "widgets", "Widget", ["wd"]);
    const before = transport.paths.length;
    expect(await mapper.resourceFor({ resource: "widgets" })).toEqual({
      group: "example.com",
      version: "v1",
      resource: "widgets",
    });
    expect(transport.paths.slice(before)).toEqual(["/api", "/apis"]);

    // Now known: no further discovery.
    expect(await mapper.resourceFor({ resource: "wd" })).toEqual({
      group: "example.com",
      version: "v1",
      resource: "widgets",
    });
    expect(await mapper.restMapping({ group: "example.com", kind: "Widget" })).toMatchObject({
      scope: "namespace",
      gvk: { group: "example.com", version: "v1", kind: "Widget" },
    });
    expect(transport.rounds()).toBe(2);
  });

  it("fails a truly unknown type with NoMatchError after exactly one refresh", async () => {
    const { rest, transport } = client();
    const mapper = new RESTMapper(new DiscoveryClient(rest), { logger: noopLogger });
    await mapper.resourceFor({ resource: "pods" });
    expect(transport.rounds()).toBe(1);

    const err = await mapper.resourceFor({ resource: "gadgets" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoMatchError);
    expect((err as Error).message).toBe(`the server doesn't have a resource type "gadgets"`);
    expect(transport.rounds()).toBe(2);

    await expect(mapper.restMapping({ group: "example.com", kind: "Gadget" })).rejects.toThrow(
      'no matches for kind "Gadget" in group "example.com"',
    );
    expect(transport.rounds()).toBe(3);
  });

  it("refreshes a warm disk cache once when a CRD appeared since it was written (kubectl)", async () => {
    const first = client();
    const warmup = new DiskCachedDiscovery(new DiscoveryClient(first.rest), {
      cacheDir,
      logger: noopLogger,
    });
    await new RESTMapper(warmup, { logger: noopLogger }).resourceFor({ resource: "pods" });
    expect(first.transport.rounds()).toBe(1);

    await createCrd(first.rest, "gizmo.example.com", "gizmos", "Gizmo", ["gz"]);

    // A new "process": the disk cache is warm, so pods need no request at all ...
    const second = client();
    const cache = new DiskCachedDiscovery(new DiscoveryClient(second.rest), {
      cacheDir,
      logger: noopLogger,
    });
    const mapper = new RESTMapper(cache, { logger: noopLogger });
    await mapper.resourceFor({ resource: "pods" });
    expect(second.transport.paths).toEqual([]);
    // ... and the CRD missing from the cached files costs exactly one refresh.
    expect(await mapper.resourceFor({ resource: "gz" })).toEqual({
      group: "gizmo.example.com",
      version: "v1",
      resource: "gizmos",
    });
    expect(second.transport.paths).toEqual(["/api", "/apis"]);
    expect(cache.fresh()).toBe(true);
  });
});
