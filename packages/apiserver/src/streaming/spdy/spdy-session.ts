import type { Duplex } from "node:stream";
import {
  encodeControlFrame,
  encodeDataFrame,
  FLAG_FIN,
  GoAwayStatus,
  RstStatus,
  SPDY_VERSION,
  SpdyFrameParser,
  SpdyFrameType,
  uint32Payload,
} from "./spdy-frames.js";
import type { SpdyControlFrame, SpdyFrame } from "./spdy-frames.js";
import { SpdyHeaderBlockDecoder, SpdyHeaderBlockEncoder } from "./spdy-header-block.js";
import { SpdyStream } from "./spdy-stream.js";
import type { SpdyStreamSink } from "./spdy-stream.js";

/** Callbacks of a {@link SpdySession}. */
export interface SpdySessionOptions {
  /**
   * Called for every stream the peer opens, before the session answers its SYN_STREAM.
   * Returning normally accepts it (SYN_REPLY, then whatever was written to the stream);
   * throwing refuses it (RST_STREAM REFUSED_STREAM), as a kube stream handler's error does.
   */
  readonly onStream: (stream: SpdyStream) => void;
  /** Called once when the session is over; `error` says why when it was not a clean close. */
  readonly onClose?: (error?: Error) => void;
}

/**
 * The server end of a SPDY/3.1 connection over any byte transport: a raw upgraded socket
 * (`Upgrade: SPDY/3.1`) or a WebSocket carrying SPDY bytes in binary messages (kube's
 * `SPDY/3.1+` tunnelling subprotocols). It serves what Kubernetes' streaming clients use
 * (moby/spdystream as vendored by k8s.io/apimachinery's httpstream/spdy): peer-initiated
 * streams (SYN_STREAM answered by an empty SYN_REPLY), DATA with FLAG_FIN half closes,
 * RST_STREAM, PING echoes and GOAWAY. SETTINGS and WINDOW_UPDATE are read and ignored (no flow
 * control, like spdystream); the server never opens streams nor sends pings of its own.
 * Frames are handled strictly in arrival order; a frame that cannot be parsed ends the session
 * with GOAWAY PROTOCOL_ERROR.
 */
export class SpdySession implements SpdyStreamSink {
  readonly #parser = new SpdyFrameParser();
  readonly #decoder = new SpdyHeaderBlockDecoder();
  readonly #encoder = new SpdyHeaderBlockEncoder();
  readonly #streams = new Map<number, SpdyStream>();
  /** Streams whose SYN_REPLY is not sent yet, with the frames written to them meanwhile. */
  readonly #unanswered = new Map<SpdyStream, Buffer[]>();
  #lastStreamId = 0;
  #goneAway = false;
  #ended = false;
  #work: Promise<void> = Promise.resolve();

  readonly #transport: Duplex;
  readonly #options: SpdySessionOptions;

  constructor(transport: Duplex, options: SpdySessionOptions) {
    this.#transport = transport;
    this.#options = options;
    transport.on("data", (bytes: Buffer) => this.#receive(bytes));
    transport.once("end", () => this.#end());
    transport.once("close", () => this.#end());
    transport.on("error", (err: Error) => this.#end(err));
  }

  /** How many streams are open. */
  get openStreams(): number {
    return this.#streams.size;
  }

  /** Ends the session: GOAWAY (OK), every open stream reset, the transport closed. */
  close(): void {
    if (this.#ended) return;
    this.#goneAway = true;
    this.#writeFrame(
      encodeControlFrame(
        SpdyFrameType.GoAway,
        0,
        uint32Payload(this.#lastStreamId, GoAwayStatus.Ok),
      ),
    );
    for (const stream of [...this.#streams.values()]) stream.destroy();
    this.#transport.end();
    this.#end();
  }

  sendData(stream: SpdyStream, flags: number, payload: Buffer, done: () => void): void {
    const frame = encodeDataFrame(stream.id, flags, payload);
    const held = this.#unanswered.get(stream);
    if (held) {
      held.push(frame);
      done();
    } else this.#writeFrame(frame, () => done());
  }

  sendReset(stream: SpdyStream, status: number): void {
    this.#unanswered.delete(stream);
    this.#writeFrame(
      encodeControlFrame(SpdyFrameType.RstStream, 0, uint32Payload(stream.id, status)),
    );
  }

  forget(stream: SpdyStream): void {
    if (this.#streams.get(stream.id) === stream) this.#streams.delete(stream.id);
  }

  #receive(bytes: Buffer): void {
    if (this.#ended) return;
    for (const frame of this.#parser.push(bytes))
      this.#work = this.#work
        .then(() => (this.#ended ? undefined : this.#handle(frame)))
        .catch((err: Error) => this.#fail(err));
  }

  async #handle(frame: SpdyFrame): Promise<void> {
    if (!frame.control) {
      const stream = this.#streams.get(frame.streamId);
      if (!stream) return; // late data of a stream already closed or reset: dropped, as spdystream does
      stream.receiveData(frame.payload);
      if ((frame.flags & FLAG_FIN) !== 0) stream.receiveFin();
      return;
    }
    if (frame.version !== SPDY_VERSION)
      throw new Error(`unsupported SPDY version ${frame.version}`);
    switch (frame.type) {
      case SpdyFrameType.SynStream:
        return this.#handleSynStream(frame);
      case SpdyFrameType.SynReply:
      case SpdyFrameType.Headers:
        // Never expected from a client, but the block must be inflated to keep the zlib stream in step.
        await this.#decoder.decode(requirePayload(frame, 4).subarray(4));
        return;
      case SpdyFrameType.RstStream:
        this.#streams.get(requirePayload(frame, 8).readUInt32BE(0) & 0x7fffffff)?.receiveReset();
        return;
      case SpdyFrameType.Ping: {
        const id = requirePayload(frame, 4).readUInt32BE(0);
        if (id % 2 === 1)
          this.#writeFrame(encodeControlFrame(SpdyFrameType.Ping, 0, uint32Payload(id)));
        return;
      }
      case SpdyFrameType.GoAway:
        this.#goneAway = true;
        return;
      default:
        return; // SETTINGS, WINDOW_UPDATE and unknown control frames are ignored (draft 3.1, 2.2.1)
    }
  }

  async #handleSynStream(frame: SpdyControlFrame): Promise<void> {
    const payload = requirePayload(frame, 10);
    const id = payload.readUInt32BE(0) & 0x7fffffff;
    const headers = await this.#decoder.decode(payload.subarray(10));
    if (id % 2 === 0 || id <= this.#lastStreamId) {
      this.#writeFrame(
        encodeControlFrame(SpdyFrameType.RstStream, 0, uint32Payload(id, RstStatus.ProtocolError)),
      );
      return;
    }
    this.#lastStreamId = id;
    if (this.#goneAway) {
      this.#writeFrame(
        encodeControlFrame(SpdyFrameType.RstStream, 0, uint32Payload(id, RstStatus.RefusedStream)),
      );
      return;
    }
    const stream = new SpdyStream(id, headers, this);
    this.#streams.set(id, stream);
    this.#unanswered.set(stream, []);
    if ((frame.flags & FLAG_FIN) !== 0) stream.receiveFin();
    try {
      this.#options.onStream(stream);
    } catch {
      this.#unanswered.delete(stream);
      this.#streams.delete(id);
      this.#writeFrame(
        encodeControlFrame(SpdyFrameType.RstStream, 0, uint32Payload(id, RstStatus.RefusedStream)),
      );
      stream.abandon();
      return;
    }
    const held = this.#unanswered.get(stream);
    if (!held) return; // reset while being accepted
    this.#unanswered.delete(stream);
    const reply = Buffer.concat([uint32Payload(id), this.#encoder.encode(new Map())]);
    this.#writeFrame(encodeControlFrame(SpdyFrameType.SynReply, 0, reply));
    for (const data of held) this.#writeFrame(data);
  }

  /** Writes a frame; `done` runs once the transport took it or failed (then the session ends). */
  #writeFrame(frame: Buffer, done?: () => void): void {
    if (this.#ended || this.#transport.destroyed || this.#transport.writableEnded) {
      done?.();
      return;
    }
    this.#transport.write(frame, () => done?.());
  }

  #fail(err: Error): void {
    if (this.#ended) return;
    this.#writeFrame(
      encodeControlFrame(
        SpdyFrameType.GoAway,
        0,
        uint32Payload(this.#lastStreamId, GoAwayStatus.ProtocolError),
      ),
    );
    this.#transport.end();
    this.#end(err);
  }

  #end(err?: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const stream of [...this.#streams.values()]) stream.abandon();
    this.#streams.clear();
    this.#unanswered.clear();
    this.#decoder.close();
    if (!this.#transport.writableEnded) this.#transport.end();
    this.#options.onClose?.(err);
  }
}

function requirePayload(frame: SpdyControlFrame, length: number): Buffer {
  if (frame.payload.length < length)
    throw new Error(
      `SPDY control frame of type ${frame.type} is ${frame.payload.length} bytes, needs ${length}`,
    );
  return frame.payload;
}
