/**
 * JSON strings read straight from UTF-8 bytes, for the metadata scanner: finding where a
 * string ends (validating it as JSON.parse does) and decoding it to exactly the string
 * JSON.parse returns for it.
 *
 * Decoding rules, so that a scanned string equals JSON.parse's on the text the body is
 * decoded to (UTF-8, invalid sequences replaced by U+FFFD as `TextDecoder` does):
 * - ASCII without escapes: the bytes as characters (Latin-1 decoding, identical on ASCII);
 * - with an escape: JSON.parse of the string's own bytes decoded as UTF-8 (so `\uXXXX`,
 *   surrogate pairs and lone surrogates come out as JSON.parse makes them);
 * - otherwise: the bytes decoded as UTF-8 with `TextDecoder` (keeping a leading U+FEFF,
 *   which inside a string is content, not a byte order mark).
 * A quote or backslash is never part of a multi-byte UTF-8 sequence, so decoding a string's
 * bytes alone gives the same characters as decoding the whole document.
 */
import { jsonScanError } from "./json-scan-error.js";

/** `flags` bit of {@link scanStringEnd}: the string holds at least one escape. */
export const STRING_ESCAPED = 1;
/** `flags` bit of {@link scanStringEnd}: the string holds at least one byte ≥ 0x80. */
const STRING_NON_ASCII = 2;

/** Where the last {@link scanStringEnd} found escapes or non-ASCII bytes (`STRING_*` bits). */
let lastFlags = 0;

/** The `STRING_*` bits of the string the last {@link scanStringEnd} call scanned. */
export function lastStringFlags(): number {
  return lastFlags;
}

/**
 * The offset of the quote closing the string whose first content byte is at `pos` (the
 * byte after its opening quote). Validates what JSON.parse validates: no raw control
 * character (U+0000–U+001F), only the escapes `\" \\ \/ \b \f \n \r \t \uXXXX`, and a
 * closing quote before `end`. Records the string's {@link lastStringFlags}.
 */
export function scanStringEnd(bytes: Uint8Array, pos: number, end: number): number {
  let flags = 0;
  for (;;) {
    if (pos >= end) throw jsonScanError(bytes, pos, end, "'\"' closing the string");
    const byte = bytes[pos] as number;
    if (byte === 0x22) break;
    if (byte >= 0x80) {
      flags |= STRING_NON_ASCII;
      pos++;
    } else if (byte === 0x5c) {
      flags |= STRING_ESCAPED;
      pos = skipEscape(bytes, pos + 1, end);
    } else if (byte < 0x20) {
      throw jsonScanError(
        bytes,
        pos,
        end,
        "a string character (control characters must be escaped)",
      );
    } else {
      pos++;
    }
  }
  lastFlags = flags;
  return pos;
}

/**
 * The offset after the escape whose character (after the backslash) is at `pos`, which
 * must be one of `" \\ / b f n r t` or `u` and four hex digits.
 */
export function skipEscape(bytes: Uint8Array, pos: number, end: number): number {
  const byte = pos < end ? (bytes[pos] as number) : -1;
  switch (byte) {
    case 0x22: // "
    case 0x5c: // \
    case 0x2f: // /
    case 0x62: // b
    case 0x66: // f
    case 0x6e: // n
    case 0x72: // r
    case 0x74: // t
      return pos + 1;
    case 0x75: // u
      for (let i = pos + 1; i < pos + 5; i++) {
        if (i >= end || !isHexDigit(bytes[i] as number)) {
          throw jsonScanError(bytes, i, end, "a hex digit of a \\u escape");
        }
      }
      return pos + 5;
    default:
      throw jsonScanError(bytes, pos, end, 'an escape character (one of "\\/bfnrtu)');
  }
}

function isHexDigit(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) ||
    (byte >= 0x41 && byte <= 0x46) ||
    (byte >= 0x61 && byte <= 0x66)
  );
}

/** UTF-8, invalid sequences replaced, a leading U+FEFF kept (stateless: `decode` without `stream`). */
const utf8Decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** `bytes[start, end)` decoded as UTF-8, invalid sequences replaced, a leading U+FEFF kept. */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  return utf8Decoder.decode(bytes.subarray(start, end));
}

/**
 * `bytes` as a Node.js `Buffer` over the same memory (itself when it is one), for
 * {@link decodeJsonString}'s native ASCII decoding.
 */
export function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** ASCII strings up to this length are built from char codes; longer ones natively. */
const SHORT_ASCII = 8;
/** Longest string {@link decodeJsonString} shares, and how many it keeps (direct-mapped). */
const SHARED_MAX_LENGTH = 32;
const SHARED_SLOTS = 4096;

/**
 * Recently decoded short strings that repeat across objects (label keys and values,
 * namespaces, owner kinds), so that 50k cached objects share one `"app"` and one `"web"`:
 * at most {@link SHARED_SLOTS} strings of at most {@link SHARED_MAX_LENGTH} characters.
 */
let sharedStrings: (string | undefined)[] | undefined;

/**
 * The string whose content is `bytes[start, quote)` (`quote` is its closing quote), with the
 * `flags` {@link scanStringEnd} recorded for it: exactly what JSON.parse returns for it.
 * `view` is {@link bufferView} of `bytes`. With `shared`, a short ASCII string equal to one
 * decoded recently is that same string (fewer allocations and one copy on the heap; strings
 * are immutable, so sharing is invisible).
 */
export function decodeJsonString(
  bytes: Uint8Array,
  view: Buffer,
  start: number,
  quote: number,
  flags: number,
  shared: boolean,
): string {
  if (flags === 0) {
    return shared && quote - start <= SHARED_MAX_LENGTH
      ? sharedAsciiString(bytes, view, start, quote)
      : asciiString(bytes, view, start, quote);
  }
  if ((flags & STRING_ESCAPED) !== 0) {
    return JSON.parse(decodeUtf8(bytes, start - 1, quote + 1)) as string;
  }
  return decodeUtf8(bytes, start, quote);
}

function asciiString(bytes: Uint8Array, view: Buffer, start: number, end: number): string {
  if (end - start > SHORT_ASCII) return view.toString("latin1", start, end);
  let text = "";
  for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i] as number);
  return text;
}

function sharedAsciiString(bytes: Uint8Array, view: Buffer, start: number, end: number): string {
  const length = end - start;
  let hash = length;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
  const slot = (hash ^ (hash >>> 16)) & (SHARED_SLOTS - 1);
  const table = (sharedStrings ??= new Array<string | undefined>(SHARED_SLOTS));
  const cached = table[slot];
  if (cached !== undefined && cached.length === length) {
    let i = 0;
    while (i < length && cached.charCodeAt(i) === bytes[start + i]) i++;
    if (i === length) return cached;
  }
  const text = asciiString(bytes, view, start, end);
  table[slot] = text;
  return text;
}
