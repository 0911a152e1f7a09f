/**
 * Skipping JSON values in UTF-8 bytes without building them, so that the metadata scanner
 * passes over `spec`, `status` and `managedFields` at a fraction of the cost of parsing
 * them. The skip is structural (strings and brackets delimited, nothing else checked: see
 * {@link skipValue}); the scalars the scanner returns are read by the exact helpers below.
 * Iterative: nesting depth costs one byte per level (off the JS heap), never stack.
 *
 * The loop is written for speed (one pass, bytes compared inline, no call per byte): this is
 * the hot path of a lazy informer's sync.
 */
import { jsonScanError } from "./json-scan-error.js";

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
 * which must end before `end`, found STRUCTURALLY: a string is skipped to its closing quote
 * (escapes honoured, not checked), an object or array to its matching close (brackets counted
 * outside strings, `}` must close a `{` and `]` a `[`); numbers, literals, commas, colons and
 * control characters inside containers are not checked. A number or literal standing alone
 * is checked. Throws `JsonScanError` where the value cannot be delimited; its offset is `end`
 * when `bytes[pos, end)` is a truncated prefix of a JSON value (an unclosed string, object or
 * array), and also for some malformed input that never closes its brackets.
 *
 * The rule behind it: what the scanner skips, it does not return; the bytes are checked in
 * full by JSON.parse when the body is parsed (`LazyObject.object()`), so a malformed skipped
 * part surfaces there as a typed error naming the object.
 */
export function skipValue(bytes: Uint8Array, pos: number, end: number): number {
  pos = skipWhitespace(bytes, pos, end);
  if (pos >= end) throw jsonScanError(bytes, pos, end, "a JSON value");
  const first = bytes[pos] as number;
  if (first !== 0x22 && first !== 0x7b && first !== 0x5b) {
    return skipScalar(bytes, pos, end, first);
  }
  // Every string closes at or before the last quote of the range: the string loop needs no
  // bounds check, only a check after each escape (which may jump past it).
  const lastQuote = bytes.lastIndexOf(0x22, end - 1);
  let stack = (sharedStack ??= new Uint8Array(64));
  let depth = 0;
  for (; pos < end; pos++) {
    const byte = bytes[pos] as number;
    if (byte === 0x22) {
      if (++pos > lastQuote) break;
      // Only an escape can jump past the last quote: a plain byte before it is not a quote.
      let inner = bytes[pos] as number;
      while (inner !== 0x22) {
        if (inner === 0x5c) {
          pos += 2;
          if (pos > lastQuote) return unclosed(bytes, end);
        } else {
          pos++;
        }
        inner = bytes[pos] as number;
      }
      if (depth === 0) return pos + 1;
    } else if (byte === 0x7b || byte === 0x5b) {
      if (depth === stack.length) stack = deeperStack(stack);
      stack[depth++] = byte + 2;
    } else if (byte === 0x7d || byte === 0x5d) {
      if (stack[--depth] !== byte) {
        throw jsonScanError(bytes, pos, end, `'${String.fromCharCode(stack[depth] as number)}'`);
      }
      if (depth === 0) return pos + 1;
    }
  }
  return unclosed(bytes, end);
}

/** Throws the error of a value that `bytes[.., end)` leaves open. */
function unclosed(bytes: Uint8Array, end: number): never {
  throw jsonScanError(bytes, end, end, "the rest of the JSON value");
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
