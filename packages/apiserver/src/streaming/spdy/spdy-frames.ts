/**
 * SPDY/3.1 framing (SPDY protocol draft 3.1, section 2.2 "Framing"): every frame is an 8-byte
 * header and a payload whose length the header gives, so frames are cut from a byte stream
 * without understanding them. A control frame's first bit is set, followed by the 15-bit
 * version (3) and the 16-bit type; then 8 bits of flags and a 24-bit length. A data frame's
 * first bit is clear, followed by the 31-bit stream id; then flags and length likewise.
 * Header blocks inside SYN_STREAM / SYN_REPLY / HEADERS are left compressed here (see
 * `spdy-header-block.ts`).
 */

/** The SPDY version this framing speaks. */
export const SPDY_VERSION = 3;

/** Control frame types (draft 3.1, section 2.6). */
export const SpdyFrameType = {
  SynStream: 1,
  SynReply: 2,
  RstStream: 3,
  Settings: 4,
  Ping: 6,
  GoAway: 7,
  Headers: 8,
  WindowUpdate: 9,
} as const;

/** FLAG_FIN of data, SYN_STREAM, SYN_REPLY and HEADERS frames: the sender's last frame on the stream. */
export const FLAG_FIN = 0x01;

/** RST_STREAM status codes (draft 3.1, section 2.6.3). */
export const RstStatus = {
  ProtocolError: 1,
  InvalidStream: 2,
  RefusedStream: 3,
  UnsupportedVersion: 4,
  Cancel: 5,
  InternalError: 6,
  FlowControlError: 7,
  StreamInUse: 8,
  StreamAlreadyClosed: 9,
} as const;

/** GOAWAY status codes (draft 3.1, section 2.6.6). */
export const GoAwayStatus = { Ok: 0, ProtocolError: 1, InternalError: 2 } as const;

/**
 * The initial flow-control window of every stream and of the session, in bytes (draft 3.1,
 * sections 2.6.8 and 2.6.4: 64 KiB unless SETTINGS say otherwise).
 */
export const INITIAL_WINDOW_SIZE = 64 * 1024;

/** The largest payload the 24-bit length field can carry. */
export const MAX_FRAME_PAYLOAD = 0xffffff;

/** A frame the session cannot accept (wrong version, short payload); the session ends with GOAWAY. */
export class SpdyProtocolError extends Error {
  override readonly name = "SpdyProtocolError";
}

/** One control frame, its payload still raw. */
export interface SpdyControlFrame {
  readonly control: true;
  readonly version: number;
  readonly type: number;
  readonly flags: number;
  readonly payload: Buffer;
}

/** One data frame. */
export interface SpdyDataFrame {
  readonly control: false;
  readonly streamId: number;
  readonly flags: number;
  readonly payload: Buffer;
}

/** A frame cut from the byte stream. */
export type SpdyFrame = SpdyControlFrame | SpdyDataFrame;

const HEADER_LENGTH = 8;

/** Encodes a control frame of `type` around an already encoded payload. */
export function encodeControlFrame(type: number, flags: number, payload: Buffer): Buffer {
  checkPayloadLength(payload);
  const header = Buffer.alloc(HEADER_LENGTH);
  header.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  header.writeUInt16BE(type, 2);
  header.writeUInt32BE((((flags & 0xff) << 24) | payload.length) >>> 0, 4);
  return Buffer.concat([header, payload]);
}

/** Encodes a data frame of `streamId` carrying `payload` (at most {@link MAX_FRAME_PAYLOAD} bytes). */
export function encodeDataFrame(streamId: number, flags: number, payload: Buffer): Buffer {
  checkPayloadLength(payload);
  const header = Buffer.alloc(HEADER_LENGTH);
  header.writeUInt32BE(streamId & 0x7fffffff, 0);
  header.writeUInt32BE((((flags & 0xff) << 24) | payload.length) >>> 0, 4);
  return Buffer.concat([header, payload]);
}

/** Payload of a frame that is a sequence of 32-bit big-endian integers (RST_STREAM, PING, GOAWAY). */
export function uint32Payload(...values: readonly number[]): Buffer {
  const payload = Buffer.alloc(values.length * 4);
  values.forEach((value, i) => payload.writeUInt32BE(value >>> 0, i * 4));
  return payload;
}

function checkPayloadLength(payload: Buffer): void {
  if (payload.length > MAX_FRAME_PAYLOAD)
    throw new RangeError(
      `SPDY frame payload of ${payload.length} bytes exceeds ${MAX_FRAME_PAYLOAD}`,
    );
}

/**
 * Cuts frames from a byte stream that arrives in arbitrary pieces (TCP segments, WebSocket
 * messages of a tunnel): {@link push} returns every frame completed by the new bytes and keeps
 * the incomplete rest for the next call. Pieces are only joined once a frame is complete, so
 * a large frame arriving in many small pieces costs linear, not quadratic, copying.
 */
export class SpdyFrameParser {
  #pieces: Buffer[] = [];
  #length = 0;

  /** How many bytes are held, waiting for the rest of their frame. */
  get bufferedBytes(): number {
    return this.#length;
  }

  /** Adds bytes; returns the frames they complete, in order. */
  push(bytes: Buffer): SpdyFrame[] {
    if (bytes.length === 0) return [];
    this.#pieces.push(bytes);
    this.#length += bytes.length;
    const needed = this.#firstFrameLength();
    if (needed === undefined || this.#length < needed) return [];
    const buffered =
      this.#pieces.length === 1 ? (this.#pieces[0] as Buffer) : Buffer.concat(this.#pieces);
    const frames: SpdyFrame[] = [];
    let offset = 0;
    while (buffered.length - offset >= HEADER_LENGTH) {
      const end = offset + HEADER_LENGTH + (buffered.readUInt32BE(offset + 4) & 0xffffff);
      if (buffered.length < end) break;
      frames.push(frameAt(buffered, offset, end));
      offset = end;
    }
    const rest = buffered.subarray(offset);
    this.#pieces = rest.length > 0 ? [rest] : [];
    this.#length = rest.length;
    return frames;
  }

  /** The whole length of the first buffered frame, once its header is here. */
  #firstFrameLength(): number | undefined {
    if (this.#length < HEADER_LENGTH) return undefined;
    let first = this.#pieces[0] as Buffer;
    if (first.length < HEADER_LENGTH) {
      first = Buffer.concat(this.#pieces);
      this.#pieces = [first];
    }
    return HEADER_LENGTH + (first.readUInt32BE(4) & 0xffffff);
  }
}

/** The frame held by `buffered` from `offset` to `end`, its payload a view (not a copy). */
function frameAt(buffered: Buffer, offset: number, end: number): SpdyFrame {
  const first = buffered.readUInt32BE(offset);
  const flags = buffered.readUInt32BE(offset + 4) >>> 24;
  const payload = buffered.subarray(offset + HEADER_LENGTH, end);
  return (first & 0x80000000) !== 0
    ? { control: true, version: (first >>> 16) & 0x7fff, type: first & 0xffff, flags, payload }
    : { control: false, streamId: first & 0x7fffffff, flags, payload };
}
