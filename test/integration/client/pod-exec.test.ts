/**
 * exec and attach against a scripted kube-style WebSocket server: the protocol (channels,
 * exit codes, v5 stdin close, v4 fallback, resize), the connection (TLS, credentials,
 * impersonation, rate limiter, timeout) and every error path.
 */
import { once } from "node:events";
import type { IncomingMessage } from "node:http";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { PassThrough, Readable } from "node:stream";
import type { TLSSocket } from "node:tls";
import { text } from "node:stream/consumers";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CredentialSource,
  type RestConfig,
  noopLogger,
  isBadRequest,
  isNotFound,
  StatusError,
  TokenBucket,
  ProxyTunnelError,
  PodStreams,
  StreamClosedError,
  StreamProtocolError,
  StreamUpgradeError,
  RequestTimeoutError,
  TransportError,
  RESTClient,
} from "kubekit";
import { FakeClock } from "kubekit/testing";
import { HEARTBEAT_PERIOD_MS } from "../../../packages/kubekit/src/client/websocket-heartbeat.js";
import {
  createCertificateAuthority,
  type CertificateAuthority,
} from "../../../packages/apiserver/src/auth/certificates.js";
import { startConnectProxy } from "../../support/connect-proxy.js";
import { waitFor } from "../../support/server-test-helpers.js";
import type {
  RemoteCommandServer,
  RemoteCommandServerOptions,
  ServerSession,
} from "./remote-command-test-server.js";
import { exitStatusJson, startRemoteCommandServer } from "./remote-command-test-server.js";
import { rejectionOf } from "../../support/rejection.js";

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const anonymous: CredentialSource = {
  kind: "none",
  get: () => Promise.resolve({ headers: {} }),
  invalidate: () => undefined,
};

function configFor(url: string, overrides: Partial<RestConfig> = {}): RestConfig {
  return { host: url, tls: {}, credentials: anonymous, qps: -1, burst: 0, ...overrides };
}

async function serve(
  script: (session: ServerSession) => void | Promise<void>,
  options: RemoteCommandServerOptions = {},
): Promise<RemoteCommandServer> {
  const server = await startRemoteCommandServer(script, options);
  cleanups.push(() => server.close());
  return server;
}

/**
 * A TLS server (certificate from `authority`) that asks for a client certificate; each
 * session exits 0. `peerName()` is the CN of the certificate the client presented last.
 */
async function serveMutualTls(
  authority: CertificateAuthority,
): Promise<{ server: RemoteCommandServer; peerName: () => string | undefined }> {
  const serving = await authority.issueServing({ dnsNames: [], ipAddresses: ["127.0.0.1"] });
  let peerName: string | undefined;
  const server = await serve(
    (s) => {
      peerName = String((s.request.socket as TLSSocket).getPeerCertificate().subject.CN);
      s.exit(0);
    },
    {
      tls: {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: authority.ca.certPem,
        requestCert: true,
      },
    },
  );
  return { server, peerName: () => peerName };
}

function streamsFor(url: string, overrides: Partial<RestConfig> = {}): PodStreams {
  return new PodStreams(new RESTClient(configFor(url, overrides), { logger: noopLogger }));
}

/** The values of a request header as sent (repeated headers separately). */
function rawHeaderValues(req: IncomingMessage, name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === name) out.push(req.rawHeaders[i + 1] ?? "");
  }
  return out;
}

describe("exec", () => {
  it("sends the argv and streams, separates stdout from stderr and reports exit code 0", async () => {
    const server = await serve((s) => {
      s.send(1, "out-1 ");
      s.send(2, "err-1");
      s.send(1, "out-2");
      s.exit(0);
    });
    const session = await streamsFor(server.url).exec("team-a", "web-0", {
      command: ["sh", "-c", "echo hi && echo oops >&2"],
      container: "app",
    });
    const [stdout, stderr, result] = await Promise.all([
      text(session.stdout!),
      text(session.stderr!),
      session.status,
    ]);
    expect(stdout).toBe("out-1 out-2");
    expect(stderr).toBe("err-1");
    expect(result.exitCode).toBe(0);
    expect(result.status?.status).toBe("Success");
    expect(session.protocol).toBe("v5.channel.k8s.io");
    expect(session.stdin).toBeUndefined();
    const url = new URL(server.requests[0]?.url ?? "", "http://x");
    expect(url.pathname).toBe("/api/v1/namespaces/team-a/pods/web-0/exec");
    expect(url.searchParams.getAll("command")).toEqual(["sh", "-c", "echo hi && echo oops >&2"]);
    expect(url.searchParams.get("container")).toBe("app");
    expect(url.searchParams.get("stdout")).toBe("true");
    expect(url.searchParams.get("stderr")).toBe("true");
    expect(url.searchParams.has("stdin")).toBe(false);
    expect(url.searchParams.has("tty")).toBe(false);
    expect(rawHeaderValues(server.requests[0]!, "sec-websocket-protocol")).toEqual([
      "v5.channel.k8s.io,v4.channel.k8s.io",
    ]);
  });

  it("reports a non-zero exit as a result with the server's Status", async () => {
    const server = await serve((s) => s.exit(3));
    const session = await streamsFor(server.url).exec("ns", "p", { command: ["false"] });
    const result = await session.status;
    expect(result.exitCode).toBe(3);
    expect(result.status?.reason).toBe("NonZeroExitCode");
  });

  it("rejects status with a StatusError for a Failure other than a non-zero exit", async () => {
    const server = await serve((s) => {
      s.send(
        3,
        JSON.stringify({
          status: "Failure",
          reason: "InternalError",
          message: 'exec: "nope": executable file not found in $PATH',
          code: 500,
        }),
      );
      s.ws.close(1000);
    });
    const session = await streamsFor(server.url).exec("ns", "p", { command: ["nope"] });
    const err = await rejectionOf(session.status);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).message).toContain("executable file not found");
  });

  it("takes a Status split over several error channel messages", async () => {
    const json = exitStatusJson(42);
    const server = await serve((s) => {
      s.send(3, json.slice(0, 10));
      s.send(3, json.slice(10));
      s.ws.close(1000);
    });
    const session = await streamsFor(server.url).exec("ns", "p", { command: ["x"] });
    expect((await session.status).exitCode).toBe(42);
  });

  it("counts a normal close without a Status as success, as client-go does", async () => {
    const server = await serve((s) => s.ws.close(1000));
    const session = await streamsFor(server.url).exec("ns", "p", { command: ["x"] });
    expect(await session.status).toEqual({ exitCode: 0, status: undefined });
  });

  it("pipes stdin and signals its end with v5's close message", async () => {
    const server = await serve(async (s) => {
      expect([...(await s.next(255))]).toEqual([0]);
      const input = s.received.filter(([c]) => c === 0).map(([, d]) => d.toString());
      s.send(1, input.join("").toUpperCase());
      s.exit(0);
    });
    const session = await streamsFor(server.url).exec("ns", "p", {
      command: ["tr", "a-z", "A-Z"],
      stdin: true,
    });
    expect(new URL(server.requests[0]?.url ?? "", "http://x").searchParams.get("stdin")).toBe(
      "true",
    );
    session.stdin!.write("hello ");
    session.stdin!.end("world");
    const [stdout, result] = await Promise.all([text(session.stdout!), session.status]);
    expect(stdout).toBe("HELLO WORLD");
    expect(result.exitCode).toBe(0);
  });

  it("pipes a given Readable into stdin and output into given Writables", async () => {
    const server = await serve(async (s) => {
      await s.next(255);
      const input = Buffer.concat(s.received.filter(([c]) => c === 0).map(([, d]) => d));
      s.send(1, `got ${input.length} bytes`);
      s.send(2, "done");
      s.exit(0);
    });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const collected = [text(stdout), text(stderr)];
    const session = await streamsFor(server.url).exec("ns", "p", {
      command: ["wc", "-c"],
      stdin: Readable.from([Buffer.alloc(70_000, 1), Buffer.alloc(30_000, 2)]),
      stdout,
      stderr,
    });
    expect(session.stdin).toBeUndefined();
    expect(session.stdout).toBeUndefined();
    expect((await session.status).exitCode).toBe(0);
    // The output was handed over before the status settled; the Writables were not ended.
    expect(stdout.writableEnded).toBe(false);
    stdout.end();
    stderr.end();
    expect(await Promise.all(collected)).toEqual(["got 100000 bytes", "done"]);
  });

  it("falls back to v4, where ending stdin sends nothing", async () => {
    const server = await serve(
      async (s) => {
        const data = await s.next(0);
        s.send(1, data);
        s.exit(0);
      },
      { protocols: ["v4.channel.k8s.io"] },
    );
    const session = await streamsFor(server.url).exec("ns", "p", {
      command: ["cat"],
      stdin: true,
    });
    expect(session.protocol).toBe("v4.channel.k8s.io");
    session.stdin!.end("abc");
    const [stdout, result] = await Promise.all([text(session.stdout!), session.status]);
    expect(stdout).toBe("abc");
    expect(result.exitCode).toBe(0);
    const sessionOnServer = await server.nextSession();
    expect(sessionOnServer.received.map(([channel]) => channel)).toEqual([0]);
  });

  it("sends resizes for a TTY session, which has no stderr by default", async () => {
    const server = await serve(async (s) => {
      const size = await s.next(4);
      s.send(1, size);
      s.exit(0);
    });
    const session = await streamsFor(server.url).exec("ns", "p", {
      command: ["sh"],
      stdin: true,
      tty: true,
    });
    const query = new URL(server.requests[0]?.url ?? "", "http://x").searchParams;
    expect(query.get("tty")).toBe("true");
    expect(query.has("stderr")).toBe(false);
    expect(session.stderr).toBeUndefined();
    expect(() => session.resize({ width: 70_000, height: 1 })).toThrow(RangeError);
    session.resize({ width: 80, height: 24 });
    const [stdout] = await Promise.all([text(session.stdout!), session.status]);
    expect(JSON.parse(stdout)).toEqual({ Width: 80, Height: 24 });
  });

  it("refuses resize without a TTY", async () => {
    const server = await serve((s) => s.exit(0));
    const session = await streamsFor(server.url).exec("ns", "p", { command: ["x"] });
    expect(() => session.resize({ width: 80, height: 24 })).toThrow(TypeError);
    await session.status;
  });

  it("applies backpressure: output nobody reads stops the connection, then flows in order", async () => {
    const chunk = Buffer.alloc(64 * 1024, 7);
    const count = 512; // 32 MiB, far beyond the socket buffers of the loopback interface
    const server = await serve((s) => {
      for (let i = 0; i < count; i++) s.send(1, chunk);
      s.exit(0);
    });
    const session = await streamsFor(server.url).exec("ns", "p", { command: ["x"] });
    const stdout = session.stdout!;
    await waitFor("a full stdout buffer", () =>
      Promise.resolve(stdout.readableLength >= stdout.readableHighWaterMark),
    );
    // While nobody reads, the client holds at most a few messages, not the whole output.
    for (let i = 0; i < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(stdout.readableLength).toBeLessThan(4 * 1024 * 1024);
    }
    let total = 0;
    for await (const data of stdout) total += (data as Buffer).length;
    expect(total).toBe(count * chunk.length);
    expect((await session.status).exitCode).toBe(0);
  });

  it("connects with TLS, a client certificate, the bearer token and impersonation headers", async () => {
    const authority = await createCertificateAuthority();
    const clientCert = await authority.issueClient({ user: "jane" });
    const { server, peerName } = await serveMutualTls(authority);
    const credentials: CredentialSource = {
      kind: "token",
      get: () => Promise.resolve({ headers: { Authorization: "Bearer s3cret" } }),
      invalidate: () => undefined,
    };
    const session = await streamsFor(server.url, {
      tls: { caPem: authority.ca.certPem, certPem: clientCert.certPem, keyPem: clientCert.keyPem },
      credentials,
      impersonate: { user: "bob", groups: ["dev", "ops"], extra: { scopes: ["a"] } },
      userAgent: "exec-test/1.0",
    }).exec("ns", "p", { command: ["x"] });
    expect((await session.status).exitCode).toBe(0);
    const request = server.requests[0]!;
    expect(request.headers["authorization"]).toBe("Bearer s3cret");
    expect(request.headers["impersonate-user"]).toBe("bob");
    expect(rawHeaderValues(request, "impersonate-group")).toEqual(["dev", "ops"]);
    expect(request.headers["impersonate-extra-scopes"]).toBe("a");
    expect(request.headers["user-agent"]).toBe("exec-test/1.0");
    expect(request.headers["accept-encoding"]).toBeUndefined();
    expect(peerName()).toBe("jane");
  });

  it("presents the client certificate an exec plugin returns instead of the static one", async () => {
    const authority = await createCertificateAuthority();
    const staticCert = await authority.issueClient({ user: "static" });
    const pluginCert = await authority.issueClient({ user: "from-plugin" });
    const { server, peerName } = await serveMutualTls(authority);
    const credentials: CredentialSource = {
      kind: "exec",
      get: () => Promise.resolve({ headers: {}, clientCertificate: pluginCert }),
      invalidate: () => undefined,
    };
    const session = await streamsFor(server.url, {
      tls: { caPem: authority.ca.certPem, certPem: staticCert.certPem, keyPem: staticCert.keyPem },
      credentials,
    }).exec("ns", "p", { command: ["x"] });
    await session.status;
    expect(peerName()).toBe("from-plugin");
  });

  it("fails with a TransportError when the server certificate is not trusted", async () => {
    const authority = await createCertificateAuthority();
    const serving = await authority.issueServing({ dnsNames: [], ipAddresses: ["127.0.0.1"] });
    const server = await serve((s) => s.exit(0), {
      tls: { cert: serving.certPem, key: serving.keyPem },
    });
    const err = await rejectionOf(streamsFor(server.url).exec("ns", "p", { command: ["x"] }));
    expect(err).toBeInstanceOf(TransportError);
    expect(server.requests).toHaveLength(0);
    // insecureSkipTlsVerify connects anyway.
    const session = await streamsFor(server.url, { tls: { insecureSkipTlsVerify: true } }).exec(
      "ns",
      "p",
      { command: ["x"] },
    );
    expect((await session.status).exitCode).toBe(0);
  });

  it("tunnels through the config's HTTP proxy with CONNECT, TLS end to end", async () => {
    const authority = await createCertificateAuthority();
    const serving = await authority.issueServing({ dnsNames: [], ipAddresses: ["127.0.0.1"] });
    const server = await serve((s) => s.exit(4), {
      tls: { cert: serving.certPem, key: serving.keyPem },
    });
    const proxy = await startConnectProxy();
    cleanups.push(() => proxy.close());
    const proxyUrl = proxy.url.replace("http://", "http://user:p%40ss@");
    const session = await streamsFor(server.url, {
      tls: { caPem: authority.ca.certPem },
      proxyUrl,
    }).exec("ns", "p", { command: ["x"] });
    expect((await session.status).exitCode).toBe(4);
    expect(proxy.tunnels).toEqual([
      {
        target: new URL(server.url).host,
        auth: `Basic ${Buffer.from("user:p@ss").toString("base64")}`,
      },
    ]);
  });

  it("fails with a TransportError when the proxy refuses the tunnel", async () => {
    const proxy = createHttpServer();
    proxy.on("connect", (_req: IncomingMessage, client: Socket) => {
      client.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
    });
    proxy.listen(0, "127.0.0.1");
    await once(proxy, "listening");
    cleanups.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const err = await rejectionOf(
      streamsFor("http://127.0.0.1:1", { proxyUrl }).exec("ns", "p", { command: ["x"] }),
    );
    expect(err).toBeInstanceOf(TransportError);
    expect((err as Error).cause).toBeInstanceOf(ProxyTunnelError);
    expect(((err as Error).cause as ProxyTunnelError).statusCode).toBe(407);
  });

  it("takes one token of the client's rate limiter per connection", async () => {
    const server = await serve((s) => s.exit(0));
    const clock = new FakeClock();
    const limiter = new TokenBucket(1, 1, clock);
    const client = new RESTClient(configFor(server.url), {
      logger: noopLogger,
      rateLimiter: limiter,
    });
    const streams = new PodStreams(client);
    await (
      await streams.exec("ns", "p", { command: ["x"] })
    ).status;
    expect(server.requests).toHaveLength(1);
    let opened = false;
    const second = streams.exec("ns", "p", { command: ["x"] }).then((s) => {
      opened = true;
      return s.status;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(opened).toBe(false);
    expect(server.requests).toHaveLength(1);
    clock.advance(1000);
    expect((await second).exitCode).toBe(0);
    expect(server.requests).toHaveLength(2);
  });

  it("throws the server's Status for a refused upgrade (400 pod not running)", async () => {
    const status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "unable to upgrade connection: pod does not exist",
      reason: "BadRequest",
      code: 400,
    };
    const server = await serve(() => undefined, {
      refuse: () => ({ statusCode: 400, body: JSON.stringify(status) }),
    });
    const err = await rejectionOf(streamsFor(server.url).exec("ns", "p", { command: ["x"] }));
    expect(err).toBeInstanceOf(StatusError);
    expect(isBadRequest(err)).toBe(true);
    expect((err as StatusError).message).toBe("unable to upgrade connection: pod does not exist");
  });

  it("gives apimachinery's generic error for a refusal without a Status", async () => {
    const server = await serve(() => undefined, {
      refuse: () => ({ statusCode: 404, body: "404 page not found", contentType: "text/plain" }),
    });
    const err = await rejectionOf(streamsFor(server.url).exec("ns", "web-0", { command: ["x"] }));
    expect(isNotFound(err)).toBe(true);
    expect((err as StatusError).message).toBe(
      "the server could not find the requested resource (get pods web-0)",
    );
  });

  it("invalidates the credentials after a 401", async () => {
    let invalidated = 0;
    const credentials: CredentialSource = {
      kind: "token",
      get: () => Promise.resolve({ headers: { Authorization: "Bearer old" } }),
      invalidate: () => void invalidated++,
    };
    const server = await serve(() => undefined, {
      refuse: () => ({ statusCode: 401, body: "" }),
    });
    const err = await rejectionOf(
      streamsFor(server.url, { credentials }).exec("ns", "p", { command: ["x"] }),
    );
    expect((err as StatusError).code).toBe(401);
    expect(invalidated).toBe(1);
  });

  it("fails with StreamUpgradeError when the server picks none of the protocols", async () => {
    const server = await serve((s) => s.exit(0), { protocols: ["channel.k8s.io"] });
    const err = await rejectionOf(streamsFor(server.url).exec("ns", "p", { command: ["x"] }));
    expect(err).toBeInstanceOf(StreamUpgradeError);
    expect((err as StreamUpgradeError).negotiatedProtocol).toBe("");
    expect((err as StreamUpgradeError).message).toContain(
      'invalid protocol, expected one of ["v5.channel.k8s.io","v4.channel.k8s.io"], got ""',
    );
  });

  it("fails with a TransportError when nothing listens", async () => {
    const server = await serve((s) => s.exit(0));
    const url = server.url;
    await server.close();
    const err = await rejectionOf(streamsFor(url).exec("ns", "p", { command: ["x"] }));
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).code).toBe("ECONNREFUSED");
  });

  it("times out the upgrade with the client's timeout on its clock", async () => {
    const server = await serve(() => undefined, { hang: true });
    const clock = new FakeClock();
    const client = new RESTClient(configFor(server.url, { timeoutMs: 5000 }), {
      logger: noopLogger,
      clock,
    });
    const pending = rejectionOf(new PodStreams(client).exec("ns", "p", { command: ["x"] }));
    await waitFor("the upgrade request", () => Promise.resolve(server.requests.length === 1));
    clock.advance(5000);
    expect(await pending).toBeInstanceOf(RequestTimeoutError);
  });

  it("rejects with the signal's reason when aborted before or after the upgrade", async () => {
    const server = await serve(() => undefined);
    const streams = streamsFor(server.url);
    const early = new AbortController();
    early.abort(new Error("not now"));
    expect(
      await rejectionOf(streams.exec("ns", "p", { command: ["x"], signal: early.signal })),
    ).toMatchObject({ message: "not now" });
    const later = new AbortController();
    const session = await streams.exec("ns", "p", { command: ["x"], signal: later.signal });
    later.abort(new Error("stop"));
    expect(await rejectionOf(session.status)).toMatchObject({ message: "stop" });
    expect(session.stdout?.readableEnded || session.stdout?.readable).toBeTruthy();
  });

  it("reports a connection lost before the result as StreamClosedError", async () => {
    const server = await serve((s) => {
      s.send(1, "partial");
      setImmediate(() => s.ws.terminate());
    });
    const session = await streamsFor(server.url).exec("ns", "p", { command: ["x"] });
    const [stdout, err] = await Promise.all([text(session.stdout!), rejectionOf(session.status)]);
    expect(stdout).toBe("partial");
    expect(err).toBeInstanceOf(StreamClosedError);
    expect((err as StreamClosedError).code).toBe(1006);
    expect((err as StreamClosedError).closedByClient).toBe(false);
  });

  it("reports close() before the result as closed by the client", async () => {
    const server = await serve(() => undefined);
    const session = await streamsFor(server.url).exec("ns", "p", { command: ["sleep", "9"] });
    session.close();
    const err = await rejectionOf(session.status);
    expect(err).toBeInstanceOf(StreamClosedError);
    expect((err as StreamClosedError).closedByClient).toBe(true);
  });

  it("fails with StreamProtocolError on a text message", async () => {
    const server = await serve((s) => s.ws.send("hello", { binary: false }));
    const session = await streamsFor(server.url).exec("ns", "p", { command: ["x"] });
    const err = await rejectionOf(session.status);
    expect(err).toBeInstanceOf(StreamProtocolError);
    expect((err as Error).message).toContain("unexpected text message");
  });

  it("ends the session when the server stops answering pings", async () => {
    const server = await serve(() => undefined, { autoPong: false });
    const clock = new FakeClock();
    const client = new RESTClient(configFor(server.url), { logger: noopLogger, clock });
    const session = await new PodStreams(client).exec("ns", "p", { command: ["x"] });
    const outcome = rejectionOf(session.status);
    for (let i = 0; i < 13; i++) clock.advance(HEARTBEAT_PERIOD_MS);
    const err = await outcome;
    expect(err).toBeInstanceOf(StreamClosedError);
    expect((err as Error).message).toContain("no heartbeat answer");
  });

  it("keeps a session whose server answers pings", async () => {
    const server = await serve(() => undefined);
    const clock = new FakeClock();
    const client = new RESTClient(configFor(server.url), { logger: noopLogger, clock });
    const session = await new PodStreams(client).exec("ns", "p", { command: ["x"] });
    const onServer = await server.nextSession();
    let pings = 0;
    onServer.ws.on("ping", () => pings++);
    for (let i = 0; i < 15; i++) {
      clock.advance(HEARTBEAT_PERIOD_MS);
      const expected = i + 1;
      await waitFor(`ping ${expected}`, () => Promise.resolve(pings === expected));
    }
    onServer.exit(7);
    expect((await session.status).exitCode).toBe(7);
  });
});

describe("attach", () => {
  it("attaches without a command and gets the same session", async () => {
    const server = await serve(async (s) => {
      const data = await s.next(0);
      s.send(1, `echo: ${data.toString()}`);
      s.exit(0);
    });
    const session = await streamsFor(server.url).attach("ns", "p", {
      container: "main",
      stdin: true,
      tty: true,
    });
    session.stdin!.write("hi");
    const [stdout, result] = await Promise.all([text(session.stdout!), session.status]);
    expect(stdout).toBe("echo: hi");
    expect(result.exitCode).toBe(0);
    const url = new URL(server.requests[0]?.url ?? "", "http://x");
    expect(url.pathname).toBe("/api/v1/namespaces/ns/pods/p/attach");
    expect(url.searchParams.has("command")).toBe(false);
    expect(url.searchParams.get("container")).toBe("main");
    expect(url.searchParams.get("stdin")).toBe("true");
    expect(url.searchParams.get("tty")).toBe("true");
  });
});
