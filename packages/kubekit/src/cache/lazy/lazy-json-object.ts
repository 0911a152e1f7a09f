/**
 * The lazy informer's item: an object's metadata, read eagerly, and its JSON bytes, parsed
 * into the body on first access (issue 24 §2).
 */
import { deepFreeze } from "../mutation-detector.js";
import type { LazyObject, LazyObjectMeta } from "../lazy-object.js";
import { LazyBodyParseError } from "./lazy-body-parse-error.js";

/** The UTF-8 text of `bytes`, decoded natively (invalid UTF-8 becomes U+FFFD). */
function textOf(bytes: Uint8Array): string {
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buffer.toString("utf8");
}

/**
 * A {@link LazyObject} over the JSON bytes of one object (a list item or a watch event's
 * object). `apiVersion`, `kind` and `metadata` are own enumerable properties, so it reads as
 * the object itself to every metadata accessor (keys, the namespace index, label selection,
 * resourceVersion comparisons); `object()` parses the bytes with `JSON.parse` on its first
 * call, applies the body transform if any, keeps the result and drops the bytes.
 *
 * The bytes it is given must not change afterwards; they may be a view into a larger buffer,
 * which then stays alive until the body is parsed (the lazy ListerWatcher hands it views
 * into list pages, and copies of watch events' objects).
 *
 * A body that is not valid JSON makes `object()` throw a {@link LazyBodyParseError} naming
 * the object each time it is called (the scanner that read the metadata validates only what
 * it returns and delimits the rest, so malformed bytes in `spec`, `status` or managedFields
 * surface here).
 */
export class LazyJsonObject<T> implements LazyObject<T> {
  declare readonly apiVersion?: string;
  declare readonly kind?: string;
  readonly metadata: LazyObjectMeta;
  /** The JSON bytes until the body is parsed, then undefined. */
  #bytes: Uint8Array | undefined;
  /** The parsed body, once parsed. */
  #body: T | undefined;
  /** Applied to the body as it is parsed. */
  #transform: ((body: T) => T) | undefined;
  /** The mutation detector's mode: deep-freeze the body when it is parsed. */
  #freezeBody = false;

  private constructor(
    apiVersion: string | undefined,
    kind: string | undefined,
    metadata: LazyObjectMeta,
    bytes: Uint8Array | undefined,
    body: T | undefined,
  ) {
    // Absent fields stay absent (as in the wire JSON), not present-but-undefined.
    if (apiVersion !== undefined) (this as { apiVersion?: string }).apiVersion = apiVersion;
    if (kind !== undefined) (this as { kind?: string }).kind = kind;
    this.metadata = metadata;
    this.#bytes = bytes;
    this.#body = body;
  }

  /**
   * A lazy object over `bytes` (one JSON object, owned by it from now on), whose top-level
   * `apiVersion`, `kind` and metadata were read as `scanned`.
   */
  static fromBytes<T>(
    scanned: {
      readonly apiVersion?: string | undefined;
      readonly kind?: string | undefined;
      readonly metadata: LazyObjectMeta;
    },
    bytes: Uint8Array,
  ): LazyJsonObject<T> {
    return new LazyJsonObject<T>(
      scanned.apiVersion,
      scanned.kind,
      scanned.metadata,
      bytes,
      undefined,
    );
  }

  /**
   * A lazy object that is already parsed: `body` itself, with its metadata read from it
   * (used where the body exists anyway, e.g. a transform that needed it, or tests).
   */
  static fromBody<T>(body: T, metadata: LazyObjectMeta): LazyJsonObject<T> {
    const fields = body as { readonly apiVersion?: unknown; readonly kind?: unknown };
    return new LazyJsonObject<T>(
      typeof fields.apiVersion === "string" ? fields.apiVersion : undefined,
      typeof fields.kind === "string" ? fields.kind : undefined,
      metadata,
      undefined,
      body,
    );
  }

  /**
   * The same object with `transform` applied to its body when it is parsed (at once if it
   * already is). `transform` must not change what the metadata describes: the metadata is
   * shared, not re-read.
   */
  static withBodyTransform<T>(
    lazy: LazyJsonObject<T>,
    transform: (body: T) => T,
  ): LazyJsonObject<T> {
    const bytes = lazy.#bytes;
    const out = new LazyJsonObject<T>(
      lazy.apiVersion,
      lazy.kind,
      lazy.metadata,
      bytes,
      bytes === undefined ? transform(lazy.#body as T) : undefined,
    );
    const previous = lazy.#transform;
    if (bytes !== undefined) {
      out.#transform =
        previous === undefined ? transform : (body: T): T => transform(previous(body));
    }
    out.#freezeBody = lazy.#freezeBody;
    if (out.#freezeBody && bytes === undefined) deepFreeze(out.#body);
    return out;
  }

  /**
   * The mutation detector over a lazy object: its metadata is deep-frozen now, its body
   * when it is parsed (at once if it already is); the bytes are private and never handed
   * out. Returns `lazy`.
   */
  static freeze<T>(lazy: LazyJsonObject<T>): LazyJsonObject<T> {
    deepFreeze(lazy.metadata);
    lazy.#freezeBody = true;
    if (lazy.#bytes === undefined) deepFreeze(lazy.#body);
    Object.freeze(lazy);
    return lazy;
  }

  get parsed(): boolean {
    return this.#bytes === undefined;
  }

  /**
   * The body: parsed from the bytes on the first call (then the bytes are dropped), the same
   * instance afterwards. Shared with every reader: never mutate it.
   *
   * @throws {LazyBodyParseError} when the bytes are not valid JSON.
   */
  object(): T {
    const bytes = this.#bytes;
    if (bytes === undefined) return this.#body as T;
    let parsed: T;
    try {
      parsed = JSON.parse(textOf(bytes)) as T;
    } catch (err) {
      throw new LazyBodyParseError(this.kind, this.metadata, err);
    }
    const transform = this.#transform;
    let body = transform === undefined ? parsed : transform(parsed);
    if (this.#freezeBody) body = deepFreeze(body);
    this.#body = body;
    this.#bytes = undefined;
    this.#transform = undefined;
    return body;
  }

  /** The byte length of the JSON still held (0 once parsed): what an unparsed object costs. */
  get byteLength(): number {
    return this.#bytes?.byteLength ?? 0;
  }
}

/**
 * The mutation detector's freeze of a cached object, lazy or not: a {@link LazyJsonObject}
 * gets its metadata frozen now and its body when parsed; another lazy object (any value
 * with an `object()` method) its metadata; anything else is deep-frozen. Returns `obj`.
 */
export function freezeCached<T>(obj: T): T {
  if (obj instanceof LazyJsonObject) {
    LazyJsonObject.freeze(obj);
    return obj;
  }
  const candidate = obj as { readonly object?: unknown; readonly metadata?: unknown };
  if (typeof obj === "object" && obj !== null && typeof candidate.object === "function") {
    deepFreeze(candidate.metadata);
    return obj;
  }
  return deepFreeze(obj);
}
