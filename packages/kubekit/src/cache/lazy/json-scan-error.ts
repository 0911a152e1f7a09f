/**
 * The error of the JSON metadata scanner (issue 24 §2): where in the bytes the input stopped
 * being what the scanner expected, and what it expected there.
 */

/**
 * Thrown by `scanObjectMetadata`, `scanList` and `scanWatchFrame` when the bytes are not
 * JSON, are truncated, or hold a field the scanner returns with a type Kubernetes never
 * serves (e.g. a number where `metadata.name` must be a string).
 *
 * The message names the byte offset, what was expected and at most one character of what
 * was found there: never a run of the input, which may hold a secret.
 */
export class JsonScanError extends Error {
  /** The offset, in bytes from the start of the scanned buffer, where scanning failed. */
  readonly offset: number;
  /** What the scanner expected at {@link JsonScanError.offset}, e.g. `"',' or '}'"`. */
  readonly expected: string;
  /** What it found there: one quoted ASCII character, a byte in hex, or `"the end of the input"`. */
  readonly found: string;

  constructor(offset: number, expected: string, found: string) {
    super(`invalid JSON at byte ${offset}: expected ${expected}, found ${found}`);
    this.name = "JsonScanError";
    this.offset = offset;
    this.expected = expected;
    this.found = found;
  }
}

/**
 * A {@link JsonScanError} at `offset` of `bytes`, where bytes at or past `end` count as the
 * end of the input.
 */
export function jsonScanError(
  bytes: Uint8Array,
  offset: number,
  end: number,
  expected: string,
): JsonScanError {
  return new JsonScanError(offset, expected, describeByte(bytes, offset, end));
}

/** A printable ASCII byte quoted, any other byte in hex, or the end of the input. */
function describeByte(bytes: Uint8Array, offset: number, end: number): string {
  if (offset >= end) return "the end of the input";
  const byte = bytes[offset] as number;
  if (byte >= 0x20 && byte < 0x7f) return `'${String.fromCharCode(byte)}'`;
  return `byte 0x${byte.toString(16).padStart(2, "0")}`;
}
