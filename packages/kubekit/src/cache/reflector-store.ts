/**
 * What a Reflector writes into: the informer's queue (DeltaFIFO or the in-order FIFO) or,
 * for a plain reflector, a Store. Objects are wire JSON and are handed over without copies.
 */
export interface ReflectorStore<T> {
  /**
   * The store's transform (client-go's `TransformingStore`): when present, the reflector
   * applies it to every object as it arrives (each list page, each WatchList initial event,
   * each watch event's object) and hands the store only its results, so memory holds
   * transformed objects even while a list is being collected. The store must not transform
   * again. A throw fails that list, or skips that watch event (logged).
   */
  readonly transform?: (obj: T) => T;
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
