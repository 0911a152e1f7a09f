import { Duplex, PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import {
  GoAwayStatus,
  RstStatus,
  SpdyFrameType,
} from "../../../packages/apiserver/src/streaming/spdy/spdy-frames.js";
import { SpdySession } from "../../../packages/apiserver/src/streaming/spdy/spdy-session.js";
import type { SpdyStream } from "../../../packages/apiserver/src/streaming/spdy/spdy-stream.js";
import { eventually, waitFor } from "../../support/server-test-helpers.js";
import { SpdyTestClient } from "../../support/spdy-test-client.js";

interface Harness {
  session: SpdySession;
  client: SpdyTestClient;
  accepted: SpdyStream[];
  closed: { error: Error | undefined } | undefined;
  toServer: PassThrough;
}

const harnesses: Harness[] = [];

/** A session over an in-memory transport, with a test client on the other end. */
function start(onStream: (stream: SpdyStream) => void = () => undefined): Harness {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const client = new SpdyTestClient((bytes) => toServer.write(bytes));
  toClient.on("data", (bytes: Buffer) => client.receive(bytes));
  const harness = { client, accepted: [], closed: undefined, toServer } as unknown as Harness;
  harness.session = new SpdySession(Duplex.from({ readable: toServer, writable: toClient }), {
    onStream: (stream) => {
      onStream(stream);
      harness.accepted.push(stream);
    },
    onClose: (error) => (harness.closed = { error }),
  });
  harnesses.push(harness);
  return harness;
}

afterEach(() => {
  for (const h of harnesses.splice(0)) {
    h.session.close();
    h.client.close();
  }
});

const readAll = (stream: SpdyStream): Promise<string> =>
  new Promise((resolve) => {
    let text = "";
    stream.on("data", (d: Buffer) => (text += d.toString()));
    stream.once("end", () => resolve(text));
  });

describe("SpdySession", () => {
  it("hands a peer's stream over with its headers and answers SYN_REPLY before any data", async () => {
    const h = start((stream) => stream.write("written while accepting"));
    const id = h.client.openStream({ streamtype: "data", port: "80" });
    const stream = await eventually("the stream", async () => h.accepted[0]);
    expect(stream.id).toBe(id);
    expect(stream.header("streamtype")).toBe("data");
    expect(stream.header("port")).toBe("80");
    const seen = await h.client.waitForStream(id, "data", (s) => s.data.length > 0);
    expect(seen.replied).toBe(true);
    expect(seen.data.toString()).toBe("written while accepting");
  });

  it("carries data both ways with half closes (FLAG_FIN)", async () => {
    const h = start();
    const id = h.client.openStream({ a: "b" });
    const stream = await eventually("the stream", async () => h.accepted[0]);
    const received = readAll(stream);
    h.client.sendData(id, "ping ");
    h.client.sendData(id, "pong", true);
    expect(await received).toBe("ping pong");
    stream.end("bye");
    const seen = await h.client.waitForStream(id, "FIN", (s) => s.finished);
    expect(seen.data.toString()).toBe("bye");
    await waitFor("the stream forgotten", async () => h.session.openStreams === 0);
    expect(seen.reset).toBeUndefined();
  });

  it("echoes the client's (odd) pings and ignores even ones", async () => {
    const h = start();
    h.client.sendPing(1);
    h.client.sendPing(2);
    h.client.sendPing(3);
    await waitFor("two echoes", async () => h.client.pings.length === 2);
    expect(h.client.pings).toEqual([1, 3]);
  });

  it("refuses a stream its handler throws for, and a stream id that does not increase", async () => {
    const h = start((stream) => {
      if (stream.header("bad") !== undefined) throw new Error("no");
    });
    const refused = h.client.openStream({ bad: "1" });
    expect((await h.client.waitForStream(refused, "RST", (s) => s.reset !== undefined)).reset).toBe(
      RstStatus.RefusedStream,
    );
    const good = h.client.openStream({ good: "1" });
    await h.client.waitForStream(good, "reply", (s) => s.replied);
    // A SYN_STREAM reusing an old id is a protocol error for that stream.
    const payload = Buffer.from([0, 0, 0, good, 0, 0, 0, 0, 0, 0]);
    const block = Buffer.from([0x00, 0x04, 0x00, 0xfb, 0xff, 0, 0, 0, 0]); // a stored block: zero headers
    h.client.sendControl(SpdyFrameType.SynStream, 0, Buffer.concat([payload, block]));
    await waitFor(
      "the protocol error",
      async () => h.client.streams.get(good)?.reset === RstStatus.ProtocolError,
    );
    expect(h.accepted.map((s) => s.id)).toEqual([good]);
  });

  it("ends the readable side on the peer's RST_STREAM and drops later writes", async () => {
    const h = start();
    const id = h.client.openStream({});
    const stream = await eventually("the stream", async () => h.accepted[0]);
    const received = readAll(stream);
    h.client.sendData(id, "partial");
    h.client.sendReset(id, RstStatus.Cancel);
    expect(await received).toBe("partial");
    expect(stream.resetByPeer).toBe(true);
    stream.end("too late");
    await waitFor("the stream closed", async () => stream.destroyed);
    expect(h.client.streams.get(id)!.data.length).toBe(0);
    expect(h.client.streams.get(id)!.reset).toBeUndefined(); // no RST answered to a RST
  });

  it("resets (CANCEL) a stream destroyed before both sides finished", async () => {
    const h = start();
    const id = h.client.openStream({});
    const stream = await eventually("the stream", async () => h.accepted[0]);
    stream.destroy();
    expect((await h.client.waitForStream(id, "RST", (s) => s.reset !== undefined)).reset).toBe(
      RstStatus.Cancel,
    );
  });

  it("close() sends GOAWAY (OK), resets open streams and reports the end", async () => {
    const h = start();
    const id = h.client.openStream({});
    await h.client.waitForStream(id, "reply", (s) => s.replied);
    h.session.close();
    await waitFor("GOAWAY", async () => h.client.goAway !== undefined);
    expect(h.client.goAway).toBe(GoAwayStatus.Ok);
    expect(h.client.streams.get(id)!.reset).toBe(RstStatus.Cancel);
    expect(h.closed).toEqual({ error: undefined });
  });

  it("ends with GOAWAY (PROTOCOL_ERROR) on a header block it cannot inflate", async () => {
    const h = start();
    const payload = Buffer.concat([
      Buffer.from([0, 0, 0, 1, 0, 0, 0, 0, 0, 0]),
      Buffer.from("garbage!"),
    ]);
    h.client.sendControl(SpdyFrameType.SynStream, 0, payload);
    await waitFor("GOAWAY", async () => h.client.goAway !== undefined);
    expect(h.client.goAway).toBe(GoAwayStatus.ProtocolError);
    expect(h.closed?.error?.message).toMatch(/corrupt SPDY header block/);
    expect(h.accepted).toEqual([]);
  });

  it("abandons open streams without sending when the transport ends", async () => {
    const h = start();
    const id = h.client.openStream({});
    const stream = await eventually("the stream", async () => h.accepted[0]);
    h.toServer.end();
    await waitFor("the session closed", async () => h.closed !== undefined);
    expect(stream.destroyed).toBe(true);
    expect(h.client.streams.get(id)!.reset).toBeUndefined();
  });
});

describe("SpdySession over a failing transport", () => {
  it("ends the session and its streams without an error event on the streams", async () => {
    const toServer = new PassThrough();
    let failWrites = false;
    const client = new SpdyTestClient((bytes) => toServer.write(bytes));
    const transport = new Duplex({
      read: () => undefined,
      write: (chunk: Buffer, _encoding, callback) => {
        if (failWrites) callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
        else {
          client.receive(chunk);
          callback();
        }
      },
    });
    toServer.on("data", (bytes: Buffer) => transport.push(bytes));
    const streams: SpdyStream[] = [];
    let closedWith: Error | undefined;
    new SpdySession(transport, {
      onStream: (stream) => void streams.push(stream),
      onClose: (error) => (closedWith = error),
    });
    const id = client.openStream({});
    await client.waitForStream(id, "reply", (s) => s.replied);
    const stream = streams[0]!;
    const errors: Error[] = [];
    stream.on("error", (err) => errors.push(err));
    failWrites = true;
    stream.write("lost");
    await waitFor("the session's end", async () => closedWith !== undefined);
    expect(closedWith?.message).toBe("write EPIPE");
    await waitFor("the stream closed", async () => stream.destroyed);
    expect(errors).toEqual([]);
    client.close();
  });
});
