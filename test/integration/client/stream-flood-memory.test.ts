/**
 * Memory bounds of the client's upgraded connections: a peer process floods an error
 * channel with 144 MiB while the client runs in a child process with a 128 MiB heap. Kept
 * whole, the flood becomes a 144 M-character string (the heap overflows and the process
 * dies); bounded, the client keeps 64 KiB and reports a few KiB.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runChildScript } from "../../support/child-script.js";
import type { FloodPeer, FloodSpec } from "../../support/flood-peer.js";
import { startFloodPeer } from "../../support/flood-peer.js";

const FLOOD_BYTES = 144 * 1024 * 1024;
const MESSAGE_BYTES = 4 * 1024 * 1024;
/** A 128 MiB heap, and time for the flood on a loaded machine. */
const CHILD_OPTIONS = { nodeOptions: ["--max-old-space-size=128"], timeoutMs: 60_000 };
const TEST_TIMEOUT_MS = 90_000;
const CLIENT_MODULE = "packages/kubekit/src/index.ts";

const peers: FloodPeer[] = [];

afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

async function floodPeer(spec: Omit<FloodSpec, "totalBytes" | "messageBytes">): Promise<string> {
  const peer = await startFloodPeer({
    ...spec,
    totalBytes: FLOOD_BYTES,
    messageBytes: MESSAGE_BYTES,
  });
  peers.push(peer);
  return peer.url;
}

/** The child's client: anonymous, unthrottled, its warn lines kept in `warnings`. */
function clientSetup(url: string): string {
  return `
const warnings = [];
const logger = { debug() {}, info() {}, error() {}, warn: (message) => void warnings.push(message) };
const credentials = { kind: "none", get: async () => ({ headers: {} }), invalidate() {} };
const config = { host: ${JSON.stringify(url)}, tls: {}, credentials, qps: -1, burst: 0 };
const streams = new PodStreams(new RESTClient(config, { logger }));
`;
}

describe("an error channel flood against a client with a 128 MiB heap", () => {
  it(
    "port-forward: the connection is reset and one short warn line tells the size",
    async () => {
      const url = await floodPeer({ channel: 1, portPrefix: true });
      const child = runChildScript(
        CLIENT_MODULE,
        ["PodStreams", "RESTClient"],
        `${clientSetup(url)}
const { connect } = await import("node:net");
const forward = await streams.portForward("ns", "web", [":8080"], { address: "127.0.0.1" });
const socket = connect(forward.ports[0].local, "127.0.0.1");
socket.on("error", () => undefined);
await new Promise((resolve) => socket.once("close", resolve));
await forward.close();
console.log(JSON.stringify({ warnings }));
`,
        CHILD_OPTIONS,
      );
      expect(child.status).toBe(0);
      const { warnings } = JSON.parse(child.stdout) as { warnings: string[] };
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.length).toBeLessThan(4200);
      expect(warnings[0]).toMatch(/^port-forward: x+… \(150994944 bytes in all\)$/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "exec: the status rejects with StreamErrorChannelTooLargeError of a few KiB",
    async () => {
      const url = await floodPeer({ channel: 3, portPrefix: false });
      const child = runChildScript(
        CLIENT_MODULE,
        ["PodStreams", "RESTClient"],
        `${clientSetup(url)}
const session = await streams.exec("ns", "web", { command: ["flood"] });
session.stdout.resume();
session.stderr.resume();
const error = await session.status.then(() => undefined, (err) => err);
const { name, channel, keptBytes, totalBytes, message } = error;
console.log(JSON.stringify({ name, channel, keptBytes, totalBytes, messageLength: message.length }));
`,
        CHILD_OPTIONS,
      );
      expect(child.status).toBe(0);
      const error = JSON.parse(child.stdout) as Record<string, unknown>;
      expect(error).toMatchObject({
        name: "StreamErrorChannelTooLargeError",
        channel: 3,
        keptBytes: 64 * 1024,
        totalBytes: FLOOD_BYTES,
      });
      expect(error["messageLength"]).toBeLessThan(4400);
    },
    TEST_TIMEOUT_MS,
  );
});
