/** Keys per chunk at which a chunk splits in two (a chunk's splice moves at most this many). */
const MAX_CHUNK = 512;

/**
 * A set of storage keys kept in byte-wise order (the order etcd lists keys in), as a list of
 * sorted chunks of at most 512 keys: insert and delete cost a binary search plus a splice
 * within one chunk (not O(n) per write, and no re-sort before a list); keys appended in
 * increasing order (generated names, numbered objects) go to the last chunk. Counting the
 * keys after a key walks the chunk sizes (n / 256 additions at most).
 *
 * Iterators read the keys live: do not change the set while iterating it.
 */
export class OrderedKeys {
  #chunks: string[][] = [[]];
  #size = 0;

  /** How many keys the set holds. */
  get size(): number {
    return this.#size;
  }

  /** Adds a key that is not in the set (the caller knows: storage checks its map first). */
  insert(key: string): void {
    const c = this.#chunkFor(key);
    const chunk = this.#chunks[c] as string[];
    const last = chunk.length > 0 ? (chunk[chunk.length - 1] as string) : undefined;
    if (last === undefined || last < key) chunk.push(key);
    else chunk.splice(lowerBound(chunk, key), 0, key);
    this.#size++;
    if (chunk.length > MAX_CHUNK) {
      this.#chunks.splice(c + 1, 0, chunk.splice(chunk.length >>> 1));
    }
  }

  /** Removes a key; returns whether it was in the set. */
  delete(key: string): boolean {
    const c = this.#chunkFor(key);
    const chunk = this.#chunks[c] as string[];
    const i = lowerBound(chunk, key);
    if (chunk[i] !== key) return false;
    chunk.splice(i, 1);
    this.#size--;
    if (chunk.length === 0 && this.#chunks.length > 1) this.#chunks.splice(c, 1);
    return true;
  }

  /**
   * Keys `k` with `from <= k` (or `from < k` when `exclusive`) and `k < to` (no upper bound
   * when `to` is undefined), in order.
   */
  *between(from: string, exclusive: boolean, to: string | undefined): Iterable<string> {
    let c = this.#chunkFor(from);
    let chunk = this.#chunks[c] as string[];
    let i = exclusive ? upperBound(chunk, from) : lowerBound(chunk, from);
    for (;;) {
      for (; i < chunk.length; i++) {
        const key = chunk[i] as string;
        if (to !== undefined && key >= to) return;
        yield key;
      }
      if (++c >= this.#chunks.length) return;
      chunk = this.#chunks[c] as string[];
      i = 0;
    }
  }

  /** How many keys are smaller than `key` (or not greater, when `inclusive`). */
  rank(key: string, inclusive: boolean): number {
    const c = this.#chunkFor(key);
    let n = 0;
    for (let j = 0; j < c; j++) n += (this.#chunks[j] as string[]).length;
    const chunk = this.#chunks[c] as string[];
    return n + (inclusive ? upperBound(chunk, key) : lowerBound(chunk, key));
  }

  /** The index of the chunk a key belongs in: the last whose first key is not greater. */
  #chunkFor(key: string): number {
    const chunks = this.#chunks;
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (((chunks[mid] as string[])[0] as string) <= key) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** The first index whose key is not smaller than `key`. */
export function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose key is greater than `key`. */
export function upperBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
