/**
 * A seeded fuzzer of the server's WebSocket channel protocols (`v5.channel.k8s.io` and
 * `v4.channel.k8s.io` exec, `v4.channel.k8s.io` port-forward): sequences of messages on
 * random channels (stdin, the server's own output and error channels, resize with valid and
 * garbage JSON, v5's close channel with odd payloads, channels no protocol defines), empty,
 * text and large messages, closed at a random point. Every connection must end within a
 * bounded time once the client closes it, every close code the server sends must be a
 * WebSocket one, the server must answer `/version` after each connection, and its heap must
 * not keep what the connections held.
 *
 * The seed and iteration count are fixed so a failure reproduces; `KUBEKIT_FUZZ_SEED` and
 * `KUBEKIT_FUZZ_ITERATIONS` run other sequences locally.
 */
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { retainedHeapBytes } from "../../support/garbage-collection.js";
import { SeededRandom } from "../../support/seeded-random.js";
import { createNamespace, eventually, useServer } from "../../support/server-test-helpers.js";

const SEED = Number(process.env["KUBEKIT_FUZZ_SEED"] ?? 20_261_128);
const ITERATIONS = Number(process.env["KUBEKIT_FUZZ_ITERATIONS"] ?? 60);
const NS = "ws-fuzz";

/** Close codes a WebSocket peer may send (RFC 6455, 7.4.1), and none (1005) or abnormal (1006). */
const WEBSOCKET_CLOSE_CODES = new Set([1000, 1001, 1002, 1003, 1005, 1006, 1007, 1008, 1009, 1011]);

function fuzzMessage(random: SeededRandom): { data: Buffer | string; binary: boolean } {
  switch (random.int(0, 8)) {
    case 0:
      return { data: Buffer.concat([Buffer.from([0]), Buffer.from("echo me\n")]), binary: true };
    case 1:
      return {
        data: Buffer.concat([
          Buffer.from([4]),
          Buffer.from(
            random.pick([
              '{"Width":80,"Height":24}',
              '{"Width":-1}',
              "{not json",
              '{"Width":1e400,"Height":"x"}',
              "[]",
              "",
            ]),
          ),
        ]),
        binary: true,
      };
    case 2:
      return { data: Buffer.from([255, random.int(0, 256), random.int(0, 256)]), binary: true };
    case 3:
      return { data: Buffer.alloc(0), binary: true };
    case 4:
      return { data: "a text message", binary: false };
    case 5:
      return {
        data: Buffer.concat([
          Buffer.from([random.int(0, 256)]),
          Buffer.alloc(random.int(0, 300_000), random.int(0, 256)),
        ]),
        binary: true,
      };
    default:
      return { data: Buffer.from([random.int(0, 256)]), binary: true };
  }
}

describe("WebSocket channel fuzzing", () => {
  const h = useServer();

  it(`ends every connection and keeps serving (seed ${SEED}, ${ITERATIONS} connections)`, async () => {
    await createNamespace(h.client, NS);
    const pod = await h.client.post(`/api/v1/namespaces/${NS}/pods`, {
      metadata: { name: "web" },
      spec: { nodeName: "node-1", containers: [{ name: "app", image: "busybox" }] },
    });
    expect(pod.status, pod.text).toBe(201);
    const status = await h.client.patch(
      `/api/v1/namespaces/${NS}/pods/web/status`,
      {
        status: {
          phase: "Running",
          containerStatuses: [
            {
              name: "app",
              ready: true,
              restartCount: 0,
              image: "busybox",
              imageID: "",
              state: { running: {} },
            },
          ],
        },
      },
      "application/merge-patch+json",
    );
    expect(status.status, status.text).toBe(200);
    const base = h.server.url.replace(/^http/, "ws") + `/api/v1/namespaces/${NS}/pods/web`;
    const targets: [string, string][] = [
      [`${base}/exec?command=cat&stdin=true&stdout=true&stderr=true`, "v5.channel.k8s.io"],
      [`${base}/exec?command=sh&stdin=true&stdout=true&tty=true`, "v4.channel.k8s.io"],
      [`${base}/portforward?ports=8080,9090`, "v4.channel.k8s.io"],
    ];
    const random = new SeededRandom(SEED);
    const before = retainedHeapBytes();
    for (let i = 0; i < ITERATIONS; i++) {
      const [url, protocol] = random.pick(targets);
      const ws = new WebSocket(url, [protocol]);
      ws.on("error", () => undefined);
      let closeCode: number | undefined;
      ws.once("close", (code) => (closeCode = code));
      await eventually(`connection ${i} open or closed`, async () =>
        ws.readyState === WebSocket.OPEN || closeCode !== undefined ? true : undefined,
      );
      const count = random.int(0, 20);
      for (let m = 0; m < count && ws.readyState === WebSocket.OPEN; m++) {
        const { data, binary } = fuzzMessage(random);
        ws.send(data, { binary });
      }
      if (ws.readyState === WebSocket.OPEN) ws.close(random.pick([1000, 1001, 4000]));
      const code = await eventually(`connection ${i} closed`, async () => closeCode, 10_000);
      expect(WEBSOCKET_CLOSE_CODES.has(code) || code === 4000, `close code ${code}`).toBe(true);
      expect((await h.client.get("/version")).status).toBe(200);
    }
    expect(retainedHeapBytes() - before).toBeLessThan(32 * 1024 * 1024);
  }, 60_000);
});
