import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import {
  noopLogger,
  TokenBucket,
  type CredentialSource,
  type RestConfig,
  UnsupportedProxyError,
  defaultRateLimiter,
  RESTClient,
} from "kubekit";

const anonymous: CredentialSource = {
  kind: "none",
  get: () => Promise.resolve({ headers: {} }),
  invalidate: () => undefined,
};

function config(overrides: Partial<RestConfig> = {}): RestConfig {
  return {
    host: "https://10.0.0.1:6443",
    tls: {},
    credentials: anonymous,
    qps: 5,
    burst: 10,
    ...overrides,
  };
}

function client(overrides: Partial<RestConfig> = {}): RESTClient {
  return new RESTClient(config(overrides), { logger: noopLogger, clock: new FakeClock(0) });
}

describe("RequestBuilder paths", () => {
  it("builds core and group paths with namespace, resource, name and subresource", () => {
    const c = client();
    expect(
      c
        .get()
        .version("v1")
        .namespace("default")
        .resource("pods")
        .name("web-0")
        .subresource("status")
        .url().href,
    ).toBe("https://10.0.0.1:6443/api/v1/namespaces/default/pods/web-0/status");
    expect(c.get().group("apps").version("v1").resource("deployments").url().pathname).toBe(
      "/apis/apps/v1/deployments",
    );
    expect(c.get().version("v1").resource("namespaces").name("kube-system").url().pathname).toBe(
      "/api/v1/namespaces/kube-system",
    );
    expect(c.get().version("v1").namespace("").resource("pods").url().pathname).toBe(
      "/api/v1/pods",
    );
  });

  it("prefixes the host's path and supports absolute paths", () => {
    const c = client({ host: "https://proxy.example/k8s/cluster-a/" });
    expect(c.get().version("v1").resource("pods").url().href).toBe(
      "https://proxy.example/k8s/cluster-a/api/v1/pods",
    );
    expect(c.get().absPath("/version").url().pathname).toBe("/k8s/cluster-a/version");
    expect(
      client().get().absPath("/apis", "apps", "v1").resource("deployments").url().pathname,
    ).toBe("/apis/apps/v1/deployments");
    expect(client().get().absPath("/apis/").url().pathname).toBe("/apis/");
  });

  it("lower-cases the resource and keeps ':' in names unescaped (as Go)", () => {
    expect(client().get().version("v1").resource("Nodes").name("system:node").url().pathname).toBe(
      "/api/v1/nodes/system:node",
    );
  });

  it("rejects invalid path segments and empty names", () => {
    const c = client();
    expect(() => c.get().name("")).toThrow(TypeError);
    expect(() => c.get().name("a/b")).toThrow(TypeError);
    expect(() => c.get().namespace("..")).toThrow(TypeError);
    expect(() => c.get().resource("po%64s")).toThrow(TypeError);
    expect(() => c.get().subresource(".")).toThrow(TypeError);
  });
});

describe("RequestBuilder query parameters", () => {
  it("encodes ListOptions sorted by name, Go-escaped, omitting empty values", () => {
    const url = client()
      .get()
      .version("v1")
      .resource("pods")
      .listOptions({
        labelSelector: "app=web,tier!=db",
        fieldSelector: "spec.nodeName=",
        resourceVersion: "0",
        resourceVersionMatch: "NotOlderThan",
        limit: 500,
        continue: "",
        timeoutSeconds: 0,
        allowWatchBookmarks: false,
        sendInitialEvents: false,
      })
      .url();
    expect(url.search).toBe(
      "?fieldSelector=spec.nodeName%3D&labelSelector=app%3Dweb%2Ctier%21%3Ddb&limit=500&resourceVersion=0&resourceVersionMatch=NotOlderThan&sendInitialEvents=false",
    );
  });

  it("encodes write options, patch force and repeated params; spaces become '+'", () => {
    const url = client()
      .patch("application/apply-patch+yaml")
      .version("v1")
      .resource("configmaps")
      .patchOptions({
        fieldManager: "my manager",
        force: true,
        dryRun: ["All"],
        fieldValidation: "Strict",
      })
      .param("x", "a")
      .param("x", 2)
      .url();
    expect(url.search).toBe(
      "?dryRun=All&fieldManager=my+manager&fieldValidation=Strict&force=true&x=a&x=2",
    );
  });

  it("sends timeout(ms) to the server as a Go duration", () => {
    expect(client().get().absPath("/api").timeout(32_000).url().search).toBe("?timeout=32s");
    expect(() => client().get().timeout(0)).toThrow(RangeError);
  });

  it("rejects negative maxRetries", () => {
    expect(() => client().get().maxRetries(-1)).toThrow(RangeError);
    expect(() => new RESTClient(config(), { maxRetries: 1.5, logger: noopLogger })).toThrow(
      RangeError,
    );
  });
});

describe("RESTClient construction", () => {
  it("derives client-go's default rate limiter from the config", () => {
    const clock = new FakeClock(0);
    const limiter = defaultRateLimiter(config({ qps: 0, burst: 0 }), clock);
    expect(limiter?.qps).toBe(5);
    expect(limiter?.burst).toBe(10);
    expect(defaultRateLimiter(config({ qps: 20, burst: 30 }), clock)?.burst).toBe(30);
    expect(defaultRateLimiter(config({ qps: -1, burst: 10 }), clock)).toBeUndefined();
    expect(client({ qps: -1 }).rateLimiter).toBeUndefined();
    const shared = new TokenBucket(1, 1, clock);
    expect(new RESTClient(config(), { rateLimiter: shared, logger: noopLogger }).rateLimiter).toBe(
      shared,
    );
    expect(
      new RESTClient(config(), { rateLimiter: new TokenBucket(-1, 0), logger: noopLogger })
        .rateLimiter,
    ).toBeUndefined();
  });

  it("rejects SOCKS proxies with a typed error that hides credentials", () => {
    let error: unknown;
    try {
      client({ proxyUrl: "socks5://user:secret@proxy.example:1080" });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UnsupportedProxyError);
    expect((error as Error).message).toContain("socks5://proxy.example:1080");
    expect((error as Error).message).not.toContain("secret");
    expect(() => client({ proxyUrl: "http://proxy.example:3128" })).not.toThrow();
  });

  it("rejects a host that is not an absolute URL", () => {
    expect(() => client({ host: "10.0.0.1:6443/x y" })).toThrow(TypeError);
  });

  it("shares one transport per config object", () => {
    const shared = config();
    expect(new RESTClient(shared, { logger: noopLogger }).transport).toBe(
      new RESTClient(shared, { logger: noopLogger }).transport,
    );
    expect(new RESTClient(config(), { logger: noopLogger }).transport).not.toBe(
      new RESTClient(shared, { logger: noopLogger }).transport,
    );
  });
});
