/**
 * The embedded server's streaming under floods and bombs, in a child process with a 128 MiB
 * heap (`--max-old-space-size=128`) attacked from this process: a PING flood from a client
 * that never reads, a port-forward data stream whose error stream never comes, exec stdin
 * sent before the session can start, and a header block followed by a zlib bomb on
 * connection after connection. The server must survive each (no exit), keep answering
 * `/version` during and after it, and keep its RSS within 120 MiB of what it was before.
 *
 * Latency is asserted with a generous bound only (2 s: the machine running the tests is
 * shared); `KUBEKIT_REPORT_FIGURES=1` prints the peak RSS and `/version` latencies observed.
 */
import { once } from "node:events";
import type { Socket } from "node:net";
import { constants, createDeflate } from "node:zlib";
import { describe, expect, it } from "vitest";
import { SPDY_HEADER_DICTIONARY } from "../../../packages/apiserver/src/streaming/spdy/spdy-dictionary.js";
import {
  encodeControlFrame,
  encodeDataFrame,
  SpdyFrameType,
  uint32Payload,
} from "../../../packages/apiserver/src/streaming/spdy/spdy-frames.js";
import { Child, PACKAGE_ROOT } from "../../e2e/support/child-process.js";
import { openSpdyUpgrade } from "../../support/spdy-test-client.js";

const HEAP_MIB = 128;
const ATTACK_MS = 5_000;
/** RSS growth allowed during an attack (buffers live outside the heap the flag bounds). */
const MAX_RSS_GROWTH_MIB = 120;
const MIB = 1024 * 1024;
const PODS = "/api/v1/namespaces/default/pods";

/** The server's script: a Running pod whose port 8080 accepts and never reads; RSS every 100 ms. */
const SERVER_SCRIPT = `
import { ApiServer } from ${JSON.stringify(`${PACKAGE_ROOT}/packages/apiserver/src/index.ts`)};
const server = await ApiServer.start();
server.containers.onPortForward({ namespace: "default", pod: "web" }, 8080, () => undefined);
const pods = server.url + ${JSON.stringify(PODS)};
const json = (type, body) => ({ method: type === "json" ? "POST" : "PATCH",
  headers: { "content-type": type === "json" ? "application/json" : "application/merge-patch+json" },
  body: JSON.stringify(body) });
await fetch(pods, json("json", { metadata: { name: "web" },
  spec: { nodeName: "node-1", containers: [{ name: "app", image: "busybox" }] } }));
await fetch(pods + "/web/status", json("merge", { status: { phase: "Running",
  containerStatuses: [{ name: "app", ready: true, restartCount: 0, image: "busybox", imageID: "",
    state: { running: {} } }] } }));
console.log("url " + server.url);
setInterval(() => console.log("rss " + process.memoryUsage().rss), 100);
`;

interface Attacked {
  readonly child: Child;
  readonly port: number;
}

async function startServerChild(): Promise<Attacked> {
  const child = new Child("server", [
    `--max-old-space-size=${HEAP_MIB}`,
    "--import",
    "tsx",
    "--input-type=module",
    "-e",
    SERVER_SCRIPT,
  ]);
  const url = await child.waitForLine("the url", (line) => line.match(/^url (\S+)$/)?.[1], 30_000);
  return { child, port: Number(new URL(url).port) };
}

/** The peak RSS the child reported from line `from` on, in MiB. */
function peakRssMib(child: Child, from: number): number {
  const values = child.stdoutLines
    .slice(from)
    .map((line) => Number(/^rss (\d+)$/.exec(line)?.[1] ?? 0));
  return Math.round(Math.max(0, ...values) / MIB);
}

/** Writes `chunk` until `totalBytes` went out or `ATTACK_MS` passed (a blocked socket waits). */
async function flood(socket: Socket, next: () => Buffer, totalBytes: number): Promise<number> {
  const deadline = Date.now() + ATTACK_MS;
  let sent = 0;
  while (sent < totalBytes && Date.now() < deadline && !socket.destroyed) {
    const chunk = next();
    sent += chunk.length;
    if (!socket.write(chunk)) {
      const left = deadline - Date.now();
      await Promise.race([
        once(socket, "drain"),
        once(socket, "close"),
        new Promise((resolve) => setTimeout(resolve, Math.max(0, left)).unref()),
      ]);
    }
  }
  return sent;
}

/** Times `/version` every 100 ms while `attack` runs; the latencies in ms. */
async function timedVersions(port: number, attack: Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let done = false;
  void attack.finally(() => (done = true));
  while (!done) {
    const start = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/version`, {
      signal: AbortSignal.timeout(20_000),
    });
    await res.text();
    latencies.push(performance.now() - start);
    await Promise.race([attack, new Promise((resolve) => setTimeout(resolve, 100))]);
  }
  return latencies;
}

/** Runs `attack` against a fresh child server and checks that it survived, responsive. */
async function survive(what: string, attack: (port: number) => Promise<number>): Promise<void> {
  const { child, port } = await startServerChild();
  await child.waitForLine("an RSS sample", (line) => (line.startsWith("rss ") ? true : undefined));
  const from = child.stdoutLines.length;
  const baseline = peakRssMib(child, 0);
  const running = attack(port);
  const latencies = await timedVersions(port, running);
  const sent = await running;
  const after = await fetch(`http://127.0.0.1:${port}/version`);
  expect(after.status, child.output()).toBe(200);
  expect(child.exit, child.output()).toBeUndefined();
  const worst = Math.round(Math.max(...latencies));
  if (process.env["KUBEKIT_REPORT_FIGURES"])
    console.info(
      `${what}: ${Math.round(sent / MIB)} MiB sent in ${ATTACK_MS} ms at most; RSS ${baseline} MiB ` +
        `before, peak ${peakRssMib(child, from)} MiB; /version ` +
        `median ${Math.round(latencies.sort((a, b) => a - b)[latencies.length >> 1] ?? 0)} ms, worst ${worst} ms`,
    );
  expect(worst, `worst /version latency during ${what}`).toBeLessThan(2_000);
  expect(peakRssMib(child, from) - baseline, `RSS growth during ${what}`).toBeLessThan(
    MAX_RSS_GROWTH_MIB,
  );
  child.kill("SIGKILL");
}

/** A valid empty header block starting a zlib stream, then `zerosMib` MiB of zeros. */
async function headerBomb(zerosMib: number): Promise<Buffer> {
  const deflate = createDeflate({ dictionary: SPDY_HEADER_DICTIONARY, level: 1 });
  const out: Buffer[] = [];
  deflate.on("data", (chunk: Buffer) => out.push(chunk));
  deflate.write(Buffer.from([0, 0, 0, 0]));
  const zeros = Buffer.alloc(MIB);
  for (let i = 0; i < zerosMib; i++) deflate.write(zeros);
  await new Promise<void>((resolve) => deflate.flush(constants.Z_SYNC_FLUSH, () => resolve()));
  await new Promise((resolve) => setImmediate(resolve));
  deflate.destroy();
  return Buffer.concat(out);
}

describe(`streaming floods and bombs against a server with a ${HEAP_MIB} MiB heap`, () => {
  it("a PING flood from a client that never reads (86 MiB of PINGs)", async () => {
    await survive("PING flood", async (port) => {
      const { socket } = await openSpdyUpgrade(
        port,
        `${PODS}/web/portforward`,
        "portforward.k8s.io",
      );
      socket.removeAllListeners("data");
      socket.pause(); // never reads the answers
      const pings = Buffer.concat(
        Array.from({ length: 87_381 }, (_, i) =>
          encodeControlFrame(SpdyFrameType.Ping, 0, uint32Payload(2 * i + 1)),
        ),
      );
      const sent = await flood(socket, () => pings, 86 * MIB);
      socket.destroy();
      return sent;
    });
  }, 60_000);

  it("a port-forward data stream whose error stream never comes (300 MiB)", async () => {
    await survive("unpaired data stream", async (port) => {
      const { client, socket } = await openSpdyUpgrade(
        port,
        `${PODS}/web/portforward`,
        "portforward.k8s.io",
      );
      const id = client.openStream({ streamtype: "data", port: "8080", requestid: "1" });
      const data = encodeDataFrame(id, 0, Buffer.alloc(MIB - 8, 1));
      const sent = await flood(socket, () => data, 300 * MIB);
      socket.destroy();
      return sent;
    });
  }, 60_000);

  it("exec stdin sent before the session can start (300 MiB)", async () => {
    await survive("early exec stdin", async (port) => {
      const { client, socket } = await openSpdyUpgrade(
        port,
        `${PODS}/web/exec?command=cat&stdin=true&stdout=true&stderr=true`,
        "v4.channel.k8s.io",
      );
      const id = client.openStream({ streamtype: "stdin" });
      const data = encodeDataFrame(id, 0, Buffer.alloc(MIB - 8, 2));
      const sent = await flood(socket, () => data, 300 * MIB);
      socket.destroy();
      return sent;
    });
  }, 60_000);

  it("header blocks followed by a zlib bomb, on four connections at a time", async () => {
    const bomb = await headerBomb(1024); // ~1 MiB compressed, 1 GiB inflated
    await survive("header bomb", async (port) => {
      const deadline = Date.now() + ATTACK_MS;
      let sent = 0;
      const connection = async (): Promise<void> => {
        while (Date.now() < deadline) {
          const { socket } = await openSpdyUpgrade(
            port,
            `${PODS}/web/portforward`,
            "portforward.k8s.io",
          );
          const payload = Buffer.concat([uint32Payload(1, 0), Buffer.alloc(2), bomb]);
          socket.write(encodeControlFrame(SpdyFrameType.SynStream, 0, payload));
          sent += payload.length;
          await once(socket, "close");
        }
      };
      await Promise.all([connection(), connection(), connection(), connection()]);
      return sent;
    });
  }, 60_000);
});
