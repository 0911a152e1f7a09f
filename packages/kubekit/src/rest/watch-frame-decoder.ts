/**
 * Incremental decoding of a JSON watch stream into {@link WatchEvent}s.
 */
import type { JsonObject } from "../core/json.js";
import { isJsonObject } from "../core/json.js";
import { decodeStatus } from "../core/status.js";
import { WatchDecodeError, WatchFrameTooLargeError } from "./watch-errors.js";
import type { WatchEvent } from "./watch-event.js";

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const NEWLINE = 0x0a;

/** One decoder for every frame: `decode()` without `stream` keeps no state between calls. */
const utf8 = new TextDecoder();

/**
 * The default longest frame, 16 MiB: the `maxBytes` limit of apimachinery's streaming decoder
 * (`staging/src/k8s.io/apimachinery/pkg/runtime/serializer/streaming/streaming.go`,
 * `ErrObjectTooLarge`), ten times etcd's default request limit (`--max-request-bytes`,
 * 1.5 MiB), so no object the API server can store is refused.
 */
export const DEFAULT_MAX_WATCH_FRAME_BYTES = 16 * 1024 * 1024;

/** Longest excerpt of a bad frame kept in a {@link WatchDecodeError}. */
const EXCERPT_CHARS = 200;

/**
 * The UTF-8 text of `bytes[start, end)`: a Buffer (what node:http delivers) is decoded in
 * place, without the view `subarray` would allocate; invalid UTF-8 becomes U+FFFD either way.
 */
function utf8Text(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.isBuffer(bytes)
    ? bytes.toString("utf8", start, end)
    : utf8.decode(bytes.subarray(start, end));
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function excerpt(bytes: Uint8Array): string {
  return utf8.decode(bytes.subarray(0, EXCERPT_CHARS * 4)).slice(0, EXCERPT_CHARS);
}

/** Validates a decoded frame as a watch event. */
function toWatchEvent(value: unknown, text: string): WatchEvent<JsonObject> {
  const shown = text.slice(0, EXCERPT_CHARS);
  if (!isJsonObject(value)) throw new WatchDecodeError("frame is not a JSON object", shown);
  const type = value["type"];
  const object = value["object"];
  switch (type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED":
    case "BOOKMARK":
      if (!isJsonObject(object)) {
        throw new WatchDecodeError(`${type} event without an object`, shown);
      }
      // The frame is the event (kube-apiserver's frames hold only `type` and `object`):
      // handed on as parsed, without a copy.
      return value as unknown as WatchEvent<JsonObject>;
    case "ERROR": {
      const status = decodeStatus(object);
      if (status === undefined) throw new WatchDecodeError("ERROR event without a Status", shown);
      return { type, object: status };
    }
    default:
      throw new WatchDecodeError(`unknown event type ${JSON.stringify(type)}`, shown);
  }
}

/**
 * Splits a byte stream into JSON object frames and decodes each into a watch event.
 *
 * Frames are JSON objects separated by optional whitespace: newline-delimited as
 * kube-apiserver sends them, or simply concatenated (frame boundaries are found by tracking
 * nesting and strings, not by newlines). Chunk boundaries may fall anywhere, including
 * inside a multi-byte UTF-8 character; a chunk may hold many frames and a frame may span
 * many chunks, of any size. Each byte is scanned once; a frame's bytes are joined only when
 * the frame is complete.
 *
 * Errors are sticky: after a {@link WatchDecodeError}, every later {@link read} throws it
 * again. Invalid UTF-8 is replaced by U+FFFD, as Go's decoder does. A frame longer than the
 * limit fails with {@link WatchFrameTooLargeError} as soon as the limit is passed, so a
 * never-ending frame holds at most the limit plus one chunk.
 */
export class WatchFrameDecoder {
  readonly #maxFrameBytes: number;
  /** Chunks not scanned yet (the first may be partly scanned: see #offset). */
  readonly #pending: Uint8Array[] = [];
  /** Scan position in the first pending chunk. */
  #offset = 0;
  /** The scanned bytes of the frame in progress. */
  #frame: Uint8Array[] = [];
  /** The byte length of {@link #frame}. */
  #frameBytes = 0;
  #inFrame = false;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #failure: WatchDecodeError | undefined;
  /** A line the fast path could not parse: the scanner handles everything up to it. */
  #slowUntil: { readonly chunk: Uint8Array; readonly index: number } | undefined;
  /**
   * The fast path found a frame's start but no newline in its chunk: once the scanner has
   * taken that chunk's tail, the frame's end is looked for with the fast path's rule too.
   */
  #joinLine = false;

  /**
   * @param maxFrameBytes the longest frame accepted (default
   *   {@link DEFAULT_MAX_WATCH_FRAME_BYTES}).
   * @throws {RangeError} when `maxFrameBytes` is not a positive integer.
   */
  constructor(maxFrameBytes: number = DEFAULT_MAX_WATCH_FRAME_BYTES) {
    if (!Number.isSafeInteger(maxFrameBytes) || maxFrameBytes <= 0) {
      throw new RangeError(`maxFrameBytes must be a positive integer, got ${maxFrameBytes}`);
    }
    this.#maxFrameBytes = maxFrameBytes;
  }

  /** Appends received bytes; nothing is decoded until {@link read}. */
  write(chunk: Uint8Array): void {
    if (chunk.length > 0) this.#pending.push(chunk);
  }

  /**
   * The next complete event, or undefined when the bytes written so far hold no complete
   * frame.
   *
   * @throws {WatchDecodeError} on a frame that does not start with `{`, malformed JSON,
   *   or a frame that is not a valid event; {@link WatchFrameTooLargeError} on a frame over
   *   the limit.
   */
  read(): WatchEvent<JsonObject> | undefined {
    if (this.#failure !== undefined) throw this.#failure;
    try {
      const fast = this.#nextLineFrame();
      if (fast !== undefined) return fast;
      const frame = this.#nextFrame();
      if (frame === undefined) return undefined;
      const text = utf8.decode(frame);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        throw new WatchDecodeError("malformed JSON frame", text.slice(0, EXCERPT_CHARS), err);
      }
      return toWatchEvent(value, text);
    } catch (err) {
      if (err instanceof WatchDecodeError) this.#failure = err;
      throw err;
    }
  }

  /**
   * Declares the end of the stream. Call it once {@link read} has returned undefined.
   *
   * @throws {WatchDecodeError} when a frame was started but not completed (or an earlier
   *   decode error occurred).
   * @throws {Error} when bytes were written but not read yet (a usage error).
   */
  end(): void {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#pending.length > 0) {
      throw new Error("WatchFrameDecoder.end: read() every pending event before end()");
    }
    if (this.#inFrame) {
      this.#failure = new WatchDecodeError(
        "stream ended inside a frame",
        excerpt(concat(this.#frame)),
      );
      throw this.#failure;
    }
  }

  /**
   * The fast path for kube-apiserver's framing (one object per line, within one chunk):
   * when no frame is half-scanned, the next `{` up to the next newline is parsed directly
   * (native `indexOf` instead of a byte-by-byte scan). A raw newline can only be whitespace
   * in JSON, so when that text parses it is exactly one frame. Anything else (a frame split
   * across chunks, several frames on one line, malformed JSON) consumes nothing and is left
   * to the scanner, which also reports the errors; the fast path stays off until the
   * scanner has passed the line it could not parse, so a long line is never re-parsed.
   * A line split across two chunks is joined and parsed the same way (see
   * {@link #joinedLineFrame}).
   */
  #nextLineFrame(): WatchEvent<JsonObject> | undefined {
    if (this.#inFrame) return this.#joinedLineFrame();
    const chunk = this.#pending[0];
    if (chunk === undefined) return undefined;
    let i = this.#offset;
    if (chunk === this.#slowUntil?.chunk && i <= this.#slowUntil.index) return undefined;
    while (i < chunk.length && isWhitespace(chunk[i] as number)) i++;
    if (i >= chunk.length || chunk[i] !== OPEN_BRACE) return undefined;
    const newline = chunk.indexOf(NEWLINE, i);
    if (newline < 0) {
      this.#joinLine = true;
      return undefined;
    }
    if (newline - i > this.#maxFrameBytes) return undefined;
    const text = utf8Text(chunk, i, newline);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#slowUntil = { chunk, index: newline };
      return undefined;
    }
    if (newline + 1 >= chunk.length) {
      this.#pending.shift();
      this.#offset = 0;
    } else {
      this.#offset = newline + 1;
    }
    return toWatchEvent(value, text);
  }

  /**
   * The fast path across a chunk boundary, tried once per line: when the scanner holds the
   * start of a frame that the fast path saw begin a line and the next chunk has a newline,
   * the held bytes and that chunk's bytes up to the newline are parsed directly. When that
   * text parses it is exactly one frame (as in {@link #nextLineFrame}) and the scanner's
   * state is reset; otherwise nothing is consumed and the scanner goes on from where it was.
   */
  #joinedLineFrame(): WatchEvent<JsonObject> | undefined {
    if (!this.#joinLine) return undefined;
    const chunk = this.#pending[0];
    if (chunk === undefined) return undefined;
    this.#joinLine = false;
    const start = this.#offset;
    const newline = chunk.indexOf(NEWLINE, start);
    if (newline < 0 || this.#frameBytes + (newline - start) > this.#maxFrameBytes) {
      return undefined;
    }
    const text = Buffer.concat([...this.#frame, chunk.subarray(start, newline)]).toString("utf8");
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
    this.#frame = [];
    this.#frameBytes = 0;
    this.#inFrame = false;
    this.#depth = 0;
    this.#inString = false;
    this.#escaped = false;
    this.#consume(chunk, newline + 1);
    return toWatchEvent(value, text);
  }

  /** Scans pending bytes for the end of the current frame; returns its bytes when complete. */
  #nextFrame(): Uint8Array | undefined {
    while (this.#pending.length > 0) {
      const chunk = this.#pending[0] as Uint8Array;
      let start = this.#offset;
      for (let i = this.#offset; i < chunk.length; i++) {
        const byte = chunk[i] as number;
        if (!this.#inFrame) {
          if (isWhitespace(byte)) continue;
          if (byte !== OPEN_BRACE) {
            throw new WatchDecodeError("frame is not a JSON object", excerpt(chunk.subarray(i)));
          }
          this.#inFrame = true;
          this.#depth = 1;
          start = i;
          continue;
        }
        if (this.#inString) {
          if (this.#escaped) this.#escaped = false;
          else if (byte === BACKSLASH) this.#escaped = true;
          else if (byte === QUOTE) this.#inString = false;
          continue;
        }
        if (byte === QUOTE) this.#inString = true;
        else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.#depth++;
        else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
          this.#depth--;
          if (this.#depth === 0) {
            this.#append(chunk.subarray(start, i + 1));
            const frame = concat(this.#frame);
            this.#frame = [];
            this.#frameBytes = 0;
            this.#inFrame = false;
            this.#consume(chunk, i + 1);
            return frame;
          }
        }
      }
      if (this.#inFrame) this.#append(chunk.subarray(start));
      this.#consume(chunk, chunk.length);
    }
    return undefined;
  }

  /** Adds scanned bytes to the frame in progress, failing once it passes the limit. */
  #append(bytes: Uint8Array): void {
    this.#frameBytes += bytes.length;
    if (this.#frameBytes > this.#maxFrameBytes) {
      throw new WatchFrameTooLargeError(this.#maxFrameBytes, excerpt(this.#frame[0] ?? bytes));
    }
    this.#frame.push(bytes);
  }

  /** Marks the first pending chunk as scanned up to `position`. */
  #consume(chunk: Uint8Array, position: number): void {
    if (position >= chunk.length) {
      this.#pending.shift();
      this.#offset = 0;
    } else {
      this.#offset = position;
    }
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  return Buffer.concat(parts);
}
