/**
 * Skipping JSON values in UTF-8 bytes without building them, validating them as JSON.parse
 * does (RFC 8259's grammar: strings and their escapes, numbers, literals, objects, arrays,
 * whitespace), so that the metadata scanner passes over `spec`, `status` and
 * `managedFields` at a fraction of the cost of parsing them. Iterative: nesting depth costs
 * one byte per level (off the JS heap), never stack.
 *
 * The loops are written for speed (one pass, bytes compared inline, few calls): this is the
 * hot path of a lazy informer's sync.
 */
import { jsonScanError } from "./json-scan-error.js";
import { skipEscape } from "./json-string-bytes.js";

/** What {@link skipValue} accepts next, as bits: a value, a key, a close, a comma, a colon. */
const VALUE = 1;
const KEY = 2;
const CLOSE = 4;
const COMMA = 8;
const COLON = 16;

/** The container stack of {@link skipValue} for the usual depths; deeper input grows a copy. */
let sharedStack: Uint8Array | undefined;

/** The first offset at or after `pos` (and before `end`) that is not JSON whitespace. */
export function skipWhitespace(bytes: Uint8Array, pos: number, end: number): number {
  while (pos < end) {
    const byte = bytes[pos] as number;
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) break;
    pos++;
  }
  return pos;
}

/**
 * The offset just past the JSON value that starts at `pos` (whitespace before it allowed),
 * which must end before `end`. Throws `JsonScanError` where the value stops being JSON; its
 * offset is `end` exactly when `bytes[pos, end)` is a truncated prefix of a JSON value.
 *
 * One flat loop over the bytes with the grammar as a set of accepted next tokens (`state`),
 * strings skipped inline: the one pass of a lazy informer's sync over every byte it receives.
 */
export function skipValue(bytes: Uint8Array, pos: number, end: number): number {
  let stack = (sharedStack ??= new Uint8Array(64));
  // Every string closes at or before the last quote of the range: the string loop needs no
  // bounds check, only a check after each escape (which may jump past it).
  const lastQuote = end > pos ? bytes.lastIndexOf(0x22, end - 1) : -1;
  let depth = 0;
  let inObject = false;
  let state = VALUE;
  while (pos < end) {
    const byte = bytes[pos] as number;
    if (byte === 0x22) {
      if ((state & VALUE) !== 0) state = COMMA | CLOSE;
      else if ((state & KEY) !== 0) state = COLON;
      else break;
      pos = skipStringContent(bytes, pos + 1, end, lastQuote) + 1;
      if (depth === 0 && state !== COLON) return pos;
    } else if (byte === 0x3a) {
      if (state !== COLON) break;
      state = VALUE;
      pos++;
    } else if (byte === 0x2c) {
      if ((state & COMMA) === 0) break;
      state = inObject ? KEY : VALUE;
      pos++;
    } else if (byte === 0x7b || byte === 0x5b) {
      if ((state & VALUE) === 0) break;
      if (depth === stack.length) stack = deeperStack(stack);
      inObject = byte === 0x7b;
      stack[depth++] = inObject ? 1 : 0;
      state = inObject ? KEY | CLOSE : VALUE | CLOSE;
      pos++;
    } else if (byte === 0x7d || byte === 0x5d) {
      if ((state & CLOSE) === 0 || byte !== (inObject ? 0x7d : 0x5d)) break;
      pos++;
      if (--depth === 0) return pos;
      inObject = stack[depth - 1] === 1;
      state = COMMA | CLOSE;
    } else if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) {
      pos++;
    } else {
      if ((state & VALUE) === 0) break;
      pos = skipScalar(bytes, pos, end, byte);
      if (depth === 0) return pos;
      state = COMMA | CLOSE;
    }
  }
  throw jsonScanError(bytes, pos, end, expectedIn(state, inObject));
}

/** What {@link skipValue} expected in `state`, for its error. */
function expectedIn(state: number, inObject: boolean): string {
  if (state === COLON) return "':' after a key";
  if (state === KEY) return "'\"' opening a key";
  if (state === (KEY | CLOSE)) return "'\"' opening a key or '}'";
  if ((state & VALUE) !== 0) return (state & CLOSE) !== 0 ? "a JSON value or ']'" : "a JSON value";
  return inObject ? "',' or '}'" : "',' or ']'";
}

/**
 * The offset of the quote closing the string whose content starts at `pos`, validating it
 * (no raw control character, valid escapes); `lastQuote` is the last quote before `end`.
 */
function skipStringContent(bytes: Uint8Array, pos: number, end: number, lastQuote: number): number {
  if (pos > lastQuote) throw jsonScanError(bytes, end, end, "'\"' closing the string");
  for (;;) {
    const byte = bytes[pos] as number;
    if (byte > 0x5c) {
      pos++;
    } else if (byte === 0x22) {
      return pos;
    } else if (byte === 0x5c) {
      // \" and \\ inline (managedFields keys are full of them), the rest checked by skipEscape.
      const escaped = pos + 1 < end ? (bytes[pos + 1] as number) : -1;
      pos = escaped === 0x22 || escaped === 0x5c ? pos + 2 : skipEscape(bytes, pos + 1, end);
      if (pos > lastQuote) throw jsonScanError(bytes, end, end, "'\"' closing the string");
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
}

function deeperStack(stack: Uint8Array): Uint8Array {
  const deeper = new Uint8Array(stack.length * 2);
  deeper.set(stack);
  return deeper;
}

/** The offset after the number or literal whose first byte, `byte`, is at `pos`. */
function skipScalar(bytes: Uint8Array, pos: number, end: number, byte: number): number {
  if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39)) return skipNumber(bytes, pos, end);
  if (byte === 0x74) return skipLiteral(bytes, pos, end, "true");
  if (byte === 0x66) return skipLiteral(bytes, pos, end, "false");
  if (byte === 0x6e) return skipLiteral(bytes, pos, end, "null");
  throw jsonScanError(bytes, pos, end, "a JSON value");
}

/** The offset after `literal` (ASCII), which must be at `pos`. */
export function skipLiteral(bytes: Uint8Array, pos: number, end: number, literal: string): number {
  for (let i = 0; i < literal.length; i++) {
    if (pos + i >= end || bytes[pos + i] !== literal.charCodeAt(i)) {
      throw jsonScanError(bytes, pos + i, end, `'${literal}'`);
    }
  }
  return pos + literal.length;
}

/**
 * The offset after the JSON number at `pos`:
 * `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. What follows it is the caller's
 * to check (a delimiter).
 */
export function skipNumber(bytes: Uint8Array, pos: number, end: number): number {
  if (bytes[pos] === 0x2d) pos++;
  if (pos < end && bytes[pos] === 0x30) {
    pos++;
  } else {
    pos = skipDigits(bytes, pos, end);
  }
  if (pos < end && bytes[pos] === 0x2e) pos = skipDigits(bytes, pos + 1, end);
  if (pos < end && (bytes[pos] === 0x65 || bytes[pos] === 0x45)) {
    pos++;
    if (pos < end && (bytes[pos] === 0x2b || bytes[pos] === 0x2d)) pos++;
    pos = skipDigits(bytes, pos, end);
  }
  return pos;
}

/** The offset after one or more decimal digits at `pos`. */
function skipDigits(bytes: Uint8Array, pos: number, end: number): number {
  const first = pos;
  while (pos < end && (bytes[pos] as number) >= 0x30 && (bytes[pos] as number) <= 0x39) pos++;
  if (pos === first) throw jsonScanError(bytes, pos, end, "a digit");
  return pos;
}
