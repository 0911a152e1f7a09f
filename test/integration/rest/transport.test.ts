import { once } from "node:events";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import {
  noopLogger,
  type CredentialSource,
  type RequestCredentials,
  type RestConfig,
  isConflict,
  type StatusError,
  RequestTimeoutError,
  ResponseDecodeError,
  ResponseTooLargeError,
  TransportError,
  RESTClient,
  type TransportRequest,
  type TransportResponse,
  Transport,
} from "kubekit";
import { WatchFrameTooLargeError } from "../../../packages/kubekit/src/rest/watch-errors.js";
import { ApiServer } from "@kubekit/apiserver";
import { createCertificateAuthority } from "../../../packages/apiserver/src/auth/certificates.js";
import { startConnectProxy } from "../../support/connect-proxy.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A plain HTTP server on 127.0.0.1 that tracks its sockets and closes them after the test. */
async function startServer(handler: Handler): Promise<{ server: Server; url: string }> {
  const server = createHttpServer(handler);
  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const anonymous: CredentialSource = {
  kind: "none",
  get: () => Promise.resolve({ headers: {} }),
  invalidate: () => undefined,
};

function httpConfig(url: string, overrides: Partial<RestConfig> = {}): RestConfig {
  return { host: url, tls: {}, credentials: anonymous, qps: -1, burst: 0, ...overrides };
}

/** The values of a request header as sent (repeated headers separately). */
function rawHeaderValues(req: IncomingMessage, name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === name) out.push(req.rawHeaders[i + 1] ?? "");
  }
  return out;
}

describe("transport headers", () => {
  it("sends the user agent, impersonation, gzip acceptance, credentials and request headers", async () => {
    let seen: IncomingMessage | undefined;
    const { url } = await startServer((req, res) => {
      seen = req;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    const credentials: CredentialSource = {
      kind: "token",
      get: () => Promise.resolve({ headers: { Authorization: "Bearer secret" } }),
      invalidate: () => undefined,
    };
    const client = new RESTClient(
      httpConfig(url, {
        credentials,
        impersonate: { user: "jane", uid: "42", groups: ["a", "b"], extra: { scopes: ["x", "y"] } },
      }),
      { logger: noopLogger },
    );
    await client.get().absPath("/api").header("X-Trace", "1").do();
    expect(seen?.headers["user-agent"]).toMatch(
      /^kubekit\/\d+\.\d+\.\d+\S* \([a-z0-9]+\/[a-z0-9]+\)$/,
    );
    expect(seen?.headers["accept"]).toBe("application/json, */*");
    expect(seen?.headers["accept-encoding"]).toBe("gzip");
    expect(seen?.headers["authorization"]).toBe("Bearer secret");
    expect(seen?.headers["x-trace"]).toBe("1");
    expect(seen?.headers["impersonate-user"]).toBe("jane");
    expect(seen?.headers["impersonate-uid"]).toBe("42");
    expect(seen && rawHeaderValues(seen, "impersonate-group")).toEqual(["a", "b"]);
    expect(seen && rawHeaderValues(seen, "impersonate-extra-scopes")).toEqual(["x", "y"]);
  });

  it("honours config.userAgent and disableCompression", async () => {
    let seen: IncomingMessage | undefined;
    const { url } = await startServer((req, res) => {
      seen = req;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    const client = new RESTClient(
      httpConfig(url, { userAgent: "my-controller/1.0", disableCompression: true }),
      {
        logger: noopLogger,
      },
    );
    await client.get().absPath("/api").do();
    expect(seen?.headers["user-agent"]).toBe("my-controller/1.0");
    expect(seen?.headers["accept-encoding"]).toBeUndefined();
  });

  it("decodes gzip-compressed bodies, for do() and for watches", async () => {
    const frames = [
      JSON.stringify({ type: "ADDED", object: { kind: "ConfigMap", metadata: { name: "z" } } }),
      "",
    ].join("\n");
    const { url } = await startServer((req, res) => {
      const body = req.url?.includes("watch=true")
        ? frames
        : JSON.stringify({ kind: "List", items: [1, 2] });
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(body));
    });
    const client = new RESTClient(httpConfig(url), { logger: noopLogger });
    const res = await client.get().version("v1").resource("configmaps").do<{ items: number[] }>();
    expect(res.body.items).toEqual([1, 2]);
    const events: string[] = [];
    for await (const ev of client.get().version("v1").resource("configmaps").watch())
      events.push(ev.type);
    expect(events).toEqual(["ADDED"]);
  });
});

describe("response bodies", () => {
  it("decodes JSON, gives undefined for an empty body, and rejects other 2xx bodies", async () => {
    const { url } = await startServer((req, res) => {
      if (req.url === "/empty") res.writeHead(204).end();
      else if (req.url === "/text") res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      else if (req.url === "/failure") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","message":"late"}',
        );
      } else res.writeHead(201, { "content-type": "application/json" }).end('{"a":1}');
    });
    const client = new RESTClient(httpConfig(url), { logger: noopLogger });
    const created = await client.post().absPath("/json").body("{}").do<{ a: number }>();
    expect(created).toMatchObject({ statusCode: 201, body: { a: 1 }, warnings: [] });
    expect((await client.delete().absPath("/empty").do()).body).toBeUndefined();
    const text = await client
      .get()
      .absPath("/text")
      .do()
      .catch((e: unknown) => e);
    expect(text).toBeInstanceOf(ResponseDecodeError);
    expect(new TextDecoder().decode((await client.get().absPath("/text").doRaw()).body)).toBe("ok");
    const failure = await client
      .get()
      .absPath("/failure")
      .do()
      .catch((e: unknown) => e);
    expect(isConflict(failure)).toBe(true);
    expect((failure as StatusError).code).toBe(200);
  });
});

describe("transport failures", () => {
  it("retries a GET once after a connection reset, waiting 1 s on the clock", async () => {
    let requests = 0;
    const { url } = await startServer((req, res) => {
      requests++;
      if (requests === 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
    const clock = new FakeClock();
    const client = new RESTClient(httpConfig(url), { clock, logger: noopLogger });
    const pending = client.get().absPath("/api").do<{ ok: boolean }>();
    await clock.waitForTimers(1);
    expect(clock.nextTimerAt()).toBe(clock.now() + 1000);
    clock.advance(1000);
    expect((await pending).body).toEqual({ ok: true });
    expect(requests).toBe(2);
  });

  it("does not retry a POST after a connection reset", async () => {
    let requests = 0;
    const { url } = await startServer((req) => {
      requests++;
      req.socket.destroy();
    });
    const client = new RESTClient(httpConfig(url), { clock: new FakeClock(), logger: noopLogger });
    const err = await client
      .post()
      .absPath("/api")
      .body({})
      .do()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).method).toBe("POST");
    expect(requests).toBe(1);
  });

  it("mentions the previous attempt when the retry fails differently", async () => {
    let requests = 0;
    const { server, url } = await startServer((req) => {
      requests++;
      req.socket.destroy();
      server.close();
    });
    const clock = new FakeClock();
    const client = new RESTClient(httpConfig(url), { clock, logger: noopLogger });
    const pending = client
      .get()
      .absPath("/api")
      .do()
      .catch((e: unknown) => e);
    await clock.waitForTimers(1);
    clock.advance(1000);
    const err = await pending;
    expect(requests).toBe(1);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).code).toBe("ECONNREFUSED");
    expect((err as Error).message).toContain("error from a previous attempt");
    expect((err as TransportError).previousAttemptError).toBeInstanceOf(TransportError);
  });

  it("fails with RequestTimeoutError when the server does not answer in time", async () => {
    let query = "";
    const { url } = await startServer((req) => {
      query = req.url ?? "";
    });
    const client = new RESTClient(httpConfig(url), { logger: noopLogger });
    const err = await client
      .get()
      .absPath("/api")
      .timeout(200)
      .do()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect((err as RequestTimeoutError).timeoutMs).toBe(200);
    expect(query).toBe("/api?timeout=200ms");
  });

  it("rejects with the signal's reason when aborted", async () => {
    const { url } = await startServer(() => undefined);
    const client = new RESTClient(httpConfig(url), { logger: noopLogger });
    const controller = new AbortController();
    const pending = client.get().absPath("/api").signal(controller.signal).do();
    const reason = new Error("user gave up");
    setTimeout(() => controller.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });
});

describe("stale pooled connections", () => {
  it("sends a PATCH right after a server restart on a fresh connection (5 restarts)", async () => {
    const server = await ApiServer.start();
    cleanups.push(() => server.stop());
    const config: RestConfig = { ...server.kubeConfig().restConfig(), qps: -1, burst: 0 };
    const client = new RESTClient(config, { logger: noopLogger });
    cleanups.push(() => client.transport.close());
    const configMap = () => client.get().version("v1").namespace("default").resource("configmaps");
    const patch = (data: Record<string, string>) =>
      client
        .patch("application/merge-patch+json")
        .version("v1")
        .namespace("default")
        .resource("configmaps")
        .name("stale")
        .body({ data })
        .do();
    await client
      .post()
      .version("v1")
      .namespace("default")
      .resource("configmaps")
      .body({ metadata: { name: "stale" } })
      .do();
    for (let i = 0; i < 5; i++) {
      await patch({ before: String(i) });
      await server.faults.restart();
      await patch({ after: String(i) });
    }
    const { body } = await configMap().name("stale").do<{ data: Record<string, string> }>();
    expect(body.data).toEqual({ before: "4", after: "4" });
  });

  it("sends a POST again, once, when its connection was reset before it was written", async () => {
    const authority = await createCertificateAuthority();
    const serving = await authority.issueServing({ dnsNames: [], ipAddresses: ["127.0.0.1"] });
    let connections = 0;
    let posts = 0;
    const server = createHttpsServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      posts++;
      req.resume();
      req.on("end", () => res.writeHead(201, { "content-type": "application/json" }).end("{}"));
    });
    // The first connection is reset during the TLS handshake: undici never dispatches on it.
    server.prependListener("connection", (socket: Socket) => {
      if (++connections === 1) socket.resetAndDestroy();
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    cleanups.push(() => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const client = new RESTClient(
      httpConfig(`https://127.0.0.1:${(server.address() as AddressInfo).port}`, {
        tls: { caPem: authority.ca.certPem },
      }),
      { clock: new FakeClock(), logger: noopLogger },
    );
    cleanups.push(() => client.transport.close());
    const { statusCode } = await client.post().absPath("/api").body({}).do();
    expect(statusCode).toBe(201);
    expect(connections).toBe(2);
    expect(posts).toBe(1);
  });

  it("does not send a POST again that reached the server on a reused connection", async () => {
    const sockets: Socket[] = [];
    let posts = 0;
    const { url } = await startServer((req, res) => {
      sockets.push(req.socket);
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      }
      posts++;
      req.resume();
      req.on("end", () => req.socket.destroy());
    });
    const client = new RESTClient(httpConfig(url), { clock: new FakeClock(), logger: noopLogger });
    cleanups.push(() => client.transport.close());
    await client.get().absPath("/api").do();
    const err = await client
      .post()
      .absPath("/api")
      .body({})
      .do()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).code).toBe("UND_ERR_SOCKET");
    expect(posts).toBe(1);
    expect(sockets[1]).toBe(sockets[0]);
  });
});

describe("stream connections", () => {
  /** A server that opens a watch, sends one event and keeps the response open; records closes. */
  async function watchServer(): Promise<{ url: string; closed: Promise<void> }> {
    let markClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (markClosed = resolve));
    const { url } = await startServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write(
        `${JSON.stringify({ type: "ADDED", object: { kind: "Pod", metadata: { name: "p" } } })}\n`,
      );
      res.on("close", markClosed);
    });
    return { url, closed };
  }

  it("closes the connection when the consumer breaks out of the loop", async () => {
    const { url, closed } = await watchServer();
    const client = new RESTClient(httpConfig(url), { logger: noopLogger });
    for await (const ev of client.get().version("v1").resource("pods").watch()) {
      expect(ev.type).toBe("ADDED");
      break;
    }
    await closed;
  });

  it("closes the connection on close() and on abort", async () => {
    const first = await watchServer();
    const client = new RESTClient(httpConfig(first.url), { logger: noopLogger });
    const watch = client.get().version("v1").resource("pods").watch();
    const it = watch[Symbol.asyncIterator]();
    await it.next();
    const pending = it.next();
    watch.close();
    expect(await pending).toEqual({ done: true, value: undefined });
    await first.closed;

    const second = await watchServer();
    const controller = new AbortController();
    const aborted = new RESTClient(httpConfig(second.url), { logger: noopLogger })
      .get()
      .version("v1")
      .resource("pods")
      .signal(controller.signal)
      .watch();
    const it2 = aborted[Symbol.asyncIterator]();
    await it2.next();
    const pending2 = it2.next();
    controller.abort(new Error("stop"));
    await expect(pending2).rejects.toThrow("stop");
    await second.closed;
  });
});

describe("transport errors of streams", () => {
  it("does not retry stream() after a connection reset (client-go's Request.Stream)", async () => {
    let requests = 0;
    const { url } = await startServer((req, res) => {
      if (++requests === 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { "content-type": "text/plain" }).end("line\n");
    });
    const clock = new FakeClock();
    const client = new RESTClient(httpConfig(url), { clock, logger: noopLogger });
    const lines = client.get().absPath("/log").stream()[Symbol.asyncIterator]();
    const outcome = await Promise.race([
      lines.next().then(
        () => "a line",
        (err: unknown) => err,
      ),
      clock.waitForTimers(1).then(() => "a retry was scheduled"),
    ]);
    expect(outcome).toBeInstanceOf(TransportError);
    expect(requests).toBe(1);
  });

  it("retries watch() after a timeout (client-go's Request.Watch), waiting 1 s", async () => {
    const { url } = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`${JSON.stringify({ type: "ADDED", object: { kind: "Pod" } })}\n`);
    });
    const config = httpConfig(url);
    let sends = 0;
    /** A transport whose first connection attempt times out. */
    class TimingOutTransport extends Transport {
      override send(req: TransportRequest): Promise<TransportResponse> {
        if (++sends === 1) {
          const timeout = Object.assign(new Error("Connect Timeout Error"), {
            code: "UND_ERR_CONNECT_TIMEOUT",
          });
          return Promise.reject(timeout);
        }
        return super.send(req);
      }
    }
    const transport = new TimingOutTransport(config);
    cleanups.push(() => transport.close());
    const clock = new FakeClock();
    const client = new RESTClient(config, { clock, logger: noopLogger, transport });
    const events = client.get().version("v1").resource("pods").watch()[Symbol.asyncIterator]();
    const first = events.next();
    await clock.waitForTimers(2); // the idle deadline and the retry wait
    expect(clock.nextTimerAt()).toBe(clock.now() + 1000);
    clock.advance(1000);
    expect((await first).value).toMatchObject({ type: "ADDED" });
    expect(sends).toBe(2);
  });

  it("does not retry do() after a timeout", async () => {
    const { url } = await startServer((_req, res) => res.end("{}"));
    const config = httpConfig(url);
    class TimingOutTransport extends Transport {
      override send(): Promise<TransportResponse> {
        return Promise.reject(
          Object.assign(new Error("timeout"), { code: "UND_ERR_CONNECT_TIMEOUT" }),
        );
      }
    }
    const transport = new TimingOutTransport(config);
    cleanups.push(() => transport.close());
    const client = new RESTClient(config, {
      clock: new FakeClock(),
      logger: noopLogger,
      transport,
    });
    await expect(client.get().absPath("/api").do()).rejects.toBeInstanceOf(TransportError);
  });
});

describe("response size limits", () => {
  it("stops reading a gzip bomb at maxResponseBodyBytes with ResponseTooLargeError", async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)); // 64 MiB of spaces, ~64 KiB
    const { url } = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(bomb);
    });
    const client = new RESTClient(httpConfig(url), {
      logger: noopLogger,
      maxResponseBodyBytes: 1024 * 1024,
    });
    cleanups.push(() => client.transport.close());
    const err = await client
      .get()
      .absPath("/api")
      .do()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as ResponseTooLargeError).limitBytes).toBe(1024 * 1024);
    expect(() => new RESTClient(httpConfig(url), { maxResponseBodyBytes: 0 })).toThrow(RangeError);
  });

  it("ends a watch whose gzip body inflates to a never-ending frame", async () => {
    const frameStart = Buffer.from('{"type":"ADDED","object":{"data":"');
    const bomb = gzipSync(Buffer.concat([frameStart, Buffer.alloc(64 * 1024 * 1024, 0x61)]));
    const { url } = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.write(bomb); // and never ends
    });
    const client = new RESTClient(httpConfig(url), { logger: noopLogger });
    cleanups.push(() => client.transport.close());
    const watch = client
      .get()
      .version("v1")
      .resource("pods")
      .watch({ maxFrameBytes: 1024 * 1024 });
    const err = await watch[Symbol.asyncIterator]()
      .next()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WatchFrameTooLargeError);
  });
});

describe("credentials in the server URL", () => {
  it("never shows the URL's user name and password in transport errors", async () => {
    const { server, url } = await startServer((req) => req.socket.destroy());
    const port = (server.address() as AddressInfo).port;
    const host = url.replace("http://", "http://admin:s3cr3t-pw@");
    const client = new RESTClient(httpConfig(host), { clock: new FakeClock(), logger: noopLogger });
    cleanups.push(() => client.transport.close());
    const reset = await client
      .post()
      .absPath("/api")
      .body({})
      .do()
      .catch((e: unknown) => e);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const refused = await client
      .post()
      .absPath("/api")
      .do()
      .catch((e: unknown) => e);
    for (const err of [reset, refused]) {
      expect(err).toBeInstanceOf(TransportError);
      const text = `${String(err)} ${(err as TransportError).url} ${JSON.stringify(err)}`;
      expect(text).not.toContain("s3cr3t-pw");
      expect(text).not.toContain("admin");
      expect((err as TransportError).url).toBe(`http://127.0.0.1:${port}/api`);
    }
  });
});

describe("TLS client certificates and proxies", () => {
  it("presents the credential source's certificate and reconnects when it changes", async () => {
    const authority = await createCertificateAuthority();
    const serving = await authority.issueServing({
      dnsNames: ["localhost"],
      ipAddresses: ["127.0.0.1"],
    });
    const server = createHttpsServer(
      {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: [authority.ca.certPem],
        requestCert: true,
        rejectUnauthorized: false,
      },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ cn: peer.subject?.CN ?? null }));
      },
    );
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    cleanups.push(() => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const alice = await authority.issueClient({ user: "alice" });
    const bob = await authority.issueClient({ user: "bob" });
    const staticCert = await authority.issueClient({ user: "static" });
    let current: { certPem: string; keyPem: string } | undefined;
    const credentials: CredentialSource = {
      kind: "exec",
      get: (): Promise<RequestCredentials> =>
        Promise.resolve(current ? { headers: {}, clientCertificate: current } : { headers: {} }),
      invalidate: () => undefined,
    };
    const config: RestConfig = {
      host: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      tls: { caPem: authority.ca.certPem, certPem: staticCert.certPem, keyPem: staticCert.keyPem },
      credentials,
      qps: -1,
      burst: 0,
    };
    const client = new RESTClient(config, { logger: noopLogger });
    const whoami = async () => (await client.get().absPath("/").do<{ cn: string }>()).body.cn;
    expect(await whoami()).toBe("static");
    current = alice;
    expect(await whoami()).toBe("alice");
    expect(await whoami()).toBe("alice");
    current = bob;
    expect(await whoami()).toBe("bob");
    await client.transport.close();
  });

  it("reaches an HTTPS API server through an HTTP CONNECT proxy", async () => {
    const api = await ApiServer.start({ tls: true });
    cleanups.push(() => api.stop());
    const proxy = await startConnectProxy();
    cleanups.push(() => proxy.close());
    const config: RestConfig = {
      host: api.url,
      tls: { caPem: api.caPem ?? "" },
      credentials: anonymous,
      proxyUrl: proxy.url,
      qps: -1,
      burst: 0,
    };
    const client = new RESTClient(config, { logger: noopLogger });
    const res = await client.get().version("v1").resource("namespaces").name("default").do<{
      metadata: { name: string };
    }>();
    expect(res.body.metadata.name).toBe("default");
    expect(proxy.tunnels.map((t) => t.target)).toEqual([`127.0.0.1:${api.port}`]);
    await client.transport.close();
  });
});
