/**
 * Port forwarding from the client against the embedded server over HTTPS with token
 * authentication: the simulated kubelet makes pods Running, a registered handler pipes each
 * forwarded connection to an HTTP server of the test.
 */
import { once } from "node:events";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { Pod } from "kubernetes-types/core/v1.js";
import { Agent, request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  Clientset,
  PodNotRunningError,
  PortForwardListenError,
  type PortForwardSession,
  PodStreams,
  type Logger,
  type LogFields,
  isNotFound,
} from "kubekit";
import { eventually, useServer, waitFor } from "../../support/server-test-helpers.js";

const NS = "default";

/** A logger keeping every message. */
function recordingLogger(): Logger & {
  readonly lines: { level: string; message: string; fields?: LogFields }[];
} {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const at = (level: string) => (message: string, fields?: LogFields) =>
    void lines.push({ level, message, fields });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** A GET through `port` on a connection of its own. */
async function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  const dispatcher = new Agent({ pipelining: 0 });
  try {
    const res = await request(`http://127.0.0.1:${port}${path}`, { dispatcher });
    return { status: res.statusCode, body: await res.body.text() };
  } finally {
    await dispatcher.close();
  }
}

/** A TCP connection to 127.0.0.1:`port` collecting what it receives. */
async function dial(
  port: number,
): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const socket = connect(port, "127.0.0.1");
  await once(socket, "connect");
  let received = "";
  socket.on("data", (d: Buffer) => (received += d.toString()));
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, received: () => received, closed };
}

describe("portForward against the embedded server", () => {
  const h = useServer({
    tls: true,
    auth: { tokens: { "admin-token": { name: "admin", groups: ["system:masters"] } } },
    cluster: { controllers: [], nodes: 1 },
  });
  const logger = recordingLogger();
  let cs: Clientset;
  let backend: HttpServer;
  const sessions: PortForwardSession[] = [];
  const unregister: (() => void)[] = [];

  async function runningPod(name: string, spec?: Pod["spec"]): Promise<void> {
    await cs.coreV1.pods(NS).create({
      metadata: { name },
      spec: spec ?? { containers: [{ name: "main", image: "example/web:1" }] },
    });
    await eventually(`${name} Running`, async () => {
      const pod = await cs.coreV1.pods(NS).get(name);
      return pod.status?.phase === "Running" ? pod : undefined;
    });
  }

  /** Pipes every forwarded connection to port 8080 of pod `web` to the test's HTTP server. */
  const toBackend = (stream: Duplex): void => {
    const upstream = connect((backend.address() as AddressInfo).port, "127.0.0.1");
    upstream.on("error", () => stream.destroy());
    stream.pipe(upstream).pipe(stream);
  };

  beforeAll(async () => {
    cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 }, { logger });
    backend = createHttpServer((req, res) => res.end(`hello from the pod: ${req.url ?? ""}`));
    backend.listen(0, "127.0.0.1");
    await once(backend, "listening");
    await runningPod("web");
  });

  afterEach(async () => {
    unregister.splice(0).forEach((u) => u());
    await Promise.all(sessions.splice(0).map((s) => s.close()));
    logger.lines.length = 0;
  });

  afterAll(async () => {
    backend.close();
  });

  async function forward(
    pod: string,
    ports: (number | string)[],
    options = {},
  ): Promise<PortForwardSession> {
    const session = await cs.coreV1.pods(NS).portForward(pod, ports, options);
    sessions.push(session);
    return session;
  }

  it("carries an HTTP request to the handler through a free local port (':8080')", async () => {
    unregister.push(h.server.containers.onPortForward({ pod: "web" }, 8080, toBackend));
    const pf = await forward("web", [":8080"]);
    expect(pf.ports).toHaveLength(1);
    expect(pf.ports[0]!.remote).toBe(8080);
    expect(pf.ports[0]!.local).toBeGreaterThan(0);
    expect(await httpGet(pf.ports[0]!.local, "/index.html")).toEqual({
      status: 200,
      body: "hello from the pod: /index.html",
    });
    // Both localhost addresses listen on the one port chosen.
    const v6 = connect({ host: "::1", port: pf.ports[0]!.local });
    const outcome = await Promise.race([
      once(v6, "connect").then(() => "connected"),
      once(v6, "error").then(([err]) => (err as NodeJS.ErrnoException).code),
    ]);
    v6.destroy();
    expect(["connected", "EADDRNOTAVAIL", "EAFNOSUPPORT", "ENETUNREACH"]).toContain(outcome);
  });

  it("serves two concurrent connections, each over its own WebSocket", async () => {
    let connections = 0;
    let ended = 0;
    unregister.push(
      h.server.containers.onPortForward({ pod: "web" }, 8080, (stream) => {
        connections++;
        stream.on("data", (d: Buffer) => stream.write(`[${d.toString()}]`));
        stream.on("end", () => ended++);
      }),
    );
    const pf = await new PodStreams(cs).portForward(NS, "web", ["0:8080"], {
      address: "127.0.0.1",
    });
    sessions.push(pf);
    const a = await dial(pf.ports[0]!.local);
    const b = await dial(pf.ports[0]!.local);
    a.socket.write("a1");
    b.socket.write("b1");
    await waitFor("both answers", async () => a.received() === "[a1]" && b.received() === "[b1]");
    a.socket.write("a2");
    await waitFor("a's second answer", async () => a.received() === "[a1][a2]");
    expect(b.received()).toBe("[b1]");
    expect(connections).toBe(2);
    // Closing a local connection closes its WebSocket: the handler's stream ends.
    a.socket.destroy();
    await waitFor("one connection left", async () => ended === 1);
    b.socket.write("b2");
    await waitFor("b's second answer", async () => b.received() === "[b1][b2]");
    b.socket.destroy();
    await waitFor("no connection left", async () => ended === 2);
  });

  it("an error on one connection's error stream ends that connection only, logged at warn", async () => {
    unregister.push(
      h.server.containers.onPortForward({ pod: "web" }, 8080, async (stream) => {
        const [first] = (await once(stream, "data")) as [Buffer];
        if (first.toString() === "boom") throw new Error("the backend failed");
        stream.write(`echo ${first.toString()}`);
        stream.on("data", (d: Buffer) => stream.write(`echo ${d.toString()}`));
      }),
    );
    const pf = await forward("web", [":8080"], { address: ["127.0.0.1"] });
    const good = await dial(pf.ports[0]!.local);
    const bad = await dial(pf.ports[0]!.local);
    good.socket.write("one");
    await waitFor("the first echo", async () => good.received() === "echo one");
    bad.socket.write("boom");
    await bad.closed;
    expect(bad.received()).toBe("");
    const warning = await eventually("the warning", async () =>
      logger.lines.find((l) => l.level === "warn"),
    );
    expect(warning.message).toMatch(
      /^port-forward: error forwarding port 8080 to pod \S+, uid : the backend failed$/,
    );
    expect(warning.fields).toMatchObject({
      namespace: NS,
      pod: "web",
      localPort: pf.ports[0]!.local,
      remotePort: 8080,
    });
    good.socket.write("two");
    await waitFor("the second echo", async () => good.received() === "echo oneecho two");
    // The listener still accepts new connections.
    const again = await dial(pf.ports[0]!.local);
    again.socket.write("three");
    await waitFor("a new connection's echo", async () => again.received() === "echo three");
    good.socket.destroy();
    again.socket.destroy();
  });

  it("resets the local connection when nothing listens on the pod's port", async () => {
    const pf = await forward("web", [":7000"]);
    const conn = await dial(pf.ports[0]!.local);
    conn.socket.write("GET / HTTP/1.1\r\n\r\n");
    await conn.closed;
    expect(conn.received()).toBe("");
    const warning = await eventually("the warning", async () =>
      logger.lines.find((l) => l.level === "warn"),
    );
    expect(warning.message).toMatch(
      /failed to connect to localhost:7000 inside namespace "default\/web".*connection refused/,
    );
  });

  it("forwards several ports, and reaches a declared port's built-in answer without a handler", async () => {
    await runningPod("api", {
      containers: [{ name: "api", image: "example/api:1", ports: [{ containerPort: 9000 }] }],
    });
    unregister.push(h.server.containers.onPortForward({ pod: "api" }, 8080, toBackend));
    const pf = await forward("api", [":9000", ":8080"], { address: "127.0.0.1" });
    expect(pf.ports.map((p) => p.remote)).toEqual([9000, 8080]);
    expect(new Set(pf.ports.map((p) => p.local)).size).toBe(2);
    expect((await httpGet(pf.ports[0]!.local, "/")).body).toBe(
      "kubekit: pod default/api container api port 9000\n",
    );
    expect((await httpGet(pf.ports[1]!.local, "/x")).body).toBe("hello from the pod: /x");
  });

  it("abort stops the listeners and ends the open connections", async () => {
    unregister.push(
      h.server.containers.onPortForward({ pod: "web" }, 8080, (stream) => void stream.resume()),
    );
    const controller = new AbortController();
    const pf = await forward("web", [":8080"], { address: "127.0.0.1", signal: controller.signal });
    const open = await dial(pf.ports[0]!.local);
    open.socket.write("hello");
    await waitFor("the server side", async () =>
      logger.lines.some((l) => l.message.includes("handling connection")),
    );
    controller.abort();
    await pf.closed;
    await open.closed;
    const refused = connect(pf.ports[0]!.local, "127.0.0.1");
    const [err] = (await once(refused, "error")) as [NodeJS.ErrnoException];
    expect(err.code).toBe("ECONNREFUSED");
    expect(logger.lines.filter((l) => l.level === "warn")).toEqual([]);
    await pf.close(); // idempotent
  });

  it("logs a refused upgrade and closes that connection (the pod was deleted meanwhile)", async () => {
    await runningPod("short-lived");
    const pf = await forward("short-lived", [":8080"]);
    await cs.coreV1.pods(NS).delete("short-lived", { gracePeriodSeconds: 0 });
    await eventually("the pod gone", async () =>
      cs.coreV1
        .pods(NS)
        .get("short-lived")
        .then(
          () => undefined,
          (err: unknown) => (isNotFound(err) ? true : undefined),
        ),
    );
    const conn = await dial(pf.ports[0]!.local);
    await conn.closed;
    const warning = await eventually("the warning", async () =>
      logger.lines.find((l) => l.level === "warn"),
    );
    expect(warning.message).toBe("port-forward: unable to open the connection to the pod");
    expect(String(warning.fields?.["error"])).toMatch(/pods "short-lived" not found/);
  });

  it("rejects with PodNotRunningError for a pod that is not running, a StatusError for a missing one", async () => {
    await cs.coreV1.pods(NS).create({
      metadata: { name: "nowhere" },
      spec: { nodeName: "no-such-node", containers: [{ name: "main", image: "busybox" }] },
    });
    const error = await cs.coreV1
      .pods(NS)
      .portForward("nowhere", [8080])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PodNotRunningError);
    expect((error as PodNotRunningError).phase).toBe("Pending");
    expect((error as Error).message).toBe(
      "unable to forward port because pod default/nowhere is not running. Current status=Pending",
    );
    const missing = await cs.coreV1
      .pods(NS)
      .portForward("absent", [8080])
      .catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
  });

  it("rejects with PortForwardListenError when the local port is taken, leaving nothing listening", async () => {
    const taken = createServer();
    taken.listen(0, "127.0.0.1");
    await once(taken, "listening");
    const port = (taken.address() as AddressInfo).port;
    try {
      const error = await cs.coreV1
        .pods(NS)
        .portForward("web", [":8080", `${port}:8080`], { address: "127.0.0.1" })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PortForwardListenError);
      expect((error as PortForwardListenError).localPort).toBe(port);
      expect((error as Error).message).toMatch(
        new RegExp(`^unable to listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`),
      );
    } finally {
      taken.close();
    }
  });

  it("rejects invalid ports and addresses before any request", async () => {
    const pods = cs.coreV1.pods(NS);
    await expect(pods.portForward("web", [])).rejects.toThrow(TypeError);
    await expect(pods.portForward("web", ["8080:0"])).rejects.toThrow("remote port must be > 0");
    await expect(pods.portForward("web", ["1:2:3"])).rejects.toThrow("invalid port format '1:2:3'");
    await expect(pods.portForward("web", [70000])).rejects.toThrow(TypeError);
    await expect(pods.portForward("web", [80], { address: "example.com" })).rejects.toThrow(
      "example.com is not a valid IP",
    );
  });
});
