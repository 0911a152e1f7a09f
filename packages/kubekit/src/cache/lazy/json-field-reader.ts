/**
 * A cursor over the UTF-8 bytes of a JSON document that reads the few members the metadata
 * scanner wants (strings, numbers, string maps, string arrays, small objects) exactly as
 * JSON.parse would return them, and skips every other value without building it.
 */
import { jsonScanError, type JsonScanError } from "./json-scan-error.js";
import {
  bufferView,
  decodeJsonString,
  decodeUtf8,
  lastStringFlags,
  scanStringEnd,
  STRING_ESCAPED,
} from "./json-string-bytes.js";
import { skipLiteral, skipNumber, skipValue, skipWhitespace } from "./json-value-skip.js";

/** A value JSON.parse could return for a member of a small object. */
type JsonMemberValue = string | number | boolean | null | object;

/**
 * Reads JSON from `bytes[start, end)`: every method first skips whitespace, reads one token
 * or value, and throws a {@link JsonScanError} (offset in `bytes`) when the input is not
 * what it must be there.
 */
export class JsonFieldReader {
  readonly #bytes: Uint8Array;
  readonly #end: number;
  #pos: number;
  /** `#bytes` as a Buffer, made on the first string decoded. */
  #view: Buffer | undefined;

  constructor(bytes: Uint8Array, start: number, end: number) {
    if (
      !Number.isInteger(start) ||
      !Number.isInteger(end) ||
      start < 0 ||
      start > end ||
      end > bytes.length
    ) {
      throw new RangeError(
        `JSON scan range [${start}, ${end}) is not within the ${bytes.length} bytes given`,
      );
    }
    this.#bytes = bytes;
    this.#end = end;
    this.#pos = start;
  }

  /** The current offset in the bytes. */
  get offset(): number {
    return this.#pos;
  }

  /** The next non-whitespace byte (not consumed), or -1 at the end of the range. */
  peek(): number {
    let pos = this.#pos;
    if (pos >= this.#end) return -1;
    const byte = this.#bytes[pos] as number;
    if (byte > 0x20) return byte;
    pos = this.#pos = skipWhitespace(this.#bytes, pos, this.#end);
    return pos < this.#end ? (this.#bytes[pos] as number) : -1;
  }

  /** A {@link JsonScanError} at the current offset (after whitespace). */
  error(expected: string): JsonScanError {
    this.peek();
    return jsonScanError(this.#bytes, this.#pos, this.#end, expected);
  }

  /** Consumes `{`; then `}` if the object is empty. Whether it has members. */
  openObject(what: string): boolean {
    if (this.peek() !== 0x7b) throw this.error(what);
    this.#pos++;
    if (this.peek() !== 0x7d) return true;
    this.#pos++;
    return false;
  }

  /** Consumes `[`; then `]` if the array is empty. Whether it has elements. */
  openArray(what: string): boolean {
    if (this.peek() !== 0x5b) throw this.error(what);
    this.#pos++;
    if (this.peek() !== 0x5d) return true;
    this.#pos++;
    return false;
  }

  /**
   * After a member or element: consumes `,` and returns true, or consumes `close` (`}` or
   * `]`) and returns false.
   */
  next(close: number): boolean {
    const byte = this.peek();
    this.#pos++;
    if (byte === 0x2c) return true;
    if (byte === close) return false;
    this.#pos--;
    throw this.error(close === 0x7d ? "',' or '}'" : "',' or ']'");
  }

  /**
   * Consumes `"key":` and returns the index of the key in `names`, or -1 if it is none of
   * them. Compares bytes, decoding only a key that holds an escape.
   */
  key(names: readonly string[]): number {
    if (this.peek() !== 0x22) throw this.error("'\"' opening a key");
    const bytes = this.#bytes;
    const start = this.#pos + 1;
    const quote = scanStringEnd(bytes, start, this.#end);
    const flags = lastStringFlags();
    this.#pos = quote + 1;
    if (this.peek() !== 0x3a) throw this.error("':' after a key");
    this.#pos++;
    if ((flags & STRING_ESCAPED) !== 0) {
      return names.indexOf(this.#decode(start, quote, flags, false));
    }
    const length = quote - start;
    for (let n = 0; n < names.length; n++) {
      const name = names[n] as string;
      if (name.length === length && bytesEqual(bytes, start, name)) return n;
    }
    return -1;
  }

  /** Consumes `"key":` and returns the key as JSON.parse decodes it. */
  anyKey(): string {
    if (this.peek() !== 0x22) throw this.error("'\"' opening a key");
    const key = this.#string(true);
    if (this.peek() !== 0x3a) throw this.error("':' after a key");
    this.#pos++;
    return key;
  }

  /** Skips one value, delimiting it without validating it (see `skipValue`). */
  skip(): void {
    this.#pos = skipValue(this.#bytes, this.#pos, this.#end);
  }

  /** Consumes `null` if it is next; whether it was. */
  null(): boolean {
    if (this.peek() !== 0x6e) return false;
    this.#pos = skipLiteral(this.#bytes, this.#pos, this.#end, "null");
    return true;
  }

  /**
   * A string, or undefined for `null`; anything else throws, expecting `what`. `shared`: a
   * value that repeats across objects (see `decodeJsonString`).
   */
  string(what: string, shared = false): string | undefined {
    const byte = this.peek();
    if (byte === 0x22) return this.#string(shared);
    if (byte === 0x6e && this.null()) return undefined;
    throw this.error(what);
  }

  /** A number as JSON.parse reads it, or undefined for `null`; anything else throws. */
  number(what: string): number | undefined {
    const byte = this.peek();
    if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39)) {
      const start = this.#pos;
      this.#pos = skipNumber(this.#bytes, start, this.#end);
      return Number(this.#decode(start, this.#pos, 0, false));
    }
    if (byte === 0x6e && this.null()) return undefined;
    throw this.error(what);
  }

  /**
   * An object of strings (labels, annotations), or undefined for `null`. A `__proto__` key
   * becomes an own property, as JSON.parse makes it; duplicate keys: the last wins.
   */
  stringMap(what: string): Record<string, string> | undefined {
    if (this.null()) return undefined;
    const map: Record<string, string> = {};
    if (!this.openObject(what)) return map;
    do {
      const key = this.anyKey();
      if (this.peek() !== 0x22) throw this.error("a string value");
      setOwn(map, key, this.#string(true));
    } while (this.next(0x7d));
    return map;
  }

  /** An array of strings (finalizers), or undefined for `null`. */
  stringArray(what: string): string[] | undefined {
    if (this.null()) return undefined;
    const list: string[] = [];
    if (!this.openArray(what)) return list;
    do {
      if (this.peek() !== 0x22) throw this.error("a string element");
      list.push(this.#string(true));
    } while (this.next(0x5d));
    return list;
  }

  /** An array of objects (ownerReferences) as JSON.parse returns it, or undefined for `null`. */
  objectArray(what: string): object[] | undefined {
    if (this.null()) return undefined;
    const list: object[] = [];
    if (!this.openArray(what)) return list;
    do {
      list.push(this.object("an object element"));
    } while (this.next(0x5d));
    return list;
  }

  /**
   * An object as JSON.parse returns it: built here when every member is a string, number,
   * boolean or null; otherwise (a nested object or array) JSON.parse of its bytes.
   */
  object(what: string): object {
    const start = this.#pos;
    const result: Record<string, JsonMemberValue> = {};
    if (!this.openObject(what)) return result;
    do {
      const key = this.anyKey();
      const byte = this.peek();
      if (byte === 0x7b || byte === 0x5b) return this.#parseObjectAt(start);
      setOwn(result, key, this.#scalar(byte));
    } while (this.next(0x7d));
    return result;
  }

  /** Checks that only whitespace is left before the end of the range. */
  finish(): void {
    if (this.peek() !== -1) throw this.error("the end of the JSON value");
  }

  /** The string at the cursor; `shared`: see `decodeJsonString`. */
  #string(shared: boolean): string {
    const bytes = this.#bytes;
    const start = this.#pos + 1;
    const quote = scanStringEnd(bytes, start, this.#end);
    this.#pos = quote + 1;
    return this.#decode(start, quote, lastStringFlags(), shared);
  }

  #decode(start: number, quote: number, flags: number, shared: boolean): string {
    const view = (this.#view ??= bufferView(this.#bytes));
    return decodeJsonString(this.#bytes, view, start, quote, flags, shared);
  }

  #scalar(byte: number): JsonMemberValue {
    if (byte === 0x22) return this.#string(true);
    if (byte === 0x74) {
      this.#pos = skipLiteral(this.#bytes, this.#pos, this.#end, "true");
      return true;
    }
    if (byte === 0x66) {
      this.#pos = skipLiteral(this.#bytes, this.#pos, this.#end, "false");
      return false;
    }
    if (byte === 0x6e && this.null()) return null;
    const value = this.number("a JSON value");
    return value as number;
  }

  /**
   * JSON.parse of the object starting at `start` (delimited by `skipValue`); where JSON.parse
   * rejects it, a {@link JsonScanError} at `start` (the value is returned: it is validated).
   */
  #parseObjectAt(start: number): object {
    this.#pos = skipValue(this.#bytes, start, this.#end);
    try {
      return JSON.parse(decodeUtf8(this.#bytes, start, this.#pos)) as object;
    } catch {
      throw jsonScanError(this.#bytes, start, this.#end, "a valid JSON object");
    }
  }
}

/** Whether `bytes` from `start` hold the ASCII `text`. */
function bytesEqual(bytes: Uint8Array, start: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (bytes[start + i] !== text.charCodeAt(i)) return false;
  }
  return true;
}

/** `target[key] = value` as JSON.parse defines it: `__proto__` becomes an own property. */
function setOwn<V>(target: Record<string, V>, key: string, value: V): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}
