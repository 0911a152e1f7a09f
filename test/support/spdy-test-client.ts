/**
 * The client end of a SPDY/3.1 connection for tests: opens streams as kubectl's port-forward
 * does and records everything the server sends, per stream. Built on the server's framing
 * and header-block code (the compressed form it sends is read back by the server's own
 * decoder, and real kubectl covers the other direction in the conformance tests).
 */
import { connect, type Socket } from "node:net";
import {
  encodeControlFrame,
  encodeDataFrame,
  FLAG_FIN,
  SpdyFrameParser,
  SpdyFrameType,
  uint32Payload,
} from "../../packages/apiserver/src/streaming/spdy/spdy-frames.js";
import type { SpdyFrame } from "../../packages/apiserver/src/streaming/spdy/spdy-frames.js";
import {
  SpdyHeaderBlockDecoder,
  SpdyHeaderBlockEncoder,
} from "../../packages/apiserver/src/streaming/spdy/spdy-header-block.js";
import { eventually } from "./server-test-helpers.js";

/** What the server sent on one stream. */
export interface SpdyTestStream {
  replied: boolean;
  data: Buffer;
  /** The server sent FLAG_FIN. */
  finished: boolean;
  /** The RST_STREAM status the server sent, if any. */
  reset: number | undefined;
}

/** A SPDY client writing its frames with `write`; feed it the server's bytes with {@link receive}. */
export class SpdyTestClient {
  readonly streams = new Map<number, SpdyTestStream>();
  /** Ids of the PING frames received. */
  readonly pings: number[] = [];
  /** The GOAWAY status received, if any. */
  goAway: number | undefined;
  /** The WINDOW_UPDATE frames received, as [stream id (0: the session), delta]. */
  readonly windowUpdates: [number, number][] = [];
  /** What failed while handling the server's frames (see {@link receive}). */
  readonly receiveErrors: unknown[] = [];
  private readonly parser = new SpdyFrameParser();
  private readonly decoder = new SpdyHeaderBlockDecoder();
  private readonly encoder = new SpdyHeaderBlockEncoder();
  private nextId = 1;
  private work: Promise<void> = Promise.resolve();

  constructor(private readonly write: (bytes: Buffer) => void) {}

  /** Opens a stream with `headers` (SYN_STREAM); returns its id. */
  openStream(headers: Readonly<Record<string, string>>, flags = 0): number {
    const id = this.nextId;
    this.nextId += 2;
    this.streams.set(id, {
      replied: false,
      data: Buffer.alloc(0),
      finished: false,
      reset: undefined,
    });
    const block = this.encoder.encode(new Map(Object.entries(headers).map(([k, v]) => [k, [v]])));
    const payload = Buffer.concat([uint32Payload(id, 0), Buffer.from([0, 0]), block]);
    this.write(encodeControlFrame(SpdyFrameType.SynStream, flags, payload));
    return id;
  }

  /** Opens kubectl's pair of streams for one forwarded connection; returns their ids. */
  openPortForward(port: number, requestId: number): { error: number; data: number } {
    const headers = { port: String(port), requestid: String(requestId) };
    const error = this.openStream({ ...headers, streamtype: "error" });
    this.sendData(error, Buffer.alloc(0), true); // kubectl closes its side of the error stream at once
    const data = this.openStream({ ...headers, streamtype: "data" });
    return { error, data };
  }

  sendData(id: number, bytes: Buffer | string, fin = false): void {
    this.write(encodeDataFrame(id, fin ? FLAG_FIN : 0, Buffer.from(bytes)));
  }

  sendReset(id: number, status: number): void {
    this.write(encodeControlFrame(SpdyFrameType.RstStream, 0, uint32Payload(id, status)));
  }

  sendPing(id: number): void {
    this.write(encodeControlFrame(SpdyFrameType.Ping, 0, uint32Payload(id)));
  }

  /** Control frame `type` with a raw payload (for malformed input). */
  sendControl(type: number, flags: number, payload: Buffer): void {
    this.write(encodeControlFrame(type, flags, payload));
  }

  /**
   * Feeds bytes the server sent. A frame that fails to decode (e.g. a header block still
   * inflating when the test closes the client) is recorded in {@link receiveErrors}, never left
   * as an unhandled rejection.
   */
  receive(bytes: Buffer): void {
    for (const frame of this.parser.push(bytes)) {
      this.work = this.work
        .then(() => this.handle(frame))
        .catch((err: unknown) => {
          this.receiveErrors.push(err);
        });
    }
  }

  /** The stream `id`'s state once `condition` holds for it. */
  waitForStream(
    id: number,
    what: string,
    condition: (s: SpdyTestStream) => boolean,
  ): Promise<SpdyTestStream> {
    return eventually(`${what} on stream ${id}`, async () => {
      const stream = this.streams.get(id);
      return stream && condition(stream) ? stream : undefined;
    });
  }

  close(): void {
    this.decoder.close();
  }

  private async handle(frame: SpdyFrame): Promise<void> {
    if (!frame.control) {
      const stream = this.streams.get(frame.streamId);
      if (!stream) return;
      stream.data = Buffer.concat([stream.data, frame.payload]);
      if (frame.flags & FLAG_FIN) stream.finished = true;
      return;
    }
    const id = frame.payload.length >= 4 ? frame.payload.readUInt32BE(0) : 0;
    switch (frame.type) {
      case SpdyFrameType.SynReply: {
        await this.decoder.decode(frame.payload.subarray(4));
        const stream = this.streams.get(id);
        if (stream) {
          stream.replied = true;
          if (frame.flags & FLAG_FIN) stream.finished = true;
        }
        return;
      }
      case SpdyFrameType.RstStream: {
        const stream = this.streams.get(id);
        if (stream) stream.reset = frame.payload.readUInt32BE(4);
        return;
      }
      case SpdyFrameType.Ping:
        this.pings.push(id);
        return;
      case SpdyFrameType.GoAway:
        this.goAway = frame.payload.readUInt32BE(4);
        return;
      case SpdyFrameType.WindowUpdate:
        this.windowUpdates.push([id, frame.payload.readUInt32BE(4)]);
        return;
    }
  }
}

/**
 * Opens a raw connection to `127.0.0.1:port` and asks to upgrade `path` to SPDY/3.1 with
 * `X-Stream-Protocol-Version: protocols` (a POST, as kubectl sends it). Resolves once the
 * answer's head has arrived, with that head (without the blank line), a client reading
 * what follows, and the socket (the caller destroys it).
 */
export async function openSpdyUpgrade(
  port: number,
  path: string,
  protocols: string,
): Promise<{ head: string; client: SpdyTestClient; socket: Socket }> {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => resolve(s));
    s.once("error", reject);
  });
  const client = new SpdyTestClient((bytes) => socket.write(bytes));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n` +
      `X-Stream-Protocol-Version: ${protocols}\r\nContent-Length: 0\r\n\r\n`,
  );
  let head = Buffer.alloc(0);
  await new Promise<void>((resolve) => {
    const onData = (bytes: Buffer): void => {
      head = Buffer.concat([head, bytes]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      socket.on("data", (more: Buffer) => client.receive(more));
      if (head.length > end + 4) client.receive(head.subarray(end + 4));
      head = head.subarray(0, end);
      resolve();
    };
    socket.on("data", onData);
  });
  return { head: head.toString(), client, socket };
}
