/**
 * client-go's classic `DeltaFIFO`: changes accumulate per key and a key is delivered once
 * with all its changes. The in-order {@link RealFIFO} is the default queue of kubekit
 * informers; this one is for code that relies on the classic, per-key behaviour.
 */
import type { DeletedDelta, Deltas, ObjectDelta } from "./delta.js";
import { Deque } from "./deque.js";
import type { InformerQueue, PopProcessFunc, TransformFunc } from "./informer-queue.js";
import { QUEUE_CLOSED } from "./informer-queue.js";
import { PopGate } from "./pop-gate.js";
import type { KeyFunc } from "./store.js";
import { DeletedFinalStateUnknown, deletionHandlingKey } from "./tombstone.js";

/**
 * The objects the consumer already knows (client-go's `KeyListerGetter`): the informer's
 * indexer. An {@link Indexer} satisfies it.
 */
export interface KnownObjects<T> {
  listKeys(): string[];
  getByKey(key: string): T | undefined;
}

/** Options of {@link DeltaFIFO}. */
export interface DeltaFIFOOptions<T> {
  /**
   * The key of an object; default `deletionHandlingKey` (`ns/name`), which only works for
   * objects with `metadata` — give one for any other type. Tombstones use their own key.
   */
  readonly keyFunc?: KeyFunc<T>;
  /**
   * What the consumer has cached (normally the informer's indexer). Used to accept deletions
   * of objects that are not queued, to detect deletions on `replace`, and by `resync`.
   * Without it, `delete` only applies to queued keys and `resync` does nothing.
   */
  readonly knownObjects?: KnownObjects<T>;
  /** Relisted objects are queued as `Replaced` (default `true`) rather than `Sync`. */
  readonly emitDeltaTypeReplaced?: boolean;
  /** Applied to objects as they are queued; never to tombstones or `Sync` objects. */
  readonly transform?: TransformFunc<T>;
}

type FifoDelta<T> = ObjectDelta<T> | DeletedDelta<T>;

/**
 * client-go's `DeltaFIFO`: a map from key to the changes (`Deltas`) queued for it, and a queue
 * in which each key appears once, in order of its first enqueue since it was last popped.
 *
 * - `pop` delivers all the deltas of one key, oldest first. Consequence: changes to different
 *   keys are reordered with respect to the watch stream, and intermediate states are kept
 *   (nothing is merged) except that two consecutive `Deleted` deltas collapse into one (the
 *   older, unless the older is a tombstone).
 * - `delete` of a key that is neither queued nor in `knownObjects` is dropped.
 * - `replace(list)` queues `Replaced` for every listed object, then a tombstone
 *   (`DeletedFinalStateUnknown` with the newest queued object) for every queued key missing
 *   from the list, then a tombstone (with the known object) for every `knownObjects` key
 *   missing from the list that has nothing queued.
 * - `resync()` queues `Sync` (the known object) for every known key that has nothing queued.
 * - `hasSynced()`: true after an add/update/delete that came before any replace, otherwise
 *   once every key queued by the first replace has been popped. The count drops when an item
 *   is popped, before it is processed (client-go behaviour), so `hasSynced()` is already true
 *   while the last initial item is being processed.
 *
 * Like client-go's, it has no `bookmark`: watch bookmarks are not queued.
 *
 * Unlike client-go, where `Pop` holds the FIFO lock while processing, writes made while a
 * `process` awaits are accepted and queued (they cannot interleave within a synchronous
 * stretch of `process`).
 */
export class DeltaFIFO<T> implements InformerQueue<T> {
  readonly #keyFunc: KeyFunc<T>;
  readonly #knownObjects: KnownObjects<T> | undefined;
  readonly #emitDeltaTypeReplaced: boolean;
  readonly #transform: TransformFunc<T> | undefined;
  /** key → its queued deltas (never empty); a key is here iff it is in #queue. */
  readonly #items = new Map<string, FifoDelta<T>[]>();
  readonly #queue = new Deque<string>();
  readonly #gate = new PopGate();
  /** Whether a pop can go ahead: a key is queued, or the queue is closed. */
  readonly #ready = (): boolean => this.#queue.length > 0 || this.#closed;
  #populated = false;
  #initialPopulationCount = 0;
  #closed = false;

  constructor(options: DeltaFIFOOptions<T> = {}) {
    this.#keyFunc = options.keyFunc ?? (deletionHandlingKey as KeyFunc<T>);
    this.#knownObjects = options.knownObjects;
    this.#emitDeltaTypeReplaced = options.emitDeltaTypeReplaced ?? true;
    this.#transform = options.transform;
  }

  /** Number of keys queued. */
  get length(): number {
    return this.#queue.length;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The key of an object, or a tombstone's own key. */
  keyOf(obj: T | DeletedFinalStateUnknown<T>): string {
    return obj instanceof DeletedFinalStateUnknown ? obj.key : this.#keyFunc(obj);
  }

  /** Queues an `Added` delta. */
  add(obj: T): void {
    const key = this.keyOf(obj);
    const object = this.#transformed(obj);
    this.#populated = true;
    this.#enqueue(key, { type: "Added", object });
    this.#gate.notify();
  }

  /** Queues an `Updated` delta. */
  update(obj: T): void {
    const key = this.keyOf(obj);
    const object = this.#transformed(obj);
    this.#populated = true;
    this.#enqueue(key, { type: "Updated", object });
    this.#gate.notify();
  }

  /**
   * Queues a `Deleted` delta, unless the key is neither queued nor known (then the deletion
   * was presumably already reported by a relist, and is dropped).
   */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const key = this.keyOf(obj);
    const known = this.#knownObjects?.getByKey(key) !== undefined;
    if (!known && !this.#items.has(key)) {
      this.#populated = true;
      return;
    }
    const object = obj instanceof DeletedFinalStateUnknown ? obj : this.#transformed(obj);
    this.#populated = true;
    this.#enqueue(key, { type: "Deleted", object });
    this.#gate.notify();
  }

  /**
   * Queues the relisted state (see the class description). Every key is computed and every
   * object transformed before anything is queued, so a throw leaves the queue unchanged.
   * `resourceVersion` is not used: the consumer's indexer learns it from the deltas' objects.
   */
  replace(list: readonly T[], _resourceVersion: string): void {
    const type = this.#emitDeltaTypeReplaced ? "Replaced" : "Sync";
    const prepared = list.map((obj) => [this.keyOf(obj), this.#transformed(obj)] as const);
    const listed = new Set<string>();
    for (const [key, object] of prepared) {
      listed.add(key);
      this.#enqueue(key, { type, object });
    }
    let queuedDeletions = 0;
    for (const [key, deltas] of this.#items) {
      if (listed.has(key)) continue;
      const newest = deltas[deltas.length - 1]?.object;
      const last = newest instanceof DeletedFinalStateUnknown ? newest.obj : newest;
      queuedDeletions++;
      this.#enqueue(key, { type: "Deleted", object: new DeletedFinalStateUnknown(key, last) });
    }
    if (this.#knownObjects !== undefined) {
      for (const key of this.#knownObjects.listKeys()) {
        if (listed.has(key) || this.#items.has(key)) continue;
        const last = this.#knownObjects.getByKey(key);
        queuedDeletions++;
        this.#enqueue(key, { type: "Deleted", object: new DeletedFinalStateUnknown(key, last) });
      }
    }
    if (!this.#populated) {
      this.#populated = true;
      this.#initialPopulationCount = listed.size + queuedDeletions;
    }
    this.#gate.notify();
  }

  /**
   * Queues `Sync` with the known object for every known key with nothing queued (a queued
   * change is newer than the cache, and re-delivering the cached state would resurrect it).
   * The transform is not re-applied. Without `knownObjects`, does nothing.
   */
  resync(): void {
    const known = this.#knownObjects;
    if (known === undefined) return;
    for (const knownKey of known.listKeys()) {
      const object = known.getByKey(knownKey);
      if (object === undefined) continue;
      const key = this.keyOf(object);
      if (this.#items.has(key)) continue;
      this.#enqueue(key, { type: "Sync", object });
    }
    this.#gate.notify();
  }

  async pop(
    process: PopProcessFunc<T>,
    signal?: AbortSignal,
  ): Promise<Deltas<T> | typeof QUEUE_CLOSED> {
    await this.#gate.acquire(this.#ready, signal);
    try {
      const key = this.#queue.shift();
      const deltas = key === undefined ? undefined : this.#items.get(key);
      if (key === undefined || deltas === undefined) return QUEUE_CLOSED;
      const isInInitialList = !this.hasSynced();
      this.#items.delete(key);
      if (this.#initialPopulationCount > 0) this.#initialPopulationCount--;
      await process(deltas, isInInitialList);
      return deltas;
    } finally {
      this.#gate.release();
    }
  }

  async popBatch(
    process: PopProcessFunc<T>,
    signal?: AbortSignal,
  ): Promise<number | typeof QUEUE_CLOSED> {
    await this.#gate.acquire(this.#ready, signal);
    try {
      let processed = 0;
      for (let key = this.#queue.shift(); key !== undefined; key = this.#queue.shift()) {
        const deltas = this.#items.get(key);
        if (deltas === undefined) continue;
        processed++;
        const isInInitialList = !this.hasSynced();
        this.#items.delete(key);
        if (this.#initialPopulationCount > 0) this.#initialPopulationCount--;
        const pending = process(deltas, isInInitialList);
        if (pending !== undefined) await pending;
      }
      return processed === 0 ? QUEUE_CLOSED : processed;
    } finally {
      this.#gate.release();
    }
  }

  hasSynced(): boolean {
    return this.#populated && this.#initialPopulationCount === 0;
  }

  close(): void {
    this.#closed = true;
    this.#gate.notify();
  }

  /** The queued keys, in delivery order. */
  listKeys(): string[] {
    return this.#queue.toArray();
  }

  /** The newest queued object (or tombstone) of every queued key, in delivery order. */
  list(): (T | DeletedFinalStateUnknown<T>)[] {
    const out: (T | DeletedFinalStateUnknown<T>)[] = [];
    for (const key of this.#queue.toArray()) {
      const deltas = this.#items.get(key);
      const newest = deltas?.[deltas.length - 1];
      if (newest !== undefined) out.push(newest.object);
    }
    return out;
  }

  /** A copy of the deltas queued for `key`, oldest first, or `undefined` if none. */
  getByKey(key: string): Deltas<T> | undefined {
    const deltas = this.#items.get(key);
    return deltas === undefined ? undefined : [...deltas];
  }

  #transformed(obj: T): T {
    return this.#transform === undefined ? obj : this.#transform(obj);
  }

  /** Appends a delta to a key's deltas, queueing the key if new; collapses a double deletion. */
  #enqueue(key: string, delta: FifoDelta<T>): void {
    const deltas = this.#items.get(key);
    if (deltas === undefined) {
      this.#items.set(key, [delta]);
      this.#queue.push(key);
      return;
    }
    const previous = deltas[deltas.length - 1];
    if (previous?.type === "Deleted" && delta.type === "Deleted") {
      // Only the last two are compared; keep the older one unless it is a mere tombstone.
      if (previous.object instanceof DeletedFinalStateUnknown) {
        deltas[deltas.length - 1] = delta;
      }
      return;
    }
    deltas.push(delta);
  }
}
