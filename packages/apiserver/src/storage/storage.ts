import type { JsonObject } from "kubekit";
import { CommittedEvent } from "./committed-event.js";
import { OrderedKeys } from "./ordered-keys.js";
import { ParsedObjectCache } from "./parsed-object-cache.js";
import { encodeStored, parseStored } from "./stored-json.js";

/** A change committed to storage, as watchers and the history see it. */
export interface StorageEvent {
  /** The revision this change was committed at. */
  readonly rv: number;
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  /** The resource the object belongs to (`group/plural`). */
  readonly resource: string;
  /** The object key: `namespace/name`, or `name` for cluster-scoped objects. */
  readonly key: string;
  /**
   * The new state; for DELETED the last state, stamped with the deletion's revision. Parsed
   * from {@link objectJson} on first access when the event comes from the history.
   */
  readonly object: JsonObject;
  /** The state before the change; `undefined` for ADDED. Parsed on first access. */
  readonly previous: JsonObject | undefined;
  /**
   * `object`'s JSON as stored (UTF-8, no trailing newline), encoded once at commit and shared
   * by every watcher and list: never modify it.
   */
  readonly objectJson: Buffer;
  /** `previous`'s JSON as it was stored; `undefined` for ADDED. Never modify it. */
  readonly previousJson: Buffer | undefined;
}

/** A key range of one resource at one revision (see {@link Storage.range}). */
export interface StorageRange<T = JsonObject> {
  readonly entries: Iterable<[string, T]>;
  /** How many keys of the range come after `key`. */
  countAfter(key: string): number;
}

/** Thrown when a revision is older than the retained history. */
export class RevisionCompactedError extends Error {
  constructor(
    readonly requested: number,
    readonly oldestAvailable: number,
  ) {
    super(`revision ${requested} has been compacted (oldest available ${oldestAvailable})`);
  }
}

/** The objects of one resource: their stored bytes by key, and the keys in order. */
class ResourceItems {
  readonly items = new Map<string, Buffer>();
  readonly keys = new OrderedKeys();

  set(key: string, json: Buffer): void {
    if (!this.items.has(key)) this.keys.insert(key);
    this.items.set(key, json);
  }

  delete(key: string): void {
    if (this.items.delete(key)) this.keys.delete(key);
  }
}

/** Byte-wise comparison of keys, the order etcd lists them in. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** JSON bytes of parsed objects kept for readers (see {@link ParsedObjectCache}). */
const PARSED_CACHE_BYTES = 16 * 1024 * 1024;

/**
 * Resources with at most this many objects are cached when iterated (namespaces, RBAC,
 * webhook configurations, CRDs: read whole on many requests); larger ones are parsed per
 * iteration without evicting the hot objects.
 */
const SCAN_CACHE_MAX_OBJECTS = 1024;

/**
 * The embedded server's etcd: every object of every resource, one global revision counter
 * that every write (deletes included) increments, and a bounded history of changes that
 * backs watch replay and consistent pagination.
 *
 * Objects are stored as their JSON bytes, outside the JS heap (see `stored-json.ts`), keys in
 * an {@link OrderedKeys} per resource. Readers that need objects get them parsed, through a
 * bounded cache of parsed objects ({@link ParsedObjectCache}); lists and watches read the
 * bytes ({@link getJson}, {@link rangeJson}, {@link StorageEvent.objectJson}).
 *
 * Objects handed out may be shared with other readers and must never be mutated: a write
 * stores a new object.
 */
export class Storage {
  #revision: number;
  readonly #resources = new Map<string, ResourceItems>();
  #history: CommittedEvent[] = [];
  #historyStart = 0;
  /** Events with `rv >= oldestRetained` are all in the history. */
  #oldestRetained: number;
  readonly #listeners = new Set<(event: StorageEvent) => void>();
  readonly #historyCapacity: number;
  readonly #parsed = new ParsedObjectCache(PARSED_CACHE_BYTES);

  constructor(historyCapacity: number) {
    this.#historyCapacity = historyCapacity;
    this.#revision = 1;
    this.#oldestRetained = 2;
  }

  /** The current revision (the RV of the last write). */
  get currentRevision(): number {
    return this.#revision;
  }

  /** The oldest revision `R` from which changes can still be replayed (every event after R is kept). */
  get oldestReplayable(): number {
    return this.#oldestRetained - 1;
  }

  /** The stored object at a key, parsed (through the cache of parsed objects). */
  get(resource: string, key: string): JsonObject | undefined {
    const json = this.#resources.get(resource)?.items.get(key);
    return json && this.parse(json, true);
  }

  /** The stored JSON of the object at a key (never modify it). */
  getJson(resource: string, key: string): Buffer | undefined {
    return this.#resources.get(resource)?.items.get(key);
  }

  /**
   * The object of stored bytes (from {@link getJson}, {@link rangeJson} or an event): from the
   * cache of parsed objects, or parsed — and then cached only when `cache` is set, so that a
   * scan of a large resource does not evict the objects readers come back to.
   */
  parse(json: Buffer, cache: boolean): JsonObject {
    const hit = cache ? this.#parsed.get(json) : this.#parsed.peek(json);
    if (hit) return hit;
    const obj = parseStored(json);
    if (cache) this.#parsed.set(json, obj);
    return obj;
  }

  /** Number of objects of a resource. */
  count(resource: string): number {
    return this.#resources.get(resource)?.items.size ?? 0;
  }

  /**
   * Current objects of a resource, in key order, parsed (see {@link parse}). Reads the keys
   * live: finish (or spread) the iteration before writing to the resource.
   */
  *current(resource: string, startAfter?: string): Iterable<[string, JsonObject]> {
    const items = this.#resources.get(resource);
    if (!items) return;
    const cache = items.items.size <= SCAN_CACHE_MAX_OBJECTS;
    const keys =
      startAfter === undefined
        ? items.keys.between("", false, undefined)
        : items.keys.between(startAfter, true, undefined);
    for (const key of keys) yield [key, this.parse(items.items.get(key) as Buffer, cache)];
  }

  /**
   * Current objects of a resource whose key starts with `prefix` (e.g. `"ns/"`), in key order,
   * parsed; like {@link current}, finish the iteration before writing to the resource.
   */
  *withPrefix(resource: string, prefix: string): Iterable<[string, JsonObject]> {
    const items = this.#resources.get(resource);
    if (!items) return;
    const cache = items.items.size <= SCAN_CACHE_MAX_OBJECTS;
    for (const key of items.keys.between(prefix, false, prefixEnd(prefix))) {
      yield [key, this.parse(items.items.get(key) as Buffer, cache)];
    }
  }

  /** {@link rangeJson} with the objects parsed (not cached: see {@link parse}). */
  range(
    resource: string,
    rv: number,
    prefix: string,
    startAfter: string | undefined,
  ): StorageRange {
    const range = this.rangeJson(resource, rv, prefix, startAfter);
    const parse = (json: Buffer): JsonObject => this.parse(json, false);
    function* entries(): Iterable<[string, JsonObject]> {
      for (const [key, json] of range.entries) yield [key, parse(json)];
    }
    return { entries: entries(), countAfter: (key) => range.countAfter(key) };
  }

  /**
   * A key range of a resource as of revision `rv` (the current state when `rv` is current),
   * as stored bytes: keys starting with `prefix` (all when empty) and after `startAfter`, in
   * key order, with the count of range keys after a given key. Neither copies the resource:
   * at an older revision the current keys are merged with the history's changes since `rv`
   * (cost in the changes, not the resource's size). Read the entries before the next write.
   * Throws {@link RevisionCompactedError} when history no longer covers `rv`.
   */
  rangeJson(
    resource: string,
    rv: number,
    prefix: string,
    startAfter: string | undefined,
  ): StorageRange<Buffer> {
    if (rv < this.#revision) this.assertReplayable(rv);
    const items = this.#resources.get(resource);
    const keys = items?.keys ?? new OrderedKeys();
    const values = items?.items ?? new Map<string, Buffer>();
    const end = prefixEnd(prefix);
    const exclusive = startAfter !== undefined && startAfter >= prefix;
    const from = exclusive ? startAfter : prefix;
    const total = end === undefined ? keys.size : keys.rank(end, false);
    const currentAfter = (key: string): number => Math.max(0, total - keys.rank(key, true));
    if (rv >= this.#revision) {
      function* entries(): Iterable<[string, Buffer]> {
        for (const key of keys.between(from, exclusive, end))
          yield [key, values.get(key) as Buffer];
      }
      return { entries: entries(), countAfter: currentAfter };
    }
    // The state at rv of every key of the range changed since: its first change's `previous`.
    const changed = new Map<string, Buffer | undefined>();
    for (const event of this.eventsAfter(rv)) {
      if (event.resource !== resource || changed.has(event.key)) continue;
      if (event.key.startsWith(prefix)) changed.set(event.key, event.previousJson);
    }
    const changedKeys = [...changed.keys()].sort(compareKeys);
    function* entries(): Iterable<[string, Buffer]> {
      let c = 0;
      const flushBefore = function* (key: string | undefined): Iterable<[string, Buffer]> {
        for (; c < changedKeys.length; c++) {
          const k = changedKeys[c] as string;
          if (key !== undefined && k >= key) return;
          const old = changed.get(k);
          if (old && (startAfter === undefined || k > startAfter)) yield [k, old];
        }
      };
      for (const key of keys.between(from, exclusive, end)) {
        yield* flushBefore(key);
        if (!changed.has(key)) yield [key, values.get(key) as Buffer];
      }
      yield* flushBefore(undefined);
    }
    const countAfter = (key: string): number => {
      let n = currentAfter(key);
      for (const k of changedKeys) {
        if (k <= key) continue;
        if (values.has(k)) n--;
        if (changed.get(k)) n++;
      }
      return n;
    };
    return { entries: entries(), countAfter };
  }

  /** Throws {@link RevisionCompactedError} unless every change after `rv` is retained. */
  assertReplayable(rv: number): void {
    if (rv + 1 < this.#oldestRetained)
      throw new RevisionCompactedError(rv, this.#oldestRetained - 1);
  }

  /** Changes committed after revision `rv`, oldest first (call {@link assertReplayable} first). */
  *eventsAfter(rv: number): Iterable<StorageEvent> {
    // Binary search the history for the first event with rv > given rv.
    let lo = this.#historyStart;
    let hi = this.#history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#history[mid] as StorageEvent).rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.#history.length; i++) yield this.#history[i] as StorageEvent;
  }

  /**
   * Commits a write: `next` is the new state (its `metadata.resourceVersion` is set here),
   * `null` deletes. Returns the event, whose `object` is the stored object (for a delete, the
   * last state stamped with the deletion's revision). The object is JSON-encoded first: when
   * that throws, nothing is committed and the error propagates.
   */
  commit(resource: string, key: string, next: JsonObject | null): StorageEvent {
    let items = this.#resources.get(resource);
    if (!items) {
      items = new ResourceItems();
      this.#resources.set(resource, items);
    }
    const previousJson = items.items.get(key);
    if (!next && !previousJson) throw new Error(`storage: delete of missing ${resource} ${key}`);
    const rv = this.#revision + 1;
    const previous = previousJson && this.#parsed.peek(previousJson);
    const base = next ?? previous ?? parseStored(previousJson as Buffer);
    const object: JsonObject = {
      ...base,
      metadata: { ...(base["metadata"] as JsonObject), resourceVersion: String(rv) },
    };
    // Encode before anything changes: an object that cannot be serialized is never stored
    // (it would fail every read and watch of its resource).
    const json = encodeStored(object);
    this.#revision = rv;
    if (next) {
      items.set(key, json);
      this.#parsed.set(json, object);
    } else items.delete(key);
    const type = !next ? "DELETED" : previousJson ? "MODIFIED" : "ADDED";
    const event = new CommittedEvent(rv, type, resource, key, json, previousJson, object, previous);
    this.#record(event.retained());
    for (const listener of this.#listeners) listener(event);
    return event;
  }

  /** Removes every object of a resource without events (used when a CRD disappears). */
  dropResource(resource: string): void {
    this.#resources.delete(resource);
  }

  /** Subscribes to every committed change, synchronously; returns the unsubscribe function. */
  subscribe(listener: (event: StorageEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets all history: any revision before the current one becomes too old. */
  compact(): void {
    this.#history = [];
    this.#historyStart = 0;
    this.#oldestRetained = this.#revision + 1;
  }

  #record(event: CommittedEvent): void {
    this.#history.push(event);
    const size = this.#history.length - this.#historyStart;
    if (size > this.#historyCapacity) {
      const dropped = this.#history[this.#historyStart] as CommittedEvent;
      this.#history[this.#historyStart] = undefined as unknown as CommittedEvent;
      this.#historyStart++;
      this.#oldestRetained = dropped.rv + 1;
      if (this.#historyStart > 4096 && this.#historyStart * 2 > this.#history.length) {
        this.#history = this.#history.slice(this.#historyStart);
        this.#historyStart = 0;
      }
    }
  }
}

/** The smallest key after every key starting with `prefix`; undefined for the empty prefix. */
function prefixEnd(prefix: string): string | undefined {
  return prefix === "" ? undefined : `${prefix}\uffff`;
}
