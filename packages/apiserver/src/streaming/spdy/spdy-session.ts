import type { Duplex } from "node:stream";
import {
  encodeControlFrame,
  encodeDataFrame,
  FLAG_FIN,
  GoAwayStatus,
  INITIAL_WINDOW_SIZE,
  RstStatus,
  SPDY_VERSION,
  SpdyFrameParser,
  SpdyFrameType,
  SpdyProtocolError,
  uint32Payload,
} from "./spdy-frames.js";
import type { SpdyControlFrame, SpdyFrame } from "./spdy-frames.js";
import { SpdyHeaderBlockDecoder, SpdyHeaderBlockEncoder } from "./spdy-header-block.js";
import type { SpdyHeaders } from "./spdy-header-block.js";
import { SpdyStream } from "./spdy-stream.js";
import type { SpdyStreamSink } from "./spdy-stream.js";

/** Frames waiting to be handled past which the transport is paused. */
const MAX_QUEUED_FRAMES = 1024;
/** Unread bytes one stream may hold: 16 windows, room for a peer that ignores windows. */
const MAX_STREAM_UNREAD_BYTES = 16 * INITIAL_WINDOW_SIZE;
/** Bytes the open streams of a session may hold together: unread data and SYN_STREAM headers. */
const MAX_SESSION_RETAINED_BYTES = 4 * 1024 * 1024;
/** Streams open at once in a session (kubectl port-forward uses two per forwarded connection). */
const MAX_OPEN_STREAMS = 512;

/** Callbacks of a {@link SpdySession}. */
export interface SpdySessionOptions {
  /**
   * Called for every stream the peer opens, before the session answers its SYN_STREAM.
   * Returning normally accepts it (SYN_REPLY, then whatever was written to the stream);
   * throwing refuses it (RST_STREAM REFUSED_STREAM), as a kube stream handler's error does.
   */
  readonly onStream: (stream: SpdyStream) => void;
  /**
   * Called once when the session is over; `error` says why when it was not a clean close: a
   * `SpdyProtocolError` or `SpdyHeaderBlockError` for what the peer sent, or the transport's error.
   */
  readonly onClose?: (error?: Error) => void;
}

/**
 * The server end of a SPDY/3.1 connection over any byte transport: a raw upgraded socket
 * (`Upgrade: SPDY/3.1`) or a WebSocket carrying SPDY bytes in binary messages (kube's
 * `SPDY/3.1+` tunnelling subprotocols). It serves what Kubernetes' streaming clients use
 * (moby/spdystream as vendored by k8s.io/apimachinery's httpstream/spdy): peer-initiated
 * streams (SYN_STREAM answered by an empty SYN_REPLY), DATA with FLAG_FIN half closes,
 * RST_STREAM, PING echoes and GOAWAY. The server never opens streams nor sends pings of its
 * own. Frames are handled strictly in arrival order; a frame that cannot be parsed ends the
 * session with GOAWAY PROTOCOL_ERROR.
 *
 * Bounded whatever the peer does:
 * - the transport is paused (TCP back-pressure on the peer) while the server's writes wait
 *   for the peer to read (a PING flood from a peer that never reads queues at most one
 *   socket buffer of answers) or while more than {@link MAX_QUEUED_FRAMES} frames wait;
 * - flow control on receipt (see `SpdyStream`): WINDOW_UPDATE reopens the 64 KiB window as
 *   readers consume; as spdystream peers ignore windows, a stream holding more than
 *   {@link MAX_STREAM_UNREAD_BYTES} unread, or data past {@link MAX_SESSION_RETAINED_BYTES}
 *   held by the session's streams together (unread data and SYN_STREAM headers, e.g. a
 *   port-forward data stream whose error stream never comes), is reset with RST_STREAM
 *   FLOW_CONTROL_ERROR, and a SYN_STREAM past that budget or past {@link MAX_OPEN_STREAMS}
 *   is refused (RST_STREAM REFUSED_STREAM);
 * - header blocks are bounded by `SpdyHeaderBlockDecoder`.
 * SETTINGS and the peer's WINDOW_UPDATE are read and ignored: windows are not honoured on
 * sending, as spdystream (kubectl) never reopens them.
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
  /** Frames cut from the transport and not handled yet, from `#queueHead` on. */
  #queue: SpdyFrame[] = [];
  #queueHead = 0;
  #handling = false;
  #paused = false;
  /** Data bytes the streams acknowledged that the session's window did not give back yet. */
  #sessionUnacknowledged = 0;

  readonly #transport: Duplex;
  readonly #options: SpdySessionOptions;

  constructor(transport: Duplex, options: SpdySessionOptions) {
    this.#transport = transport;
    this.#options = options;
    transport.on("data", (bytes: Buffer) => this.#receive(bytes));
    transport.on("drain", () => this.#regulate());
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

  sendWindowUpdate(stream: SpdyStream, delta: number): void {
    this.#writeFrame(
      encodeControlFrame(SpdyFrameType.WindowUpdate, 0, uint32Payload(stream.id, delta)),
    );
    this.#acknowledgeSession(delta);
  }

  forget(stream: SpdyStream): void {
    if (this.#streams.get(stream.id) !== stream) return;
    this.#streams.delete(stream.id);
    // What the stream held unread never reaches a reader: the session window gets it back.
    this.#acknowledgeSession(stream.unacknowledgedBytes);
  }

  /** Gives `delta` bytes back to the peer's session window, by half a window at least. */
  #acknowledgeSession(delta: number): void {
    this.#sessionUnacknowledged += delta;
    if (this.#sessionUnacknowledged < INITIAL_WINDOW_SIZE / 2) return;
    this.#writeFrame(
      encodeControlFrame(
        SpdyFrameType.WindowUpdate,
        0,
        uint32Payload(0, this.#sessionUnacknowledged),
      ),
    );
    this.#sessionUnacknowledged = 0;
  }

  #receive(bytes: Buffer): void {
    if (this.#ended) return;
    for (const frame of this.#parser.push(bytes)) this.#queue.push(frame);
    void this.#handleQueued();
  }

  /** Handles the queued frames in order, one at a time (header blocks decode asynchronously). */
  async #handleQueued(): Promise<void> {
    if (this.#handling) return;
    this.#handling = true;
    try {
      while (this.#queueHead < this.#queue.length && !this.#ended) {
        const frame = this.#queue[this.#queueHead++] as SpdyFrame;
        if (this.#queueHead === this.#queue.length) {
          this.#queue = [];
          this.#queueHead = 0;
        }
        this.#regulate();
        const pending = this.#handle(frame);
        if (pending) await pending;
      }
    } catch (err) {
      this.#fail(err as Error);
    } finally {
      this.#handling = false;
      this.#regulate();
    }
  }

  /** Pauses the transport while writes wait for the peer or too many frames wait here. */
  #regulate(): void {
    if (this.#ended) return;
    const overloaded =
      this.#transport.writableNeedDrain || this.#queue.length - this.#queueHead > MAX_QUEUED_FRAMES;
    if (overloaded && !this.#paused) {
      this.#paused = true;
      this.#transport.pause();
    } else if (!overloaded && this.#paused) {
      this.#paused = false;
      this.#transport.resume();
    }
  }

  #handle(frame: SpdyFrame): Promise<void> | undefined {
    if (!frame.control) {
      this.#handleData(frame.streamId, frame.flags, frame.payload);
      return undefined;
    }
    if (frame.version !== SPDY_VERSION)
      throw new SpdyProtocolError(`unsupported SPDY version ${frame.version}`);
    switch (frame.type) {
      case SpdyFrameType.SynStream:
        return this.#handleSynStream(frame);
      case SpdyFrameType.SynReply:
      case SpdyFrameType.Headers:
        // Never expected from a client, but the block must be inflated to keep the zlib stream in step.
        return this.#decoder.decode(requirePayload(frame, 4).subarray(4)).then(() => undefined);
      case SpdyFrameType.RstStream:
        this.#streams.get(requirePayload(frame, 8).readUInt32BE(0) & 0x7fffffff)?.receiveReset();
        return undefined;
      case SpdyFrameType.Ping: {
        const id = requirePayload(frame, 4).readUInt32BE(0);
        if (id % 2 === 1)
          this.#writeFrame(encodeControlFrame(SpdyFrameType.Ping, 0, uint32Payload(id)));
        return undefined;
      }
      case SpdyFrameType.GoAway:
        this.#goneAway = true;
        return undefined;
      default:
        return undefined; // SETTINGS, WINDOW_UPDATE and unknown control frames are ignored (draft 3.1, 2.2.1)
    }
  }

  /** A DATA frame: to its stream, unless that would hold more unread bytes than allowed. */
  #handleData(streamId: number, flags: number, payload: Buffer): void {
    const stream = this.#streams.get(streamId);
    if (!stream) {
      // Late data of a stream already closed or reset: dropped, as spdystream does.
      this.#acknowledgeSession(payload.length);
      return;
    }
    if (
      stream.readableLength + payload.length > MAX_STREAM_UNREAD_BYTES ||
      this.#retainedBytes() + payload.length > MAX_SESSION_RETAINED_BYTES
    ) {
      this.#acknowledgeSession(payload.length);
      this.#resetStream(stream, RstStatus.FlowControlError);
      return;
    }
    stream.receiveData(payload);
    if ((flags & FLAG_FIN) !== 0) stream.receiveFin();
  }

  /** What the open streams hold: their unread data and their SYN_STREAM headers. */
  #retainedBytes(): number {
    let total = 0;
    for (const stream of this.#streams.values())
      total += stream.readableLength + stream.headerBytes;
    return total;
  }

  /** Resets a stream from this side: RST_STREAM `status`, its unread data dropped. */
  #resetStream(stream: SpdyStream, status: number): void {
    this.sendReset(stream, status);
    this.#streams.delete(stream.id);
    this.#acknowledgeSession(stream.unacknowledgedBytes);
    stream.abandon();
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
    const headerBytes = headerBlockBytes(headers);
    if (
      this.#goneAway ||
      this.#streams.size >= MAX_OPEN_STREAMS ||
      this.#retainedBytes() + headerBytes > MAX_SESSION_RETAINED_BYTES
    ) {
      this.#writeFrame(
        encodeControlFrame(SpdyFrameType.RstStream, 0, uint32Payload(id, RstStatus.RefusedStream)),
      );
      return;
    }
    const stream = new SpdyStream(id, headers, this, headerBytes);
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

/** The size of a decoded header block: 4 bytes per length, the names and the values. */
function headerBlockBytes(headers: SpdyHeaders): number {
  let total = 4;
  for (const [name, values] of headers)
    total += 8 + Buffer.byteLength(name) + Buffer.byteLength(values.join("\0"));
  return total;
}

function requirePayload(frame: SpdyControlFrame, length: number): Buffer {
  if (frame.payload.length < length)
    throw new SpdyProtocolError(
      `SPDY control frame of type ${frame.type} is ${frame.payload.length} bytes, needs ${length}`,
    );
  return frame.payload;
}
