/**
 * The local object cache an informer keeps (client-go's `Store` and `Indexer` interfaces);
 * {@link CacheIndexer} in `indexer.ts` implements both.
 */
import type { ReflectorStore } from "./reflector-store.js";
import type { DeletedFinalStateUnknown } from "./tombstone.js";

/**
 * Computes the cache key of an object. Must be deterministic. Tombstones never reach a key
 * function: stores and queues use a {@link DeletedFinalStateUnknown}'s own `key`.
 */
export type KeyFunc<T> = (obj: T) => string;

/**
 * Computes the values under which an object is filed in one index (client-go's `IndexFunc`):
 * zero, one or several strings. Duplicates are harmless. It must be deterministic and must
 * not depend on anything but the object. A throw is reported as an `IndexerError` with
 * reason `IndexFuncFailed`, and the write that triggered it is not applied.
 */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** Named index functions (client-go's `Indexers`). */
export type Indexers<T> = Readonly<Record<string, IndexFunc<T>>>;

/**
 * A keyed object cache (client-go's `Store`). Objects are stored and returned as given, never
 * copied: treat everything returned as read-only, since mutating a cached object corrupts
 * the cache for every reader (and, for an {@link Indexer}, is not re-indexed).
 */
export interface Store<T> extends ReflectorStore<T> {
  /** The key of an object (a tombstone's own key); throws what the key function throws. */
  keyOf(obj: T | DeletedFinalStateUnknown<T>): string;
  /** Inserts or replaces the object under its key. */
  add(obj: T): void;
  /** Same as {@link Store.add}. */
  update(obj: T): void;
  /** Removes the object with the key of `obj` (or of the tombstone); absent keys are ignored. */
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  /** Every cached object, in a fresh array (the objects themselves are shared). */
  list(): T[];
  /** Every key, in a fresh array. */
  listKeys(): string[];
  /** The cached object with the key of `obj`, or `undefined`. */
  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined;
  /** The cached object under `key`, or `undefined`. O(1). */
  getByKey(key: string): T | undefined;
  /**
   * Atomically replaces the whole content with `list` (a later duplicate key wins) and records
   * `resourceVersion` as {@link Store.lastSyncResourceVersion}.
   */
  replace(list: readonly T[], resourceVersion: string): void;
  /** No-op for a cache: kept because a Reflector may write into a plain store. */
  resync(): void;
  /** Records that the cache is current as of `resourceVersion` (a processed watch bookmark). */
  bookmark(resourceVersion: string): void;
  /**
   * The latest resourceVersion the store has seen (client-go's `LastStoreSyncResourceVersion`):
   * that of the last {@link Store.replace}, {@link Store.bookmark}, or `add`/`update`/`delete`
   * of an object carrying a non-empty `metadata.resourceVersion` (deleting a tombstone leaves
   * it); `""` before any. It follows writes in the order they are made, so it only moves
   * forward when they come in resourceVersion order, as an informer's in-order queue delivers
   * them.
   */
  readonly lastSyncResourceVersion: string;
}

/**
 * A {@link Store} with secondary indices (client-go's `Indexer`). Every write keeps every
 * index current; every query naming an index that does not exist throws an `IndexerError`
 * with reason `UnknownIndex`.
 */
export interface Indexer<T> extends Store<T> {
  /**
   * The objects sharing at least one value with `obj` in index `indexName` (`obj` need not
   * be cached). Each object appears once.
   */
  index(indexName: string, obj: T): T[];
  /** The keys of the objects filed under `indexedValue` in index `indexName`. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Every value that currently has at least one object in index `indexName`. */
  listIndexFuncValues(indexName: string): string[];
  /** The objects filed under `indexedValue` in index `indexName`. */
  byIndex(indexName: string, indexedValue: string): T[];
  /** A copy of the index functions, by name. */
  getIndexers(): Indexers<T>;
  /**
   * Adds indices, filling them from the objects already cached. Atomic: a name that already
   * exists (`IndexerConflict`) or an index function that throws (`IndexFuncFailed`) leaves
   * the indexer unchanged.
   */
  addIndexers(indexers: Indexers<T>): void;
}
