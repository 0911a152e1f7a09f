/**
 * SPDY/3 name/value header blocks (SPDY protocol draft 3.1, section 2.6.10): a 32-bit count of
 * pairs, then per pair a 32-bit length and the (lowercase) name, a 32-bit length and the value,
 * several values of one name joined by NUL. Each direction of a connection compresses all its
 * header blocks as ONE zlib stream, preset with {@link SPDY_HEADER_DICTIONARY} and flushed
 * (Z_SYNC_FLUSH) at the end of every block, so each side keeps one compressor and one
 * decompressor for the connection's lifetime and feeds them blocks in frame order.
 */
import { constants as zlibConstants, createInflate } from "node:zlib";
import type { Inflate } from "node:zlib";
import { SPDY_HEADER_DICTIONARY } from "./spdy-dictionary.js";

/** Header names (lowercase) to their values, in the order they came. */
export type SpdyHeaders = ReadonlyMap<string, readonly string[]>;

/** Decompressed header blocks larger than this are refused (a bound on a peer's memory use). */
const MAX_HEADER_BLOCK_BYTES = 1 << 20;

/** A zlib stream header (CMF 0x78: deflate, 32 KiB window; FLG 0x01: no preset dictionary id). */
const ZLIB_STREAM_HEADER = Buffer.from([0x78, 0x01]);

/** The most bytes one stored deflate block carries (its LEN field is 16 bits). */
const MAX_STORED_BLOCK = 0xffff;

/** Serializes `headers` into an uncompressed name/value block. */
function serializeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [uint32(headers.size)];
  for (const [name, values] of headers) {
    const nameBytes = Buffer.from(name.toLowerCase(), "utf8");
    const valueBytes = Buffer.from(values.join("\0"), "utf8");
    parts.push(uint32(nameBytes.length), nameBytes, uint32(valueBytes.length), valueBytes);
  }
  return Buffer.concat(parts);
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

/**
 * The compressing side of one connection direction. It writes every block as stored
 * (uncompressed, non-final) deflate blocks followed by an empty stored block, byte for byte
 * what a zlib writer's Z_SYNC_FLUSH ends with: a valid continuation of the connection's zlib
 * stream that any zlib reader, with or without the dictionary, decodes to the block. The empty
 * block matters: a streaming reader such as Go's `compress/flate` (kubectl's) hands a stored
 * block's bytes over only once it reached the next block, and must not need the next frame
 * for that. The first block carries the zlib header. Blocks must be sent in the order they are
 * encoded.
 */
export class SpdyHeaderBlockEncoder {
  #started = false;

  /** The compressed form of `headers`, continuing this direction's zlib stream. */
  encode(headers: SpdyHeaders): Buffer {
    const raw = serializeHeaderBlock(headers);
    const parts: Buffer[] = [];
    if (!this.#started) {
      parts.push(ZLIB_STREAM_HEADER);
      this.#started = true;
    }
    for (let offset = 0; offset < raw.length; offset += MAX_STORED_BLOCK)
      parts.push(storedBlock(raw.subarray(offset, offset + MAX_STORED_BLOCK)));
    parts.push(storedBlock(Buffer.alloc(0)));
    return Buffer.concat(parts);
  }
}

/** A non-final stored deflate block (RFC 1951, 3.2.4) carrying `data` (at most 65535 bytes). */
function storedBlock(data: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = 0x00; // BFINAL 0, BTYPE 00 (stored), padded to the byte boundary
  header.writeUInt16LE(data.length, 1);
  header.writeUInt16LE(~data.length & 0xffff, 3);
  return Buffer.concat([header, data]);
}

/** A header block that could not be decoded; the connection cannot go on (its zlib state is lost). */
export class SpdyHeaderBlockError extends Error {
  override readonly name = "SpdyHeaderBlockError";
}

/**
 * The decompressing side of one connection direction: one zlib inflater preset with the SPDY
 * dictionary for the connection's lifetime. {@link decode} must be called once per received
 * block, in frame order, each call after the previous one settled.
 *
 * Bounded whatever the peer sends: a frame's inflated bytes are collected as a list of chunks
 * (joined once, so linear time) and the inflater is destroyed as soon as they pass
 * {@link MAX_HEADER_BLOCK_BYTES}, so a zlib bomb costs at most that much inflating before the
 * decode fails; bytes inflated past the end of the block are refused, not kept.
 */
export class SpdyHeaderBlockDecoder {
  readonly #inflate: Inflate;
  #chunks: Buffer[] = [];
  #inflated = 0;
  #pending: { resolve: (headers: SpdyHeaders) => void; reject: (err: Error) => void } | undefined;
  #failure: Error | undefined;

  constructor() {
    this.#inflate = createInflate({
      dictionary: SPDY_HEADER_DICTIONARY,
      flush: zlibConstants.Z_SYNC_FLUSH,
    });
    this.#inflate.on("data", (chunk: Buffer) => {
      this.#inflated += chunk.length;
      if (this.#inflated > MAX_HEADER_BLOCK_BYTES) {
        this.#fail(
          new SpdyHeaderBlockError(`SPDY header block exceeds ${MAX_HEADER_BLOCK_BYTES} bytes`),
        );
        this.#inflate.destroy();
      } else this.#chunks.push(chunk);
    });
    this.#inflate.on("error", (err: Error) => {
      this.#fail(new SpdyHeaderBlockError(`corrupt SPDY header block: ${err.message}`));
    });
  }

  /**
   * Decompresses and parses one header block. Rejects with {@link SpdyHeaderBlockError} when
   * the bytes are not a valid continuation of the zlib stream, do not hold exactly one
   * complete block, or the block is malformed or larger than {@link MAX_HEADER_BLOCK_BYTES}.
   */
  decode(compressed: Buffer): Promise<SpdyHeaders> {
    if (this.#pending)
      return Promise.reject(new Error("SpdyHeaderBlockDecoder.decode is not reentrant"));
    return new Promise<SpdyHeaders>((resolve, reject) => {
      const pending = { resolve, reject };
      this.#pending = pending;
      if (this.#failure) {
        this.#fail(this.#failure);
        return;
      }
      this.#chunks = [];
      this.#inflated = 0;
      // Every byte the block decompresses to has been pushed once the write's callback runs,
      // and delivered as "data" by the time an immediate runs after it.
      this.#inflate.write(compressed, () =>
        setImmediate(() => {
          if (this.#pending === pending) this.#finish();
        }),
      );
    });
  }

  /** Releases the zlib state. */
  close(): void {
    this.#inflate.destroy();
  }

  /** The frame's bytes are all inflated: they must be exactly one block. */
  #finish(): void {
    const pending = this.#pending;
    if (!pending) return;
    const output = Buffer.concat(this.#chunks, this.#inflated);
    this.#chunks = [];
    let outcome: { headers: SpdyHeaders; length: number } | undefined;
    try {
      outcome = parseHeaderBlock(output);
    } catch (err) {
      this.#fail(err as Error);
      return;
    }
    if (!outcome) this.#fail(new SpdyHeaderBlockError("incomplete SPDY header block"));
    else if (outcome.length !== output.length)
      this.#fail(new SpdyHeaderBlockError("SPDY header block followed by more bytes in its frame"));
    else {
      this.#pending = undefined;
      pending.resolve(outcome.headers);
    }
  }

  /** Records the failure (the zlib stream cannot be trusted after it) and rejects the pending decode. */
  #fail(error: Error): void {
    this.#failure ??= error;
    this.#chunks = [];
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(this.#failure);
  }
}

/**
 * Parses a decompressed name/value block at the start of `bytes`: the headers and the block's
 * length, or undefined when `bytes` ends before the block does. Throws
 * {@link SpdyHeaderBlockError} for a malformed block (an empty or duplicate name).
 */
function parseHeaderBlock(bytes: Buffer): { headers: SpdyHeaders; length: number } | undefined {
  let offset = 0;
  const readLength = (): number | undefined => {
    if (bytes.length - offset < 4) return undefined;
    const value = bytes.readUInt32BE(offset);
    offset += 4;
    return value;
  };
  const readString = (): string | undefined => {
    const length = readLength();
    if (length === undefined || bytes.length - offset < length) return undefined;
    const text = bytes.toString("utf8", offset, offset + length);
    offset += length;
    return text;
  };
  const count = readLength();
  if (count === undefined) return undefined;
  const headers = new Map<string, string[]>();
  for (let i = 0; i < count; i++) {
    const name = readString();
    if (name === undefined) return undefined;
    const value = readString();
    if (value === undefined) return undefined;
    if (name === "") throw new SpdyHeaderBlockError("SPDY header block has an empty header name");
    if (headers.has(name))
      throw new SpdyHeaderBlockError(
        `SPDY header block repeats the header ${JSON.stringify(name)}`,
      );
    headers.set(name, value.split("\0"));
  }
  return { headers, length: offset };
}
