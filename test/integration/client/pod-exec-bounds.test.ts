/**
 * exec against a hostile server: what the client keeps of the error channel, how much of
 * what the server sent its errors quote, and the size of a message it accepts.
 */
import { text } from "node:stream/consumers";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CredentialSource,
  noopLogger,
  PodStreams,
  RESTClient,
  StreamErrorChannelTooLargeError,
  StreamProtocolError,
} from "kubekit";
import type { HostileStreamSession } from "../../support/hostile-stream-server.js";
import { sendOnChannel, startHostileStreamServer } from "../../support/hostile-stream-server.js";
import { rejectionOf } from "../../support/rejection.js";

/** kube-apiserver's limit: 32 MiB per message, the channel byte included. */
const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
const ERROR_CHANNEL = 3;

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const anonymous: CredentialSource = {
  kind: "none",
  get: () => Promise.resolve({ headers: {} }),
  invalidate: () => undefined,
};

/** A session of `command` against a server running `script`. */
async function execAgainst(
  script: (session: HostileStreamSession) => Promise<void>,
): Promise<Awaited<ReturnType<PodStreams["exec"]>>> {
  const server = await startHostileStreamServer(script);
  cleanups.push(() => server.close());
  const client = new RESTClient(
    { host: server.url, tls: {}, credentials: anonymous, qps: -1, burst: 0 },
    { logger: noopLogger },
  );
  return new PodStreams(client).exec("ns", "p", { command: ["x"] });
}

describe("exec's error channel", () => {
  it("keeps 64 KiB, counts the rest and rejects with StreamErrorChannelTooLargeError", async () => {
    const session = await execAgainst(async ({ ws }) => {
      // 130 messages of 1 KiB, then one of 100 KiB: 230 KiB in all.
      for (let i = 0; i < 130; i++) await sendOnChannel(ws, ERROR_CHANNEL, Buffer.alloc(1024, "a"));
      await sendOnChannel(ws, ERROR_CHANNEL, Buffer.alloc(100 * 1024, "b"));
      ws.close(1000);
    });
    session.stdout!.resume();
    session.stderr!.resume();
    const err = await rejectionOf(session.status);
    expect(err).toBeInstanceOf(StreamErrorChannelTooLargeError);
    expect(err).toBeInstanceOf(StreamProtocolError);
    expect(err).toMatchObject({
      name: "StreamErrorChannelTooLargeError",
      protocol: "v5.channel.k8s.io",
      channel: 3,
      keptBytes: 64 * 1024,
      totalBytes: 230 * 1024,
    });
    const message = (err as Error).message;
    expect(message).toMatch(
      /^v5\.channel\.k8s\.io stream protocol error: error channel 3 carried 235520 bytes, more than the 65536 kept; it starts with "a{4096}"… \(235520 bytes in all\)$/,
    );
  });

  it("quotes a few KiB of content that is not a Status, with its size", async () => {
    const session = await execAgainst(async ({ ws }) => {
      await sendOnChannel(ws, ERROR_CHANNEL, Buffer.alloc(60 * 1024, "z"));
      ws.close(1000);
    });
    session.stdout!.resume();
    session.stderr!.resume();
    const err = await rejectionOf(session.status);
    expect(err).toBeInstanceOf(StreamProtocolError);
    expect(err).not.toBeInstanceOf(StreamErrorChannelTooLargeError);
    const message = (err as Error).message;
    expect(message.length).toBeLessThan(4300);
    expect(message).toMatch(/ in "z{4096}"… \(61440 bytes in all\)$/);
  });

  it("decodes a Status that came in many small messages", async () => {
    const status = JSON.stringify({
      status: "Failure",
      reason: "NonZeroExitCode",
      details: { causes: [{ reason: "ExitCode", message: "42" }] },
    });
    const session = await execAgainst(async ({ ws }) => {
      for (const byte of Buffer.from(status))
        await sendOnChannel(ws, ERROR_CHANNEL, Buffer.of(byte));
      ws.close(1000);
    });
    session.stdout!.resume();
    session.stderr!.resume();
    expect((await session.status).exitCode).toBe(42);
  });
});

describe("exec's message size", () => {
  it("accepts a message of 32 MiB and refuses a longer one with StreamProtocolError", async () => {
    const largest = Buffer.alloc(MAX_MESSAGE_BYTES - 1, "o"); // plus the channel byte
    const accepted = await execAgainst(async ({ ws }) => {
      await sendOnChannel(ws, 1, largest);
      await sendOnChannel(ws, ERROR_CHANNEL, Buffer.from('{"status":"Success"}'));
      ws.close(1000);
    });
    accepted.stderr!.resume();
    const [stdout, result] = await Promise.all([text(accepted.stdout!), accepted.status]);
    expect(stdout.length).toBe(MAX_MESSAGE_BYTES - 1);
    expect(result.exitCode).toBe(0);

    const refused = await execAgainst(async ({ ws }) => {
      await sendOnChannel(ws, 1, Buffer.alloc(MAX_MESSAGE_BYTES, "o"));
      await sendOnChannel(ws, ERROR_CHANNEL, Buffer.from('{"status":"Success"}'));
      ws.close(1000);
    });
    refused.stderr!.resume();
    const [refusedStdout, err] = await Promise.all([
      text(refused.stdout!),
      rejectionOf(refused.status),
    ]);
    expect(refusedStdout).toBe("");
    expect(err).toBeInstanceOf(StreamProtocolError);
    expect((err as Error).message).toBe(
      "v5.channel.k8s.io stream protocol error: a message longer than 33554432 bytes, the most a message may carry",
    );
  });
});
