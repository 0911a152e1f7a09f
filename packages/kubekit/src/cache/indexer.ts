/**
 * The informer cache: a keyed map with secondary indices (client-go's `cache` over a
 * `threadSafeMap`), and the factories that build it.
 */
import { runToCompletion } from "../core/event-loop-slice.js";
import { resourceVersionOf } from "../core/object-metadata.js";
import { IndexerError } from "./indexer-error.js";
import { NAMESPACE_INDEX, namespaceIndexFunc } from "./namespace-index.js";
import type { IndexFunc, Indexer, Indexers, KeyFunc, Store } from "./store.js";
import { DeletedFinalStateUnknown, deletionHandlingKey } from "./tombstone.js";
import type { ObjectWithMeta } from "./tombstone.js";
import { errorMessage } from "../core/error-message.js";

/** Options of {@link createIndexer}. */
export interface IndexerOptions<T> {
  /** The cache key of an object; default `deletionHandlingKey` (`ns/name` or `name`). */
  readonly keyFunc?: KeyFunc<T>;
  /**
   * The indices to maintain; default `{ [NAMESPACE_INDEX]: namespaceIndexFunc }`. Passing
   * this option replaces the default: include the namespace index yourself if you want it,
   * or pass `{}` for none.
   */
  readonly indexers?: Indexers<T>;
}

/** Options of {@link createStore}. */
export interface StoreOptions<T> {
  /** The cache key of an object; default `deletionHandlingKey` (`ns/name` or `name`). */
  readonly keyFunc?: KeyFunc<T>;
}

/** The values of one object in every index, aligned with the indexer's index order. */
type IndexValues = readonly (readonly string[])[];

interface Entry<T> {
  obj: T;
  values: IndexValues;
}

interface IndexSlot<T> {
  readonly name: string;
  readonly fn: IndexFunc<T>;
  /** indexed value → keys of the objects filed under it; never holds an empty set. */
  map: Map<string, Set<string>>;
}

const NO_VALUES: IndexValues = [];

/** {@link CacheIndexer.replaceSteps} pauses after every `STEP_MASK + 1` objects (a power of two). */
const STEP_MASK = 255;

/**
 * The whole content of a {@link CacheIndexer} built aside by
 * {@link CacheIndexer.replaceSteps}, invisible until {@link CacheIndexer.commitReplace}
 * swaps it in (once).
 */
export interface PreparedReplace {
  /** The resourceVersion the indexer records when this content is committed. */
  readonly resourceVersion: string;
  /** The number of objects (distinct keys) of this content. */
  readonly size: number;
}

class PreparedContent<T> implements PreparedReplace {
  committed = false;

  constructor(
    readonly owner: CacheIndexer<T>,
    readonly items: Map<string, Entry<T>>,
    readonly maps: Map<string, Set<string>>[],
    readonly resourceVersion: string,
  ) {}

  get size(): number {
    return this.items.size;
  }
}

/**
 * The {@link Indexer} of kubekit informers. Single-threaded JavaScript makes every method
 * atomic with respect to every other; in addition, a write that fails (a key function or an
 * index function throws) leaves the indexer exactly as it was.
 *
 * Costs: `get`/`getByKey` O(1); `add`/`update`/`delete` call each index function once on the
 * new object only (the values of the stored object are remembered, so a mutated cached object
 * cannot corrupt an index) and touch only the index entries whose values changed, with a fast
 * path when they did not; `list()` allocates one array; `byIndex` is proportional to its result.
 *
 * {@link CacheIndexer.lastSyncResourceVersion} follows every write that carries an object
 * with a resourceVersion (client-go's `threadSafeMap`): add, update, delete of an object (not
 * of a tombstone), replace and bookmark.
 *
 * Objects are stored as given and handed out shared: never mutate them.
 */
export class CacheIndexer<T> implements Indexer<T> {
  readonly #keyFunc: KeyFunc<T>;
  #items = new Map<string, Entry<T>>();
  readonly #slots: IndexSlot<T>[] = [];
  readonly #slotByName = new Map<string, IndexSlot<T>>();
  #lastSyncResourceVersion = "";

  /**
   * @param keyFunc the key of an object (tombstones are keyed by their own `key`).
   * @param indexers the initial indices; more can be added with {@link CacheIndexer.addIndexers}.
   */
  constructor(keyFunc: KeyFunc<T>, indexers: Indexers<T>) {
    this.#keyFunc = keyFunc;
    for (const [name, fn] of Object.entries(indexers)) {
      const slot: IndexSlot<T> = { name, fn, map: new Map() };
      this.#slots.push(slot);
      this.#slotByName.set(name, slot);
    }
  }

  get lastSyncResourceVersion(): string {
    return this.#lastSyncResourceVersion;
  }

  keyOf(obj: T | DeletedFinalStateUnknown<T>): string {
    return obj instanceof DeletedFinalStateUnknown ? obj.key : this.#keyFunc(obj);
  }

  add(obj: T): void {
    this.upsert(obj);
  }

  update(obj: T): void {
    this.upsert(obj);
  }

  /**
   * Writes `obj` under its key, as {@link CacheIndexer.add} does, and returns the object it
   * replaced, or `undefined` when the key was not cached: `getByKey` and `add` in one key
   * computation and one lookup (the cache update of an informer's event). A throwing key or
   * index function leaves the indexer unchanged.
   */
  upsert(obj: T): T | undefined {
    const key = this.keyOf(obj);
    const values = this.#indexValues(obj, key);
    const slots = this.#slots;
    const entry = this.#items.get(key);
    let previous: T | undefined;
    if (entry === undefined) {
      for (let i = 0; i < slots.length; i++) fileKey(slots[i]?.map, key, values[i]);
      this.#items.set(key, { obj, values });
    } else {
      for (let i = 0; i < slots.length; i++) {
        refileKey(slots[i]?.map, key, entry.values[i], values[i]);
      }
      previous = entry.obj;
      entry.obj = obj;
      entry.values = values;
    }
    this.#observe(obj);
    return previous;
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const key = this.keyOf(obj);
    const old = this.#items.get(key);
    if (old !== undefined) {
      const slots = this.#slots;
      for (let i = 0; i < slots.length; i++) unfileKey(slots[i]?.map, key, old.values[i]);
      this.#items.delete(key);
    }
    if (!(obj instanceof DeletedFinalStateUnknown)) this.#observe(obj);
  }

  list(): T[] {
    const out = new Array<T>(this.#items.size);
    let i = 0;
    for (const entry of this.#items.values()) out[i++] = entry.obj;
    return out;
  }

  listKeys(): string[] {
    return Array.from(this.#items.keys());
  }

  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined {
    return this.#items.get(this.keyOf(obj))?.obj;
  }

  getByKey(key: string): T | undefined {
    return this.#items.get(key)?.obj;
  }

  replace(list: readonly T[], resourceVersion: string): void {
    this.commitReplace(runToCompletion(this.replaceSteps(list, resourceVersion)));
  }

  /**
   * The work of {@link replace} as steps that change nothing: a generator that builds the new
   * content (the item map and every index map) aside, pausing (a bare `yield`) every few
   * hundred objects so that a caller may yield to the event loop (`runSliced`), and returns
   * it as a {@link PreparedReplace} for {@link commitReplace}. Readers keep seeing the current
   * content meanwhile. A key or index function that throws ends the generator with that
   * error, the indexer unchanged.
   */
  *replaceSteps(list: readonly T[], resourceVersion: string): Generator<void, PreparedReplace> {
    const slots = this.#slots.slice();
    const items = new Map<string, Entry<T>>();
    for (let i = 0; i < list.length; i++) {
      const obj = list[i] as T;
      const key = this.keyOf(obj);
      items.set(key, { obj, values: indexValues(slots, obj, key) });
      if ((i & STEP_MASK) === STEP_MASK) yield;
    }
    const maps = slots.map(() => new Map<string, Set<string>>());
    let filed = 0;
    for (const [key, entry] of items) {
      for (let i = 0; i < maps.length; i++) fileKey(maps[i], key, entry.values[i]);
      if ((++filed & STEP_MASK) === 0) yield;
    }
    return new PreparedContent(this, items, maps, resourceVersion);
  }

  /**
   * Swaps in content built by {@link replaceSteps} at once, as {@link replace} would have
   * written it, and records its resourceVersion. O(1), unless indices were added since the
   * content was built: their values are then computed here (a throwing index function
   * leaves the indexer unchanged). Writes made since the content was built are overwritten,
   * as by a `replace`.
   *
   * @throws {TypeError} when `prepared` was not built by this indexer, or was committed already.
   */
  commitReplace(prepared: PreparedReplace): void {
    if (!(prepared instanceof PreparedContent) || prepared.owner !== this || prepared.committed) {
      throw new TypeError(
        "commitReplace: the content was not prepared by this indexer, or was committed already",
      );
    }
    const content = prepared as PreparedContent<T>;
    const added = this.#slots.slice(content.maps.length);
    if (added.length > 0) {
      // Compute everything before changing anything, so a throwing index function aborts cleanly.
      const backfill: IndexValues[] = [];
      for (const [key, entry] of content.items) backfill.push(indexValues(added, entry.obj, key));
      const addedMaps = added.map(() => new Map<string, Set<string>>());
      let row = 0;
      for (const [key, entry] of content.items) {
        const values = backfill[row++] ?? NO_VALUES;
        for (let i = 0; i < addedMaps.length; i++) fileKey(addedMaps[i], key, values[i]);
        entry.values = [...entry.values, ...values];
      }
      content.maps.push(...addedMaps);
    }
    content.committed = true;
    this.#items = content.items;
    this.#slots.forEach((slot, i) => {
      slot.map = content.maps[i] ?? new Map();
    });
    this.#lastSyncResourceVersion = content.resourceVersion;
  }

  resync(): void {
    // A cache has nothing to re-deliver: resync is a queue concern.
  }

  bookmark(resourceVersion: string): void {
    this.#lastSyncResourceVersion = resourceVersion;
  }

  index(indexName: string, obj: T): T[] {
    const slot = this.#slot(indexName);
    const values = callIndexFunc(slot, obj, this.#keyOrUndefined(obj));
    const [only] = values;
    if (values.length === 1 && only !== undefined) return this.#objectsOf(slot.map.get(only));
    const keys = new Set<string>();
    for (const value of values) {
      const set = slot.map.get(value);
      if (set !== undefined) for (const key of set) keys.add(key);
    }
    return this.#objectsOf(keys);
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    const set = this.#slot(indexName).map.get(indexedValue);
    return set === undefined ? [] : Array.from(set);
  }

  listIndexFuncValues(indexName: string): string[] {
    return Array.from(this.#slot(indexName).map.keys());
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    return this.#objectsOf(this.#slot(indexName).map.get(indexedValue));
  }

  getIndexers(): Indexers<T> {
    return Object.fromEntries(this.#slots.map((slot) => [slot.name, slot.fn]));
  }

  addIndexers(indexers: Indexers<T>): void {
    const added = Object.entries(indexers);
    const conflicts = added.map(([name]) => name).filter((name) => this.#slotByName.has(name));
    if (conflicts.length > 0) {
      throw new IndexerError(
        "IndexerConflict",
        `indexer conflict: ${conflicts.map((n) => JSON.stringify(n)).join(", ")} already exist`,
        { indexNames: conflicts },
      );
    }
    if (added.length === 0) return;
    const slots = added.map(([name, fn]): IndexSlot<T> => ({ name, fn, map: new Map() }));
    // Compute everything before changing anything, so a throwing index function aborts cleanly.
    const backfill: IndexValues[] = [];
    for (const [key, entry] of this.#items) {
      const values = slots.map((slot) => callIndexFunc(slot, entry.obj, key));
      slots.forEach((slot, i) => fileKey(slot.map, key, values[i]));
      backfill.push(values);
    }
    let row = 0;
    for (const entry of this.#items.values()) {
      entry.values = [...entry.values, ...(backfill[row++] ?? [])];
    }
    for (const slot of slots) {
      this.#slots.push(slot);
      this.#slotByName.set(slot.name, slot);
    }
  }

  /** Records the resourceVersion of an object just written (client-go's `threadSafeMap.Update`). */
  #observe(obj: T): void {
    const rv = resourceVersionOf(obj);
    if (rv !== undefined) this.#lastSyncResourceVersion = rv;
  }

  #slot(indexName: string): IndexSlot<T> {
    const slot = this.#slotByName.get(indexName);
    if (slot === undefined) {
      throw new IndexerError("UnknownIndex", `index ${JSON.stringify(indexName)} does not exist`, {
        indexNames: [indexName],
      });
    }
    return slot;
  }

  #indexValues(obj: T, key: string): IndexValues {
    return indexValues(this.#slots, obj, key);
  }

  #keyOrUndefined(obj: T): string | undefined {
    try {
      return this.keyOf(obj);
    } catch {
      return undefined;
    }
  }

  #objectsOf(keys: Iterable<string> | undefined): T[] {
    const out: T[] = [];
    if (keys === undefined) return out;
    for (const key of keys) {
      const entry = this.#items.get(key);
      if (entry !== undefined) out.push(entry.obj);
    }
    return out;
  }
}

/** The values of `obj` (under `key`) in each of `slots`, in their order. */
function indexValues<T>(slots: readonly IndexSlot<T>[], obj: T, key: string): IndexValues {
  if (slots.length === 0) return NO_VALUES;
  const values = new Array<readonly string[]>(slots.length);
  for (let i = 0; i < slots.length; i++)
    values[i] = callIndexFunc(slots[i] as IndexSlot<T>, obj, key);
  return values;
}

/**
 * Runs an index function on the object of `key` (undefined when it has none), turning a throw
 * or a malformed result into an {@link IndexerError}.
 */
function callIndexFunc<T>(slot: IndexSlot<T>, obj: T, key: string | undefined): readonly string[] {
  let values: unknown;
  try {
    values = slot.fn(obj);
  } catch (cause) {
    const detail = errorMessage(cause);
    throw new IndexerError(
      "IndexFuncFailed",
      `index function ${JSON.stringify(slot.name)} failed for key ${JSON.stringify(key)}: ${detail}`,
      { indexNames: [slot.name], ...(key === undefined ? {} : { key }), cause },
    );
  }
  if (!isStringArray(values)) {
    throw new IndexerError(
      "IndexFuncFailed",
      `index function ${JSON.stringify(slot.name)} did not return an array of strings for key ${JSON.stringify(key)}`,
      { indexNames: [slot.name], ...(key === undefined ? {} : { key }) },
    );
  }
  return values;
}

function isStringArray(values: unknown): values is readonly string[] {
  if (!Array.isArray(values)) return false;
  for (let i = 0; i < values.length; i++) if (typeof values[i] !== "string") return false;
  return true;
}

function fileKey(
  map: Map<string, Set<string>> | undefined,
  key: string,
  values: readonly string[] = [],
): void {
  if (map === undefined) return;
  for (const value of values) {
    const set = map.get(value);
    if (set === undefined) map.set(value, new Set([key]));
    else set.add(key);
  }
}

function unfileKey(
  map: Map<string, Set<string>> | undefined,
  key: string,
  values: readonly string[] = [],
): void {
  if (map === undefined) return;
  for (const value of values) {
    const set = map.get(value);
    if (set === undefined) continue;
    set.delete(key);
    // An empty set left behind would leak memory for high-cardinality indices (kubernetes#84959).
    if (set.size === 0) map.delete(value);
  }
}

/** Moves `key` from the `before` values to the `after` values, touching nothing that is unchanged. */
function refileKey(
  map: Map<string, Set<string>> | undefined,
  key: string,
  before: readonly string[] = [],
  after: readonly string[] = [],
): void {
  if (before.length === 1 && after.length === 1 && before[0] === after[0]) return;
  if (sameValues(before, after)) return;
  const kept = new Set(after);
  unfileKey(
    map,
    key,
    before.filter((value) => !kept.has(value)),
  );
  fileKey(map, key, after);
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Builds the informer cache: keys from `keyFunc` (default `ns/name`), indices from `indexers`
 * (default: the namespace index only). For object types without `metadata`, both `keyFunc`
 * and `indexers` must be given.
 */
export function createIndexer<T extends ObjectWithMeta>(
  options?: IndexerOptions<T>,
): CacheIndexer<T>;
export function createIndexer<T>(
  options: IndexerOptions<T> & { readonly keyFunc: KeyFunc<T>; readonly indexers: Indexers<T> },
): CacheIndexer<T>;
export function createIndexer<T>(options: IndexerOptions<T> = {}): CacheIndexer<T> {
  const keyFunc = options.keyFunc ?? (deletionHandlingKey as KeyFunc<T>);
  const indexers = options.indexers ?? ({ [NAMESPACE_INDEX]: namespaceIndexFunc } as Indexers<T>);
  return new CacheIndexer(keyFunc, indexers);
}

/**
 * Builds a plain keyed {@link Store} (an indexer without indices): keys from `keyFunc`
 * (default `ns/name`, required for object types without `metadata`).
 */
export function createStore<T extends ObjectWithMeta>(options?: StoreOptions<T>): Store<T>;
export function createStore<T>(options: { readonly keyFunc: KeyFunc<T> }): Store<T>;
export function createStore<T>(options: StoreOptions<T> = {}): Store<T> {
  return new CacheIndexer(options.keyFunc ?? (deletionHandlingKey as KeyFunc<T>), {});
}
