import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import {
  DiscoveryClient,
  GroupDiscoveryFailedError,
  StaleGroupVersionError,
  type CredentialSource,
  type RestConfig,
  noopLogger,
  StatusError,
  RESTClient,
  type TransportRequest,
  type TransportResponse,
  Transport,
} from "kubekit";
import { AGGREGATED_DISCOVERY_ACCEPT } from "../../../packages/kubekit/src/client/discovery-media-type.js";
import { FakeClock } from "kubekit/testing";

const anonymous: CredentialSource = {
  kind: "none",
  get: () => Promise.resolve({ headers: {} }),
  invalidate: () => undefined,
};

const CONFIG: RestConfig = {
  host: "https://10.0.0.1:6443",
  tls: {},
  credentials: anonymous,
  qps: -1,
  burst: 10,
};

const V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

interface Answer {
  readonly status?: number;
  readonly contentType?: string;
  readonly body: unknown;
}

type Route = (req: TransportRequest) => Answer | Promise<Answer>;

/** A transport answering from a table of paths; records every request. */
class FakeTransport extends Transport {
  readonly requests: TransportRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;

  constructor(private readonly routes: Record<string, Route | Answer>) {
    super(CONFIG);
  }

  override async send(req: TransportRequest): Promise<TransportResponse> {
    // As undici: an aborted signal rejects the request with its reason.
    req.signal?.throwIfAborted();
    this.requests.push(req);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const route = this.routes[req.url.pathname];
      const answer: Answer =
        route === undefined
          ? { status: 404, body: notFoundStatus() }
          : typeof route === "function"
            ? await route(req)
            : route;
      return {
        statusCode: answer.status ?? 200,
        headers: { "content-type": answer.contentType ?? "application/json" },
        body: Readable.from([Buffer.from(JSON.stringify(answer.body))]),
      };
    } finally {
      this.inFlight--;
    }
  }

  paths(): string[] {
    return this.requests.map((r) => r.url.pathname);
  }
}

function notFoundStatus(): unknown {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "the server could not find the requested resource",
    reason: "NotFound",
    code: 404,
  };
}

function unavailable(message: string): Answer {
  return {
    status: 503,
    body: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason: "ServiceUnavailable",
      code: 503,
    },
  };
}

function resourceList(groupVersion: string, names: [string, boolean][]): Answer {
  return {
    body: {
      kind: "APIResourceList",
      apiVersion: "v1",
      groupVersion,
      resources: names.map(([name, namespaced]) => ({
        name,
        singularName: name.replace(/s$/, ""),
        namespaced,
        kind: name[0]!.toUpperCase() + name.slice(1, -1),
        verbs: ["get", "list"],
      })),
    },
  };
}

const LEGACY_ROUTES: Record<string, Answer> = {
  "/api": { body: { kind: "APIVersions", versions: ["v1"] } },
  "/apis": {
    body: {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: [
        {
          name: "apps",
          versions: [{ groupVersion: "apps/v1", version: "v1" }],
          preferredVersion: { groupVersion: "apps/v1", version: "v1" },
        },
        {
          name: "example.com",
          versions: [
            { groupVersion: "example.com/v2", version: "v2" },
            { groupVersion: "example.com/v1", version: "v1" },
          ],
          preferredVersion: { groupVersion: "example.com/v2", version: "v2" },
        },
      ],
    },
  },
  "/api/v1": resourceList("v1", [
    ["pods", true],
    ["nodes", false],
  ]),
  "/apis/apps/v1": resourceList("apps/v1", [["deployments", true]]),
  "/apis/example.com/v2": resourceList("example.com/v2", [["widgets", true]]),
  "/apis/example.com/v1": resourceList("example.com/v1", [
    ["widgets", true],
    ["gadgets", false],
  ]),
};

function aggregatedItem(group: string, versions: string[], resources: string[]): unknown {
  return {
    metadata: group === "" ? {} : { name: group },
    versions: versions.map((version) => ({
      version,
      freshness: "Current",
      resources: resources.map((r) => ({
        resource: r,
        singularResource: r.slice(0, -1),
        scope: "Namespaced",
        responseKind: { group: "", version: "", kind: r[0]!.toUpperCase() + r.slice(1, -1) },
        verbs: ["get"],
      })),
    })),
  };
}

let transport: FakeTransport | undefined;

function discovery(routes: Record<string, Route | Answer>, aggregated = true): DiscoveryClient {
  transport = new FakeTransport(routes);
  const rest = new RESTClient(CONFIG, { transport, logger: noopLogger, clock: new FakeClock() });
  return new DiscoveryClient(rest, { aggregated, concurrency: 2 });
}

afterEach(async () => {
  await transport?.close();
  transport = undefined;
});

describe("DiscoveryClient with an aggregated server", () => {
  const routes: Record<string, Answer> = {
    "/api": {
      contentType: V2,
      body: { kind: "APIGroupDiscoveryList", items: [aggregatedItem("", ["v1"], ["pods"])] },
    },
    "/apis": {
      contentType: "application/json;as=APIGroupDiscoveryList;v=v2beta1;g=apidiscovery.k8s.io",
      body: {
        kind: "APIGroupDiscoveryList",
        items: [aggregatedItem("apps", ["v1"], ["deployments"])],
      },
    },
  };

  it("sends exactly /api and /apis with the aggregated Accept and ?timeout=32s", async () => {
    const client = discovery(routes);
    const { groups, resources } = await client.serverGroupsAndResources();
    expect(transport!.paths()).toEqual(["/api", "/apis"]);
    for (const req of transport!.requests) {
      expect(req.headers["accept"]).toBe(AGGREGATED_DISCOVERY_ACCEPT);
      expect(req.url.search).toBe("?timeout=32s");
    }
    expect(groups.map((g) => g.name)).toEqual(["", "apps"]);
    expect(resources.map((l) => `${l.groupVersion}:${l.resources.map((r) => r.name)}`)).toEqual([
      "v1:pods",
      "apps/v1:deployments",
    ]);
    expect(resources[1]?.resources[0]).toMatchObject({ group: "apps", kind: "Deployment" });
  });

  it("reports stale group versions as a GroupDiscoveryFailedError with what loaded", async () => {
    const client = discovery({
      ...routes,
      "/apis": {
        contentType: V2,
        body: {
          items: [
            aggregatedItem("apps", ["v1"], ["deployments"]),
            {
              metadata: { name: "metrics.k8s.io" },
              versions: [{ version: "v1beta1", freshness: "Stale" }],
            },
          ],
        },
      },
    });
    const err = await client.serverGroupsAndResources().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GroupDiscoveryFailedError);
    const failed = err as GroupDiscoveryFailedError;
    expect([...failed.failures.keys()]).toEqual(["metrics.k8s.io/v1beta1"]);
    expect(failed.failures.get("metrics.k8s.io/v1beta1")).toBeInstanceOf(StaleGroupVersionError);
    expect(failed.message).toBe(
      "unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: stale GroupVersion discovery: metrics.k8s.io/v1beta1",
    );
    expect(failed.resources.map((l) => l.groupVersion)).toEqual(["v1", "apps/v1"]);
    // No per-group-version request for the stale version.
    expect(transport!.paths()).toEqual(["/api", "/apis"]);
  });

  it("fetches only what the answers did not bring when /api is legacy and /apis aggregated", async () => {
    const client = discovery({
      ...routes,
      "/api": LEGACY_ROUTES["/api"]!,
      "/api/v1": LEGACY_ROUTES["/api/v1"]!,
    });
    const { resources } = await client.serverGroupsAndResources();
    expect(transport!.paths()).toEqual(["/api", "/apis", "/api/v1"]);
    expect(resources.map((l) => l.groupVersion)).toEqual(["v1", "apps/v1"]);
  });
});

describe("DiscoveryClient with a legacy server", () => {
  it("falls back to every group version when the Content-Type is plain JSON", async () => {
    const client = discovery(LEGACY_ROUTES);
    const { groups, resources } = await client.serverGroupsAndResources();
    expect(transport!.paths().slice(0, 2)).toEqual(["/api", "/apis"]);
    expect(transport!.paths().slice(2).sort()).toEqual([
      "/api/v1",
      "/apis/apps/v1",
      "/apis/example.com/v1",
      "/apis/example.com/v2",
    ]);
    // Per-group-version requests use the default JSON Accept, as kubectl.
    expect(transport!.requests[2]?.headers["accept"]).toBe("application/json, */*");
    expect(transport!.maxInFlight).toBeLessThanOrEqual(2);
    expect(groups[0]).toEqual({
      name: "",
      versions: [{ groupVersion: "v1", version: "v1" }],
      preferredVersion: { groupVersion: "v1", version: "v1" },
    });
    expect(resources.map((l) => l.groupVersion)).toEqual([
      "v1",
      "apps/v1",
      "example.com/v2",
      "example.com/v1",
    ]);
  });

  it("sends a plain JSON Accept when aggregated discovery is turned off", async () => {
    const client = discovery(LEGACY_ROUTES, false);
    const groups = await client.serverGroups();
    expect(transport!.requests.map((r) => r.headers["accept"])).toEqual([
      "application/json",
      "application/json",
    ]);
    expect(groups.groups.map((g) => g.name)).toEqual(["", "apps", "example.com"]);
  });

  it("treats a 404 on /api as no core group, but a 404 on /apis as an error", async () => {
    const noCore = discovery({ ...LEGACY_ROUTES, "/api": { status: 404, body: notFoundStatus() } });
    const groups = await noCore.serverGroups();
    expect(groups.groups.map((g) => g.name)).toEqual(["apps", "example.com"]);

    const noApis = discovery({
      ...LEGACY_ROUTES,
      "/apis": { status: 404, body: notFoundStatus() },
    });
    await expect(noApis.serverGroups()).rejects.toBeInstanceOf(StatusError);
  });

  it("collects per-group-version failures and keeps the lists that loaded", async () => {
    const client = discovery({
      ...LEGACY_ROUTES,
      "/apis/example.com/v1": unavailable("the server is currently unable to handle the request"),
    });
    const err = await client.serverGroupsAndResources().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GroupDiscoveryFailedError);
    const failed = err as GroupDiscoveryFailedError;
    expect([...failed.failures.keys()]).toEqual(["example.com/v1"]);
    expect(failed.failures.get("example.com/v1")).toBeInstanceOf(StatusError);
    expect(failed.resources.map((l) => l.groupVersion)).toEqual([
      "v1",
      "apps/v1",
      "example.com/v2",
    ]);
    expect(failed.groups.map((g) => g.name)).toEqual(["", "apps", "example.com"]);
    expect(failed.message).toContain("example.com/v1: the server is currently unable");
  });

  it("picks each resource from its group's preferred version, else the first that serves it", async () => {
    const client = discovery(LEGACY_ROUTES);
    const preferred = await client.serverPreferredResources();
    expect(preferred.map((l) => `${l.groupVersion}:${l.resources.map((r) => r.name)}`)).toEqual([
      "v1:pods,nodes",
      "apps/v1:deployments",
      "example.com/v2:widgets",
      "example.com/v1:gadgets",
    ]);
    const namespaced = await client.serverPreferredNamespacedResources();
    expect(namespaced.map((l) => `${l.groupVersion}:${l.resources.map((r) => r.name)}`)).toEqual([
      "v1:pods",
      "apps/v1:deployments",
      "example.com/v2:widgets",
    ]);
  });

  it("honours a non-first preferredVersion", async () => {
    const apis = LEGACY_ROUTES["/apis"]!.body as { groups: { preferredVersion: unknown }[] };
    const client = discovery({
      ...LEGACY_ROUTES,
      "/apis": {
        body: {
          ...apis,
          groups: [
            {
              ...apis.groups[1],
              preferredVersion: { groupVersion: "example.com/v1", version: "v1" },
            },
          ],
        },
      },
    });
    const preferred = await client.serverPreferredResources();
    expect(preferred.map((l) => `${l.groupVersion}:${l.resources.map((r) => r.name)}`)).toEqual([
      "v1:pods,nodes",
      "example.com/v1:widgets,gadgets",
    ]);
  });
});

describe("DiscoveryClient single requests", () => {
  it("reads /version with missing fields as empty strings", async () => {
    const client = discovery({ "/version": { body: { major: "1", minor: "32" } } });
    const version = await client.serverVersion();
    expect(version).toMatchObject({ major: "1", minor: "32", gitVersion: "", platform: "" });
  });

  it("fetches one group version; v1 tolerates 404 and 403, other versions do not", async () => {
    const client = discovery(LEGACY_ROUTES);
    const apps = await client.serverResourcesForGroupVersion("apps/v1");
    expect(apps.resources.map((r) => r.name)).toEqual(["deployments"]);
    expect(transport!.paths()).toEqual(["/apis/apps/v1"]);

    const empty = discovery({});
    expect(await empty.serverResourcesForGroupVersion("v1")).toEqual({
      groupVersion: "v1",
      group: "",
      version: "v1",
      resources: [],
    });
    await expect(empty.serverResourcesForGroupVersion("apps/v1")).rejects.toBeInstanceOf(
      StatusError,
    );
    await expect(empty.serverResourcesForGroupVersion("a/b/c")).rejects.toThrow(
      "unexpected GroupVersion string",
    );
  });

  it("rejects with the signal's reason, also while group versions are being fetched", async () => {
    const controller = new AbortController();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const client = discovery({
      ...LEGACY_ROUTES,
      "/apis/apps/v1": async (req) => {
        controller.abort(new Error("stop"));
        await gate;
        req.signal?.throwIfAborted();
        return LEGACY_ROUTES["/apis/apps/v1"]!;
      },
    });
    const pending = client.serverGroupsAndResources(controller.signal);
    release();
    await expect(pending).rejects.toThrow("stop");

    const aborted = AbortSignal.abort(new Error("early"));
    await expect(client.serverGroups(aborted)).rejects.toThrow("early");
  });

  it("validates its options", () => {
    expect(() => new DiscoveryClient(CONFIG, { concurrency: 0 })).toThrow(RangeError);
    expect(() => new DiscoveryClient(CONFIG, { timeoutMs: 0 })).toThrow(RangeError);
  });

  it("uses the configured timeout for ?timeout=", async () => {
    transport = new FakeTransport({ "/version": { body: {} } });
    const rest = new RESTClient(CONFIG, { transport, logger: noopLogger });
    await new DiscoveryClient(rest, { timeoutMs: 5_000 }).serverVersion();
    expect(transport.requests[0]?.url.search).toBe("?timeout=5s");
  });
});
