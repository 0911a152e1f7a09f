/**
 * A bounded map that forgets its least recently used entry when full (the role of
 * `github.com/golang/groupcache/lru` in client-go's event correlation caches).
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();

  /**
   * @param capacity the most entries kept, an integer >= 1.
   * @throws {RangeError} when `capacity` is not an integer >= 1.
   */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`LruCache: capacity must be an integer >= 1, got ${capacity}`);
    }
  }

  /** The value under `key`, marking it most recently used; `undefined` when absent. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Stores `value` as the most recently used entry, evicting the least recent one if full. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  /** Removes the entry under `key`, if any. */
  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** The entries, least recently used first, without marking them used. */
  entries(): IterableIterator<[K, V]> {
    return this.#entries.entries();
  }

  /** How many entries are held. */
  get size(): number {
    return this.#entries.size;
  }
}
