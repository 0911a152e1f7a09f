/**
 * The lazy informer's watch decoder: splits a JSON watch stream into frames and turns each
 * into a watch event whose object is a {@link LazyObject}, reading only the frame's type and
 * the object's metadata (issue 24 §2).
 */
import { decodeStatus } from "../../core/status.js";
import type { WatchChunkDecoder } from "../../rest/decoded-watch.js";
import type { WatchEvent } from "../../rest/index.js";
import { WatchDecodeError, WatchFrameTooLargeError } from "../../rest/watch-errors.js";
import { DEFAULT_MAX_WATCH_FRAME_BYTES } from "../../rest/watch-frame-decoder.js";
import type { LazyObject } from "../lazy-object.js";
import type { ScannedWatchFrame } from "./json-metadata-scanner.js";
import { JsonScanError, scanWatchFrame } from "./json-metadata-scanner.js";
import { skipValue } from "./json-value-skip.js";
import { LazyJsonObject } from "./lazy-json-object.js";

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const NEWLINE = 0x0a;

/** Longest excerpt of a bad frame kept in a {@link WatchDecodeError}. */
const EXCERPT_BYTES = 200;

const utf8 = new TextDecoder();

/** Whether `byte` is JSON whitespace (space, tab, line feed, carriage return). */
function isJsonWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function excerpt(bytes: Uint8Array, start: number, end: number): string {
  return utf8.decode(bytes.subarray(start, Math.min(end, start + EXCERPT_BYTES)));
}

/** The offset past the last non-whitespace byte of `bytes[start, end)`. */
function trimEnd(bytes: Uint8Array, start: number, end: number): number {
  while (end > start && isJsonWhitespace(bytes[end - 1] as number)) end--;
  return end;
}

/**
 * A copy of `bytes[start, end)` in a buffer of its own, so that no network chunk (up to
 * 64 KiB, holding other frames) stays alive for one cached object. `TypedArray.slice`
 * allocates less than `Buffer.copyBytesFrom` does.
 */
function copyOf(bytes: Uint8Array, start: number, end: number): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes, start, end);
}

/** The watch event of the frame in `bytes[start, end)`, whose members `scanned` located. */
function toEvent<T>(
  bytes: Uint8Array,
  start: number,
  end: number,
  scanned: ScannedWatchFrame,
): WatchEvent<LazyObject<T>> {
  const { type, objectStart, objectEnd } = scanned;
  switch (type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED":
    case "BOOKMARK": {
      const bytesOfObject = copyOf(bytes, objectStart, objectEnd);
      return { type, object: LazyJsonObject.fromBytes<T>(scanned.object, bytesOfObject) };
    }
    case "ERROR": {
      const status = decodeStatus(JSON.parse(utf8.decode(bytes.subarray(objectStart, objectEnd))));
      if (status === undefined) {
        throw new WatchDecodeError("ERROR event without a Status", excerpt(bytes, start, end));
      }
      return { type, object: status };
    }
    default:
      throw new WatchDecodeError(
        `unknown event type ${JSON.stringify(type)}`,
        excerpt(bytes, start, end),
      );
  }
}

/**
 * Decodes a JSON watch stream into events with lazy objects, as `WatchFrameDecoder` decodes
 * it into parsed ones, with the same framing and errors: frames are JSON objects separated
 * by optional whitespace (newline-delimited as kube-apiserver sends them, or concatenated),
 * chunk boundaries anywhere; a frame that is not a JSON object, malformed JSON, an unknown
 * type, a missing object or an ERROR without a Status is a {@link WatchDecodeError}; a frame
 * over `maxFrameBytes` a {@link WatchFrameTooLargeError}; errors are sticky.
 *
 * The work per frame: kube-apiserver's framing (one frame per line) is found with a native
 * newline search, and the frame scanned by `scanWatchFrame` (which validates it), which
 * reads the object's metadata in the same pass; the object's bytes are copied into a buffer
 * of its own, which the {@link LazyObject} holds until its body is parsed. Other framings
 * find the frame's end by skipping one JSON value. A frame split across chunks is joined
 * once, when a chunk that may complete it arrives.
 */
export class LazyWatchDecoder<T> implements WatchChunkDecoder<WatchEvent<LazyObject<T>>> {
  readonly #maxFrameBytes: number;
  /** The bytes of a frame started but not complete (leading whitespace dropped). */
  #parts: Uint8Array[] = [];
  #partBytes = 0;
  #failure: WatchDecodeError | undefined;

  /**
   * @param maxFrameBytes the longest frame accepted (default 16 MiB, as the JSON decoder).
   * @throws {RangeError} when `maxFrameBytes` is not a positive integer.
   */
  constructor(maxFrameBytes: number = DEFAULT_MAX_WATCH_FRAME_BYTES) {
    if (!Number.isSafeInteger(maxFrameBytes) || maxFrameBytes <= 0) {
      throw new RangeError(`maxFrameBytes must be a positive integer, got ${maxFrameBytes}`);
    }
    this.#maxFrameBytes = maxFrameBytes;
  }

  write(chunk: Uint8Array, out: WatchEvent<LazyObject<T>>[]): void {
    if (this.#failure !== undefined) throw this.#failure;
    if (chunk.length === 0) return;
    try {
      let bytes = chunk;
      if (this.#parts.length > 0) {
        // Join only when this chunk may complete the frame: it has a newline, or ends with `}`.
        if (
          chunk.indexOf(NEWLINE) < 0 &&
          chunk[trimEnd(chunk, 0, chunk.length) - 1] !== CLOSE_BRACE
        ) {
          this.#hold(chunk);
          return;
        }
        bytes = Buffer.concat([...this.#parts, chunk]);
        this.#parts = [];
        this.#partBytes = 0;
      }
      this.#frames(bytes, out);
    } catch (err) {
      if (err instanceof WatchDecodeError) this.#failure = err;
      throw err;
    }
  }

  end(): readonly WatchEvent<LazyObject<T>>[] {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#parts.length > 0) {
      const held = Buffer.concat(this.#parts);
      this.#failure = new WatchDecodeError(
        "stream ended inside a frame",
        excerpt(held, 0, held.length),
      );
      throw this.#failure;
    }
    return [];
  }

  /** Keeps the start of an incomplete frame, failing once it passes the limit. */
  #hold(bytes: Uint8Array): void {
    this.#partBytes += bytes.length;
    if (this.#partBytes > this.#maxFrameBytes) {
      const first = this.#parts[0] ?? bytes;
      throw new WatchFrameTooLargeError(this.#maxFrameBytes, excerpt(first, 0, first.length));
    }
    this.#parts.push(bytes);
  }

  /** Decodes every complete frame of `bytes`, holding an incomplete last one. */
  #frames(bytes: Uint8Array, out: WatchEvent<LazyObject<T>>[]): void {
    const length = bytes.length;
    let pos = 0;
    for (;;) {
      while (pos < length && isJsonWhitespace(bytes[pos] as number)) pos++;
      if (pos >= length) return;
      if (bytes[pos] !== OPEN_BRACE) {
        throw new WatchDecodeError("frame is not a JSON object", excerpt(bytes, pos, length));
      }
      const next = this.#lineFrame(bytes, pos, out) ?? this.#valueFrame(bytes, pos, out);
      if (next === undefined) {
        this.#hold(pos === 0 ? bytes : copyOf(bytes, pos, length));
        return;
      }
      pos = next;
    }
  }

  /**
   * kube-apiserver's framing: the frame starting at `start` is the rest of its line. Returns
   * the offset after the line when that holds, undefined otherwise (nothing consumed).
   */
  #lineFrame(
    bytes: Uint8Array,
    start: number,
    out: WatchEvent<LazyObject<T>>[],
  ): number | undefined {
    const newline = bytes.indexOf(NEWLINE, start);
    if (newline < 0) return undefined;
    const end = trimEnd(bytes, start, newline);
    if (bytes[end - 1] !== CLOSE_BRACE) return undefined;
    if (end - start > this.#maxFrameBytes) {
      throw new WatchFrameTooLargeError(this.#maxFrameBytes, excerpt(bytes, start, end));
    }
    let scanned;
    try {
      scanned = scanWatchFrame(bytes, start, end);
    } catch (err) {
      if (err instanceof JsonScanError) return undefined;
      throw err;
    }
    out.push(toEvent<T>(bytes, start, end, scanned));
    return newline + 1;
  }

  /**
   * Any framing: the frame is the JSON value starting at `start`. Returns the offset after
   * it, or undefined when `bytes` ends inside it.
   */
  #valueFrame(
    bytes: Uint8Array,
    start: number,
    out: WatchEvent<LazyObject<T>>[],
  ): number | undefined {
    const length = bytes.length;
    let end: number;
    try {
      end = skipValue(bytes, start, length);
    } catch (err) {
      if (err instanceof JsonScanError && err.offset >= length) {
        if (length - start > this.#maxFrameBytes) {
          throw new WatchFrameTooLargeError(this.#maxFrameBytes, excerpt(bytes, start, length));
        }
        return undefined;
      }
      throw new WatchDecodeError("malformed JSON frame", excerpt(bytes, start, length), err);
    }
    if (end - start > this.#maxFrameBytes) {
      throw new WatchFrameTooLargeError(this.#maxFrameBytes, excerpt(bytes, start, end));
    }
    let scanned;
    try {
      scanned = scanWatchFrame(bytes, start, end);
    } catch (err) {
      throw new WatchDecodeError("not a watch event", excerpt(bytes, start, end), err);
    }
    out.push(toEvent<T>(bytes, start, end, scanned));
    return end;
  }
}
