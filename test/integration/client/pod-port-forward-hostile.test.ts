/**
 * Port forwarding against a hostile server: what the client logs of a large error channel,
 * and a message over kube-apiserver's 32 MiB limit.
 */
import { once } from "node:events";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CredentialSource,
  type LogFields,
  type Logger,
  PodStreams,
  RESTClient,
} from "kubekit";
import { encodePortPrefix } from "kubekit/apimachinery";
import type { HostileStreamSession } from "../../support/hostile-stream-server.js";
import { sendOnChannel, startHostileStreamServer } from "../../support/hostile-stream-server.js";

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const anonymous: CredentialSource = {
  kind: "none",
  get: () => Promise.resolve({ headers: {} }),
  invalidate: () => undefined,
};

interface LogLine {
  readonly level: string;
  readonly message: string;
  readonly fields: LogFields | undefined;
}

/**
 * Forwards one local connection to a server running `script` (after the port prefixes on
 * channels 0 and 1) and resolves once the forward closed: the bytes the local connection
 * received and the lines logged at warn.
 */
async function forwardOnce(
  script: (session: HostileStreamSession) => Promise<void>,
): Promise<{ received: Buffer; warnings: LogLine[] }> {
  const server = await startHostileStreamServer(async (session) => {
    const prefix = encodePortPrefix(Number(session.url.searchParams.get("ports")));
    await sendOnChannel(session.ws, 0, prefix);
    await sendOnChannel(session.ws, 1, prefix);
    await script(session);
  });
  cleanups.push(() => server.close());
  const lines: LogLine[] = [];
  const at = (level: string) => (message: string, fields?: LogFields) =>
    void lines.push({ level, message, fields });
  const logger: Logger = {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  };
  const client = new RESTClient(
    { host: server.url, tls: {}, credentials: anonymous, qps: -1, burst: 0 },
    { logger },
  );
  const forward = await new PodStreams(client).portForward("ns", "web", [":8080"], {
    address: "127.0.0.1",
  });
  const local = connect(forward.ports[0]!.local, "127.0.0.1");
  local.on("error", () => undefined);
  const chunks: Buffer[] = [];
  local.on("data", (chunk: Buffer) => chunks.push(chunk));
  await once(local, "close");
  await forward.close();
  return { received: Buffer.concat(chunks), warnings: lines.filter((l) => l.level === "warn") };
}

describe("port-forward against a hostile server", () => {
  it("logs one warn line with a few KiB of a large error channel and its size", async () => {
    const { received, warnings } = await forwardOnce(async ({ ws }) => {
      for (let i = 0; i < 300; i++) await sendOnChannel(ws, 1, Buffer.alloc(1024, "e"));
      ws.close(1000);
    });
    expect(received.length).toBe(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/^port-forward: e{4096}… \(307200 bytes in all\)$/);
    expect(warnings[0]!.fields).toMatchObject({ namespace: "ns", pod: "web", remotePort: 8080 });
  });

  it("logs a short error text whole", async () => {
    const { warnings } = await forwardOnce(async ({ ws }) => {
      await sendOnChannel(ws, 1, Buffer.from("error forwarding port 8080: "));
      await sendOnChannel(ws, 1, Buffer.from("connection refused"));
      ws.close(1000);
    });
    expect(warnings.map((w) => w.message)).toEqual([
      "port-forward: error forwarding port 8080: connection refused",
    ]);
  });

  it("ends the connection on a message over 32 MiB, delivering none of it", async () => {
    const { received, warnings } = await forwardOnce(async ({ ws }) => {
      await sendOnChannel(ws, 0, Buffer.from("before "));
      await sendOnChannel(ws, 0, Buffer.alloc(32 * 1024 * 1024, "d"));
      ws.close(1000);
    });
    expect(received.toString()).toBe("before ");
    expect(warnings.map((w) => w.message)).toEqual([
      "port-forward: connection to the pod failed: Max payload size exceeded",
    ]);
  });
});
