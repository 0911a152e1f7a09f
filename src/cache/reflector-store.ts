/**
 * What a Reflector writes into: the informer's queue (DeltaFIFO or the in-order FIFO) or,
 * for a plain reflector, a Store. Objects are wire JSON and are handed over without copies.
 */
export interface ReflectorStore<T> {
  /** An object was added (watch ADDED). */
  add(obj: T): void;
  /** An object changed (watch MODIFIED). */
  update(obj: T): void;
  /** An object was deleted (watch DELETED); `obj` is its last state. */
  delete(obj: T): void;
  /**
   * The complete current state from a (re)list or the end of a WatchList's initial events,
   * at `resourceVersion`: objects missing from `list` are deleted (tombstones).
   */
  replace(list: readonly T[], resourceVersion: string): void;
  /** A periodic resync: re-deliver cached objects to handlers that asked for resync. */
  resync(): void;
  /** A watch bookmark: every event up to `resourceVersion` has been delivered. */
  bookmark?(resourceVersion: string): void;
}
