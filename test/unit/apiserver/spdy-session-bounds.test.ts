import { Duplex, PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import {
  encodeControlFrame,
  RstStatus,
  SpdyFrameType,
  uint32Payload,
} from "../../../packages/apiserver/src/streaming/spdy/spdy-frames.js";
import { SpdySession } from "../../../packages/apiserver/src/streaming/spdy/spdy-session.js";
import type { SpdyStream } from "../../../packages/apiserver/src/streaming/spdy/spdy-stream.js";
import { eventually, waitFor } from "../../support/server-test-helpers.js";
import { SpdyTestClient } from "../../support/spdy-test-client.js";

/**
 * What a SPDY session holds whatever its peer sends: answers to a PING flood wait for the
 * peer to read (the transport is paused meanwhile), streams get windows reopened as they are
 * read, and unread data, open streams and their headers are bounded per stream and per session.
 */

const sessions: SpdySession[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
});

/** A session over an in-memory transport with a test client that reads everything. */
function start(onStream: (stream: SpdyStream) => void = () => undefined): {
  session: SpdySession;
  client: SpdyTestClient;
  accepted: SpdyStream[];
} {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const client = new SpdyTestClient((bytes) => toServer.write(bytes));
  toClient.on("data", (bytes: Buffer) => client.receive(bytes));
  const accepted: SpdyStream[] = [];
  const session = new SpdySession(Duplex.from({ readable: toServer, writable: toClient }), {
    onStream: (stream) => {
      onStream(stream);
      accepted.push(stream);
    },
  });
  sessions.push(session);
  return { session, client, accepted };
}

/**
 * A transport whose peer reads nothing until {@link peerReads}: every write stays pending, as
 * on a socket whose peer stopped reading. `written` counts what the session wrote.
 */
class StalledPeerTransport extends Duplex {
  written = 0;
  #reading = false;
  readonly #held: (() => void)[] = [];

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.written += chunk.length;
    if (this.#reading) callback();
    else this.#held.push(callback);
  }

  /** The peer starts reading: every pending write completes, and later ones at once. */
  peerReads(): void {
    this.#reading = true;
    for (const callback of this.#held.splice(0)) callback();
  }
}

const PING_FRAME_BYTES = 12;

describe("SpdySession under a PING flood", () => {
  it("stops reading while its answers wait for a peer that does not read, then answers every ping", async () => {
    const transport = new StalledPeerTransport();
    const session = new SpdySession(transport, { onStream: () => undefined });
    sessions.push(session);
    const count = 20_000;
    const pings = Buffer.concat(
      Array.from({ length: count }, (_, i) =>
        encodeControlFrame(SpdyFrameType.Ping, 0, uint32Payload(2 * i + 1)),
      ),
    );
    for (let offset = 0; offset < pings.length; offset += 16 * 1024)
      transport.push(pings.subarray(offset, offset + 16 * 1024));
    await waitFor("the session paused its transport", async () => transport.isPaused());
    // At most the transport's buffer and the pings of the chunk being handled are answered.
    expect(transport.written).toBeLessThan(64 * 1024);
    expect(transport.readableLength).toBeGreaterThan(0);
    transport.peerReads();
    await waitFor(
      "every ping answered",
      async () => transport.written === count * PING_FRAME_BYTES,
      10_000,
    );
    expect(transport.isPaused()).toBe(false);
  });
});

describe("SpdySession flow control", () => {
  it("reopens a stream's and the session's window with WINDOW_UPDATE as the reader consumes", async () => {
    const h = start((stream) => stream.resume());
    const id = h.client.openStream({});
    await eventually("the stream", async () => h.accepted[0]);
    for (let i = 0; i < 4; i++) h.client.sendData(id, Buffer.alloc(16 * 1024, i));
    await waitFor("both windows reopened", async () => {
      const sum = (stream: number): number =>
        h.client.windowUpdates.filter(([s]) => s === stream).reduce((n, [, d]) => n + d, 0);
      return sum(id) >= 32 * 1024 && sum(0) >= 32 * 1024;
    });
    expect(h.client.windowUpdates.every(([, delta]) => delta > 0 && delta <= 64 * 1024)).toBe(true);
  });

  it("sends no WINDOW_UPDATE for data nobody reads, and resets a stream holding over 1 MiB unread", async () => {
    const h = start(); // never reads
    const id = h.client.openStream({ streamtype: "data" });
    const stream = await eventually("the stream", async () => h.accepted[0]);
    for (let i = 0; i < 20; i++) h.client.sendData(id, Buffer.alloc(64 * 1024));
    const seen = await h.client.waitForStream(id, "RST", (s) => s.reset !== undefined);
    expect(seen.reset).toBe(RstStatus.FlowControlError);
    expect(stream.destroyed).toBe(true);
    expect(h.client.windowUpdates.filter(([s]) => s === id)).toEqual([]);
    expect(h.session.openStreams).toBe(0);
  });

  it("bounds what the session's unread streams hold together (4 MiB): later data resets its stream", async () => {
    const h = start(); // never reads: streams whose partner never comes
    const ids = Array.from({ length: 8 }, () => h.client.openStream({ streamtype: "data" }));
    await waitFor("the streams", async () => h.accepted.length === 8);
    for (const id of ids)
      for (let i = 0; i < 12; i++) h.client.sendData(id, Buffer.alloc(64 * 1024));
    await waitFor("some streams reset", async () =>
      ids.some((id) => h.client.streams.get(id)?.reset === RstStatus.FlowControlError),
    );
    const held = h.accepted.reduce((n, s) => n + (s.destroyed ? 0 : s.readableLength), 0);
    expect(held).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(h.accepted.filter((s) => !s.destroyed).length).toBeGreaterThan(0);
  });

  it("refuses streams past 512 open ones (RST_STREAM REFUSED_STREAM)", async () => {
    const h = start();
    const ids = Array.from({ length: 513 }, () => h.client.openStream({}));
    const last = await h.client.waitForStream(ids[512]!, "RST", (s) => s.reset !== undefined);
    expect(last.reset).toBe(RstStatus.RefusedStream);
    expect(h.accepted.length).toBe(512);
    expect(h.client.streams.get(ids[511]!)?.reset).toBeUndefined();
  });

  it("refuses a stream whose headers would take the session past its budget", async () => {
    const h = start();
    const big = "x".repeat(900 * 1024);
    const ids = Array.from({ length: 6 }, () => h.client.openStream({ big }));
    await waitFor("a refusal", async () =>
      ids.some((id) => h.client.streams.get(id)?.reset === RstStatus.RefusedStream),
    );
    expect(h.accepted.length).toBeLessThanOrEqual(4);
  });
});
