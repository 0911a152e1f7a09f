import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { FakeClock } from "kubekit/testing";
import { createCertificateAuthority } from "@kubekit/apiserver";
import {
  callWebhook,
  WebhookCallError,
  type WebhookClientConfig,
} from "../../../../packages/apiserver/src/admission/webhook-client/index.js";
import { ResourceRegistry } from "../../../../packages/apiserver/src/registry/registry.js";
import type { ServerContext } from "../../../../packages/apiserver/src/server/server-context.js";
import { Storage } from "../../../../packages/apiserver/src/storage/storage.js";

/**
 * The webhook client against a local HTTPS server with a test CA: url and Service targets
 * (a Service without selector plus an EndpointSlice at 127.0.0.1), and every failure class in
 * kube's words.
 */

const NS = "webhooks";
const SERVICE = "hook";

function context(clock = new FakeClock()): ServerContext {
  return {
    storage: new Storage(100),
    registry: new ResourceRegistry(),
    clock,
  } as unknown as ServerContext;
}

/** A Service without selector and its EndpointSlice at 127.0.0.1:`port`. */
function pointService(ctx: ServerContext, name: string, port: number, ready = true): void {
  ctx.storage.commit("/services", `${NS}/${name}`, {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: NS },
    spec: { type: "ClusterIP", ports: [{ port: 443, targetPort: port, protocol: "TCP" }] },
  });
  ctx.storage.commit("discovery.k8s.io/endpointslices", `${NS}/${name}-1`, {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: `${name}-1`, namespace: NS, labels: { "kubernetes.io/service-name": name } },
    addressType: "IPv4",
    endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready } }],
    ports: [{ port, protocol: "TCP" }],
  });
}

async function failure(promise: Promise<unknown>): Promise<WebhookCallError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookCallError);
  return err as WebhookCallError;
}

describe("webhook client", () => {
  let server: Server;
  let port = 0;
  let caBundle = "";
  const seen: { url: string; host: string; body: string }[] = [];
  const hanging = new Set<() => void>();

  beforeAll(async () => {
    const ca = await createCertificateAuthority();
    const serving = await ca.issueServing({
      dnsNames: [`${SERVICE}.${NS}.svc`, "localhost"],
      ipAddresses: ["127.0.0.1"],
    });
    caBundle = Buffer.from(ca.ca.certPem).toString("base64");
    server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        seen.push({ url: req.url ?? "", host: req.headers.host ?? "", body });
        const path = (req.url ?? "").split("?")[0];
        if (path === "/hang") {
          hanging.add(() => res.destroy());
          return;
        }
        if (path === "/boom") {
          res.writeHead(500, { "Content-Type": "text/plain" }).end("boom\n");
        } else if (path === "/garbage") {
          res.writeHead(200, { "Content-Type": "application/json" }).end("garbage");
        } else if (path === "/big") {
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ pad: "x".repeat(64 * 1024) }));
        } else {
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(JSON.stringify({ echoed: JSON.parse(body) as JsonObject }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const close of hanging) close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const url = (path: string): WebhookClientConfig => ({
    url: `https://127.0.0.1:${port}${path}`,
    caBundle,
  });

  it("POSTs JSON to a url with ?timeout and returns the parsed answer", async () => {
    const answer = await callWebhook(
      context(),
      url("/ok/"),
      { hello: "world" },
      { timeoutMs: 10_000 },
    );
    expect(answer).toEqual({ echoed: { hello: "world" } });
    expect(seen.at(-1)?.url).toBe("/ok?timeout=10s");
  });

  it("reaches a Service through its EndpointSlice, verifying <service>.<namespace>.svc", async () => {
    const ctx = context();
    pointService(ctx, SERVICE, port);
    const config = { service: { namespace: NS, name: SERVICE, path: "/convert" }, caBundle };
    const answer = await callWebhook(ctx, config, { n: 1 }, { timeoutMs: 30_000 });
    expect(answer).toEqual({ echoed: { n: 1 } });
    expect(seen.at(-1)).toMatchObject({
      url: "/convert?timeout=30s",
      host: "hook.webhooks.svc:443",
    });
  });

  it("names an unresolvable Service as kube does", async () => {
    const ctx = context();
    const missing = await failure(
      callWebhook(
        ctx,
        { service: { namespace: NS, name: SERVICE }, caBundle },
        {},
        { timeoutMs: 10_000 },
      ),
    );
    expect(missing.failure).toBe("resolve");
    expect(missing.message).toBe(
      `Post "https://hook.webhooks.svc:443/?timeout=10s": service "hook" not found`,
    );
    pointService(ctx, SERVICE, port, false);
    const unready = await failure(
      callWebhook(
        ctx,
        { service: { namespace: NS, name: SERVICE }, caBundle },
        {},
        { timeoutMs: 10_000 },
      ),
    );
    expect(unready.message).toBe(
      `Post "https://hook.webhooks.svc:443/?timeout=10s": no endpoints available for service "hook"`,
    );
    const wrongPort = await failure(
      callWebhook(
        ctx,
        { service: { namespace: NS, name: SERVICE, port: 8443 } },
        {},
        { timeoutMs: 1_000 },
      ),
    );
    expect(wrongPort.message).toContain(`no service port 8443 found for service "hook"`);
  });

  it("classifies a refused connection", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await failure(
      callWebhook(
        context(),
        { url: `https://127.0.0.1:${closedPort}/x`, caBundle },
        {},
        { timeoutMs: 10_000 },
      ),
    );
    expect(err.failure).toBe("refused");
    expect(err.message).toBe(
      `Post "https://127.0.0.1:${closedPort}/x?timeout=10s": dial tcp 127.0.0.1:${closedPort}: connect: connection refused`,
    );
  });

  it("trusts only the caBundle and checks the server name", async () => {
    const untrusted = await failure(
      callWebhook(context(), { url: `https://127.0.0.1:${port}/ok` }, {}, { timeoutMs: 10_000 }),
    );
    expect(untrusted.failure).toBe("tls");
    expect(untrusted.message).toContain(
      "tls: failed to verify certificate: x509: certificate signed by unknown authority",
    );
    const ctx = context();
    pointService(ctx, "other", port);
    const wrongName = await failure(
      callWebhook(
        ctx,
        { service: { namespace: NS, name: "other" }, caBundle },
        {},
        { timeoutMs: 10_000 },
      ),
    );
    expect(wrongName.failure).toBe("tls");
    expect(wrongName.message).toContain(
      "certificate is valid for hook.webhooks.svc, localhost, 127.0.0.1, not other.webhooks.svc",
    );
  });

  it("refuses a non-success status, a malformed answer and an oversized one", async () => {
    const status = await failure(callWebhook(context(), url("/boom"), {}, { timeoutMs: 10_000 }));
    expect(status.failure).toBe("status");
    expect(status.statusCode).toBe(500);
    expect(status.message).toBe(
      `an error on the server ("boom") has prevented the request from succeeding`,
    );
    const garbage = await failure(
      callWebhook(context(), url("/garbage"), {}, { timeoutMs: 10_000 }),
    );
    expect(garbage.failure).toBe("malformed");
    expect(garbage.message).toContain("couldn't get version/kind; json parse error");
    const big = await failure(
      callWebhook(context(), url("/big"), {}, { timeoutMs: 10_000, maxResponseBytes: 1024 }),
    );
    expect(big.failure).toBe("malformed");
    expect(big.message).toContain("larger than 1024 bytes");
  });

  it("aborts at the deadline on the server's clock", async () => {
    const clock = new FakeClock();
    const before = seen.length;
    const call = failure(callWebhook(context(clock), url("/hang"), {}, { timeoutMs: 5_000 }));
    await expect.poll(() => seen.length).toBeGreaterThan(before);
    clock.advance(5_000);
    const err = await call;
    expect(err.failure).toBe("timeout");
    expect(err.message).toBe(
      `Post "https://127.0.0.1:${port}/hang?timeout=5s": context deadline exceeded`,
    );
  });
});
