import { connect } from "node:net";
import type { Duplex } from "node:stream";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { PortForwardRequest } from "@kubekit/apiserver";
import { RstStatus } from "../../../packages/apiserver/src/streaming/spdy/spdy-frames.js";
import {
  createNamespace,
  eventually,
  useServer,
  waitFor,
} from "../../support/server-test-helpers.js";
import { openRawWebSocket } from "../../support/raw-websocket.js";
import type { RawWebSocket, RawWebSocketRefusal } from "../../support/raw-websocket.js";
import { openSpdyUpgrade, SpdyTestClient } from "../../support/spdy-test-client.js";

const ns = "port-forward";
const base = `/api/v1/namespaces/${ns}/pods`;

/** The port as the server's first message on each channel carries it: 16-bit little-endian. */
const portBytes = (port: number): Buffer => Buffer.from([port & 0xff, port >> 8]);

/** A raw WebSocket to the server, with everything it received by channel. */
interface ChannelClient {
  readonly ws: WebSocket;
  readonly protocol: string;
  /** The bytes received per channel, the port prefix included. */
  readonly channels: Map<number, Buffer>;
  readonly closed: Promise<number>;
  send(channel: number, data: string): void;
}

type Refused = { refused: true; status: number; body: string };

/**
 * Opens a WebSocket to `path` offering `protocols` and records every message by channel from
 * the start (the server's first messages may arrive with its 101 answer); resolves with the
 * session or the refusal.
 */
function openChannels(
  url: string,
  path: string,
  protocols = ["v4.channel.k8s.io"],
): Promise<ChannelClient | Refused> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, "ws") + path, protocols);
    const channels = new Map<number, Buffer>();
    ws.on("message", (data: Buffer) => {
      const channel = data[0]!;
      const sofar = channels.get(channel) ?? Buffer.alloc(0);
      channels.set(channel, Buffer.concat([sofar, data.subarray(1)]));
    });
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.once("open", () =>
      resolve({
        ws,
        protocol: ws.protocol,
        channels,
        closed,
        send: (channel, data) =>
          ws.send(Buffer.concat([Buffer.from([channel]), Buffer.from(data)])),
      }),
    );
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ refused: true, status: res.statusCode ?? 0, body }));
    });
    ws.once("error", reject);
  });
}

function expectOpen<T extends object>(value: T | Refused): T {
  if ("refused" in value) throw new Error(`refused: ${value.status} ${value.body}`);
  return value;
}

/** The text a channel carried after its 2-byte port prefix. */
const after = (client: ChannelClient, channel: number): string =>
  client.channels.get(channel)?.subarray(2).toString() ?? "";

describe("pods/portforward", () => {
  const h = useServer();
  const unregister: (() => void)[] = [];
  afterEach(() => unregister.splice(0).forEach((u) => u()));

  /** Echoes upper-cased; ends its side after "bye". */
  const shout = (stream: Duplex): void => {
    stream.on("data", (d: Buffer) => {
      const text = d.toString();
      stream.write(text.toUpperCase());
      if (text.includes("bye")) stream.end();
    });
    stream.on("end", () => stream.end());
  };

  async function createPod(
    name: string,
    pod: Record<string, unknown>,
    phase = "Running",
  ): Promise<void> {
    const res = await h.client.post(base, { metadata: { name, labels: { app: name } }, ...pod });
    expect(res.status, res.text).toBe(201);
    const status = await h.client.patch(
      `${base}/${name}/status`,
      { status: { phase } },
      "application/merge-patch+json",
    );
    expect(status.status, status.text).toBe(200);
  }

  beforeAll(async () => {
    await createNamespace(h.client, ns);
    await createPod("web", {
      spec: { nodeName: "node-1", containers: [{ name: "app", image: "busybox" }] },
    });
    await createPod("nginx", {
      spec: {
        nodeName: "node-1",
        containers: [{ name: "nginx", image: "docker.io/library/nginx:1.27" }],
      },
    });
    await createPod("api", {
      spec: {
        nodeName: "node-1",
        containers: [{ name: "api", image: "example/api:1", ports: [{ containerPort: 9000 }] }],
      },
    });
    await createPod(
      "pending",
      { spec: { nodeName: "node-1", containers: [{ name: "app", image: "busybox" }] } },
      "Pending",
    );
    await createPod("unbound", { spec: { containers: [{ name: "app", image: "busybox" }] } });
  });

  describe("WebSocket channel protocol (v4.channel.k8s.io)", () => {
    it("prefixes both channels with the port and carries the handler's bytes both ways", async () => {
      const requests: PortForwardRequest[] = [];
      unregister.push(
        h.server.containers.onPortForward(
          { namespace: ns, pod: "web" },
          8080,
          (stream, request) => {
            requests.push(request);
            shout(stream);
          },
        ),
      );
      const c = expectOpen(await openChannels(h.server.url, `${base}/web/portforward?ports=8080`));
      expect(c.protocol).toBe("v4.channel.k8s.io");
      await waitFor(
        "the port prefixes",
        async () => c.channels.get(0)?.length === 2 && c.channels.get(1)?.length === 2,
      );
      expect(c.channels.get(0)).toEqual(portBytes(8080));
      expect(c.channels.get(1)).toEqual(portBytes(8080));
      c.send(0, "hello ");
      c.send(0, "bye");
      expect(await c.closed).toBe(1000); // the handler ended its side: the connection is over
      expect(after(c, 0)).toBe("HELLO BYE");
      expect(after(c, 1)).toBe("");
      expect(
        requests.map((r) => [r.namespace, r.port, (r.pod["metadata"] as { name: string }).name]),
      ).toEqual([[ns, 8080, "web"]]);
      expect(requests[0]!.signal.aborted).toBe(true);
    });

    it("serves one connection per port of the query, each on its own channel pair", async () => {
      unregister.push(h.server.containers.onPortForward({ pod: "web" }, 8080, shout));
      unregister.push(
        h.server.containers.onPortForward({ pod: "web" }, 9090, (stream) => {
          stream.on("data", (d: Buffer) => stream.end(`9090 got ${d.toString()}`));
        }),
      );
      const c = expectOpen(
        await openChannels(h.server.url, `${base}/web/portforward?ports=8080,9090`),
      );
      await waitFor("four prefixes", async () =>
        [0, 1, 2, 3].every((ch) => c.channels.get(ch)?.length === 2),
      );
      expect(c.channels.get(2)).toEqual(portBytes(9090));
      c.send(2, "x");
      await waitFor("the 9090 answer", async () => after(c, 2) === "9090 got x");
      c.send(0, "still here, bye");
      expect(await c.closed).toBe(1000);
      expect(after(c, 0)).toBe("STILL HERE, BYE");
    });

    it("reports kubelet's error on the error channel when nothing listens on the port", async () => {
      const c = expectOpen(await openChannels(h.server.url, `${base}/web/portforward?ports=7000`));
      expect(await c.closed).toBe(1000);
      const uid = (await h.client.get(`${base}/web`)).json.metadata.uid as string;
      expect(after(c, 1)).toBe(
        `error forwarding port 7000 to pod ${uid}, uid : failed to connect to localhost:7000 inside namespace "${ns}/web", ` +
          "IPv4: dial tcp4 127.0.0.1:7000: connect: connection refused",
      );
      expect(after(c, 0)).toBe("");
    });

    it("a handler's error ends its own connection only", async () => {
      unregister.push(
        h.server.containers.onPortForward({ pod: "web" }, 8080, async (stream) => {
          const first = await new Promise<string>((resolve) =>
            stream.once("data", (d: Buffer) => resolve(d.toString())),
          );
          if (first === "boom") throw new Error("backend exploded");
          stream.write(`echo ${first}`);
          stream.on("data", (d: Buffer) => stream.write(`echo ${d.toString()}`));
        }),
      );
      const good = expectOpen(
        await openChannels(h.server.url, `${base}/web/portforward?ports=8080`),
      );
      const bad = expectOpen(
        await openChannels(h.server.url, `${base}/web/portforward?ports=8080`),
      );
      good.send(0, "one");
      await waitFor("the first echo", async () => after(good, 0) === "echo one");
      bad.send(0, "boom");
      expect(await bad.closed).toBe(1000);
      expect(after(bad, 1)).toMatch(
        /^error forwarding port 8080 to pod \S+, uid : backend exploded$/,
      );
      good.send(0, "two");
      await waitFor("the second echo", async () => after(good, 0) === "echo oneecho two");
      expect(after(good, 1)).toBe("");
      good.ws.close();
      expect(await good.closed).toBe(1005);
    });

    it("aborts the handler's signal and ends its stream when the client goes away", async () => {
      let request: PortForwardRequest | undefined;
      let ended = false;
      unregister.push(
        h.server.containers.onPortForward({ pod: "web" }, 8080, (stream, r) => {
          request = r;
          stream.on("end", () => (ended = true));
          stream.resume();
        }),
      );
      const c = expectOpen(await openChannels(h.server.url, `${base}/web/portforward?ports=8080`));
      const r = await eventually("the handler", async () => request);
      expect(r.signal.aborted).toBe(false);
      c.ws.close();
      await waitFor("the abort", async () => r.signal.aborted && ended);
    });

    it("answers with the built-in nginx page, or a declared port's line, without a handler", async () => {
      const get = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
      const nginx = expectOpen(
        await openChannels(h.server.url, `${base}/nginx/portforward?ports=80`),
      );
      nginx.send(0, get);
      expect(await nginx.closed).toBe(1000);
      expect(after(nginx, 0)).toMatch(
        /^HTTP\/1\.1 200 OK\r\n[^]*Server: nginx\r\n[^]*<title>Welcome to nginx!<\/title>/,
      );
      const api = expectOpen(
        await openChannels(h.server.url, `${base}/api/portforward?ports=9000`),
      );
      api.send(0, get);
      expect(await api.closed).toBe(1000);
      expect(after(api, 0)).toMatch(
        /\r\n\r\nkubekit: pod port-forward\/api container api port 9000\n$/,
      );
      const notHttp = expectOpen(
        await openChannels(h.server.url, `${base}/api/portforward?ports=9000`),
      );
      notHttp.send(0, "hello\r\n\r\n");
      expect(await notHttp.closed).toBe(1000);
      expect(after(notHttp, 0)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      // nginx's port 80 is not the api container's, and 8080 is nobody's.
      const refused = expectOpen(
        await openChannels(h.server.url, `${base}/nginx/portforward?ports=8080`),
      );
      expect(await refused.closed).toBe(1000);
      expect(after(refused, 1)).toMatch(/connection refused$/);
    });

    it("accepts a client offering no subprotocol (the kubelet's default binary framing)", async () => {
      unregister.push(h.server.containers.onPortForward({ pod: "web" }, 8080, shout));
      const c = expectOpen(
        await openChannels(h.server.url, `${base}/web/portforward?ports=8080`, []),
      );
      expect(c.protocol).toBe("");
      c.send(0, "bye");
      expect(await c.closed).toBe(1000);
      expect(after(c, 0)).toBe("BYE");
    });
  });

  describe("limits", () => {
    it("forwards 128 ports on one WebSocket (channels 0 to 255)", async () => {
      const ports = Array.from({ length: 128 }, (_, i) => 1000 + i);
      const c = expectOpen(
        await openChannels(h.server.url, `${base}/web/portforward?ports=${ports.join(",")}`),
      );
      await waitFor("every port's error channel answers", async () => c.channels.has(255), 10_000);
      expect(c.channels.get(254)?.subarray(0, 2)).toEqual(portBytes(1127));
      c.ws.close();
      await c.closed;
    });

    it("closes the WebSocket with 1009 on a message over 32 MiB (kube's wsstream limit)", async () => {
      unregister.push(
        h.server.containers.onPortForward({ namespace: ns, pod: "web" }, 8080, () => undefined),
      );
      const c = expectOpen(await openChannels(h.server.url, `${base}/web/portforward?ports=8080`));
      c.ws.send(Buffer.alloc(32 * 1024 * 1024 + 2));
      expect(await c.closed).toBe(1009);
    });
  });

  describe("refusals before the upgrade", () => {
    const cases: [string, string, string[], number, RegExp][] = [
      [
        "no ports query",
        "web/portforward",
        ["v4.channel.k8s.io"],
        400,
        /^query parameter "port" is required/,
      ],
      ["an empty port", "web/portforward?ports=", ["v4.channel.k8s.io"], 400, /cannot be empty/],
      [
        "a port that is not a number",
        "web/portforward?ports=http",
        ["v4.channel.k8s.io"],
        400,
        /unable to parse "http" as a port/,
      ],
      ["port 0", "web/portforward?ports=0", ["v4.channel.k8s.io"], 400, /must be > 0/],
      ["port 65536", "web/portforward?ports=65536", ["v4.channel.k8s.io"], 400, /unable to parse/],
      [
        "129 ports (more than the one-byte channels hold)",
        `web/portforward?ports=${Array.from({ length: 129 }, (_, i) => 1000 + i).join(",")}`,
        ["v4.channel.k8s.io"],
        400,
        /^too many ports: 129, at most 128 in one request$/,
      ],
      [
        "an unknown subprotocol",
        "web/portforward?ports=80",
        ["v5.channel.k8s.io"],
        403,
        /unable to negotiate protocol/,
      ],
      [
        "a pod that is not running",
        "pending/portforward?ports=80",
        ["v4.channel.k8s.io"],
        500,
        /pod port-forward\/pending is not running \(phase Pending\)/,
      ],
      [
        "a pod without a node",
        "unbound/portforward?ports=80",
        ["v4.channel.k8s.io"],
        400,
        /pod unbound does not have a host assigned/,
      ],
      [
        "a missing pod",
        "nope/portforward?ports=80",
        ["v4.channel.k8s.io"],
        404,
        /pods \\"nope\\" not found/,
      ],
    ];
    it.each(cases)("%s", async (_what, path, protocols, status, body) => {
      const result = await openChannels(h.server.url, `${base}/${path}`, protocols);
      if (!("refused" in result)) throw new Error("the upgrade was accepted");
      expect(result.status).toBe(status);
      expect(result.body).toMatch(body);
    });
  });

  describe("SPDY/3.1 (kubectl)", () => {
    /** kubectl 1.31+'s tunnel: a WebSocket offering `SPDY/3.1+portforward.k8s.io`. */
    async function openTunnel(
      pod: string,
      protocol = "SPDY/3.1+portforward.k8s.io",
    ): Promise<RawWebSocket> {
      const opened = await openRawWebSocket(h.server.port, `${base}/${pod}/portforward`, protocol);
      if ("refused" in opened) throw new Error(`refused: ${opened.status} ${opened.body}`);
      return opened;
    }

    /** Runs kubectl's exchange for one forwarded connection on `client`. */
    async function exchange(client: SpdyTestClient, requestId: number, port: number, send: string) {
      const { error, data } = client.openPortForward(port, requestId);
      await client.waitForStream(data, "reply", (s) => s.replied);
      client.sendData(data, send);
      const dataDone = await client.waitForStream(data, "FIN", (s) => s.finished);
      const errorDone = await client.waitForStream(error, "FIN", (s) => s.finished);
      return {
        data: dataDone.data.toString(),
        error: errorDone.data.toString(),
        ids: { error, data },
      };
    }

    it("tunnelled in a WebSocket (SPDY/3.1+portforward.k8s.io): pairs by requestid, FINs both streams", async () => {
      unregister.push(h.server.containers.onPortForward({ pod: "web" }, 8080, shout));
      const opened = await openTunnel("web");
      expect(opened.protocol).toBe("SPDY/3.1+portforward.k8s.io");
      const client = new SpdyTestClient((bytes) => opened.send(bytes));
      opened.onMessage((bytes) => client.receive(bytes));
      try {
        const [first, second] = await Promise.all([
          exchange(client, 0, 8080, "first bye"),
          exchange(client, 1, 8080, "second bye"),
        ]);
        expect(first.data).toBe("FIRST BYE");
        expect(second.data).toBe("SECOND BYE");
        expect([first.error, second.error]).toEqual(["", ""]);
        const refused = await exchange(client, 2, 7000, "");
        expect(refused.error).toMatch(
          /^error forwarding port 7000 to pod \S+, uid : failed to connect to localhost:7000/,
        );
        expect(refused.data).toBe("");
        client.sendPing(1);
        await waitFor("the ping echo", async () => client.pings.includes(1));
      } finally {
        client.close();
        opened.close();
      }
    });

    it("over a plain Upgrade: SPDY/3.1 connection, refusing invalid streams", async () => {
      unregister.push(h.server.containers.onPortForward({ pod: "web" }, 8080, shout));
      const { head, client, socket } = await openSpdyUpgrade(
        h.server.port,
        `${base}/web/portforward`,
        "portforward.k8s.io",
      );
      try {
        expect(head).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
        expect(head).toMatch(/\r\nX-Stream-Protocol-Version: portforward.k8s.io/i);
        const ok = await exchange(client, 0, 8080, "plain bye");
        expect(ok.data).toBe("PLAIN BYE");
        const noPort = client.openStream({ streamtype: "data", requestid: "9" });
        const badType = client.openStream({ streamtype: "other", port: "80", requestid: "9" });
        for (const id of [noPort, badType])
          expect(
            (await client.waitForStream(id, "refusal", (s) => s.reset !== undefined)).reset,
          ).toBe(RstStatus.RefusedStream);
      } finally {
        client.close();
        socket.destroy();
      }
    });

    it("refuses a tunnel of another SPDY protocol", async () => {
      const refused = (await openRawWebSocket(
        h.server.port,
        `${base}/web/portforward`,
        "SPDY/3.1+remotecommand.k8s.io",
      )) as RawWebSocketRefusal;
      expect(refused.status).toBe(403);
      expect(refused.body).toMatch(/client supports \[SPDY\/3\.1\+remotecommand\.k8s\.io\]/);
    });

    it("refuses a plain SPDY upgrade without the portforward protocol", async () => {
      const socket = connect(h.server.port, "127.0.0.1");
      let answer = "";
      socket.on("data", (d: Buffer) => (answer += d.toString()));
      socket.write(
        `POST ${base}/web/portforward HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\n` +
          "Upgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: channel.k8s.io\r\n\r\n",
      );
      await new Promise((resolve) => socket.once("close", resolve));
      expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      expect(answer).toMatch(
        /client supports \[channel\.k8s\.io\], server accepts \[portforward\.k8s\.io\]/,
      );
    });

    it("ends the handler's input when kubectl resets the data stream", async () => {
      let ended = false;
      unregister.push(
        h.server.containers.onPortForward({ pod: "web" }, 8080, (stream) => {
          stream.resume();
          stream.on("end", () => {
            ended = true;
            stream.end();
          });
        }),
      );
      const opened = await openTunnel("web");
      const client = new SpdyTestClient((bytes) => opened.send(bytes));
      opened.onMessage((bytes) => client.receive(bytes));
      try {
        const { error, data } = client.openPortForward(8080, 0);
        await client.waitForStream(data, "reply", (s) => s.replied);
        client.sendReset(data, RstStatus.Cancel);
        await waitFor("the handler's end", async () => ended);
        const errorStream = await client.waitForStream(error, "FIN", (s) => s.finished);
        expect(errorStream.data.toString()).toBe("");
      } finally {
        client.close();
        opened.close();
      }
    });
  });
});
