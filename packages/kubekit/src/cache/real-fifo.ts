/**
 * The in-order FIFO (client-go's `RealFIFO` in atomic mode, the `InOrderInformers` +
 * `AtomicFIFO` default): the default queue of kubekit informers.
 */
import type { Delta, Deltas } from "./delta.js";
import { Deque } from "./deque.js";
import type { InformerQueue, PopProcessFunc, TransformFunc } from "./informer-queue.js";
import { QUEUE_CLOSED } from "./informer-queue.js";
import { PopGate } from "./pop-gate.js";
import type { KeyFunc } from "./store.js";
import { DeletedFinalStateUnknown, deletionHandlingKey } from "./tombstone.js";

/** Options of {@link RealFIFO}. */
export interface RealFIFOOptions<T> {
  /**
   * The key of an object; default `deletionHandlingKey` (`ns/name`), which only works for
   * objects with `metadata` — give one for any other type. The queue itself does not need
   * keys: it computes them only to reject, at the writer, objects the cache could not key.
   */
  readonly keyFunc?: KeyFunc<T>;
  /** Applied to objects as they are queued (relisted ones included); never to tombstones. */
  readonly transform?: TransformFunc<T>;
}

/**
 * client-go's `RealFIFO` in atomic mode: one entry per event, in arrival order; nothing is
 * merged, deduplicated or dropped, and no knowledge of the cache is needed.
 *
 * - `add`/`update`/`delete` queue one `Added`/`Updated`/`Deleted` entry each (a delete is
 *   queued even for an object never seen).
 * - `replace(list, rv)` queues one `ReplacedAll` entry `{ objects, resourceVersion }`; the
 *   consumer (`processDeltas`) computes deletions against its cache when it gets there, so
 *   the cache never holds a mix of states that did not coexist.
 * - `resync()` queues one `SyncAll` entry; `bookmark(rv)` one `Bookmark` entry.
 * - Each pop delivers exactly one entry (as a one-element `Deltas`); `popBatch` delivers every
 *   queued entry that way, one after the other.
 * - `hasSynced()`: true after an add/update/delete that came before any replace; otherwise
 *   the first replace counts every entry queued at that moment, and the count drops only
 *   after an entry's `process` has finished — so `hasSynced()` turns true only once the
 *   handlers of the whole initial list have run.
 *
 * `length` is the backlog of entries; popped entries are released, so memory is bounded by
 * what is queued.
 */
export class RealFIFO<T> implements InformerQueue<T> {
  readonly #keyFunc: KeyFunc<T>;
  readonly #transform: TransformFunc<T> | undefined;
  readonly #entries = new Deque<Delta<T>>();
  readonly #gate = new PopGate();
  /** Whether a pop can go ahead: something is queued, or the queue is closed. */
  readonly #ready = (): boolean => this.#entries.length > 0 || this.#closed;
  #populated = false;
  #initialPopulationCount = 0;
  #closed = false;

  constructor(options: RealFIFOOptions<T> = {}) {
    this.#keyFunc = options.keyFunc ?? (deletionHandlingKey as KeyFunc<T>);
    this.#transform = options.transform;
  }

  /** Number of entries queued. */
  get length(): number {
    return this.#entries.length;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The key of an object, or a tombstone's own key. */
  keyOf(obj: T | DeletedFinalStateUnknown<T>): string {
    return obj instanceof DeletedFinalStateUnknown ? obj.key : this.#keyFunc(obj);
  }

  /** Queues an `Added` entry. */
  add(obj: T): void {
    this.keyOf(obj);
    const object = this.#transformed(obj);
    this.#populated = true;
    this.#push({ type: "Added", object });
  }

  /** Queues an `Updated` entry. */
  update(obj: T): void {
    this.keyOf(obj);
    const object = this.#transformed(obj);
    this.#populated = true;
    this.#push({ type: "Updated", object });
  }

  /** Queues a `Deleted` entry (tombstones are queued as given). */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.keyOf(obj);
    const object = obj instanceof DeletedFinalStateUnknown ? obj : this.#transformed(obj);
    this.#populated = true;
    this.#push({ type: "Deleted", object });
  }

  /**
   * Queues one `ReplacedAll` entry holding a copy of `list` (transformed) and
   * `resourceVersion`. Every key is checked and every object transformed first: a throw
   * queues nothing.
   */
  replace(list: readonly T[], resourceVersion: string): void {
    for (const obj of list) this.keyOf(obj);
    const transform = this.#transform;
    const objects = transform === undefined ? list.slice() : list.map((obj) => transform(obj));
    this.#push({ type: "ReplacedAll", object: { objects, resourceVersion } });
    if (!this.#populated) {
      this.#populated = true;
      this.#initialPopulationCount = this.#entries.length;
    }
  }

  /** Queues one `SyncAll` entry: the consumer re-delivers every cached object. */
  resync(): void {
    this.#push({ type: "SyncAll", object: {} });
  }

  /** Queues one `Bookmark` entry: the consumer records `resourceVersion` in its cache. */
  bookmark(resourceVersion: string): void {
    this.#push({ type: "Bookmark", object: { resourceVersion } });
  }

  async pop(
    process: PopProcessFunc<T>,
    signal?: AbortSignal,
  ): Promise<Deltas<T> | typeof QUEUE_CLOSED> {
    await this.#gate.acquire(this.#ready, signal);
    try {
      const entry = this.#entries.shift();
      if (entry === undefined) return QUEUE_CLOSED;
      const isInInitialList = !this.hasSynced();
      const deltas: Deltas<T> = [entry];
      try {
        await process(deltas, isInInitialList);
      } finally {
        if (this.#initialPopulationCount > 0) this.#initialPopulationCount--;
      }
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
      for (let entry = this.#entries.shift(); entry !== undefined; entry = this.#entries.shift()) {
        processed++;
        try {
          const pending = process([entry], !this.hasSynced());
          if (pending !== undefined) await pending;
        } finally {
          if (this.#initialPopulationCount > 0) this.#initialPopulationCount--;
        }
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

  #transformed(obj: T): T {
    return this.#transform === undefined ? obj : this.#transform(obj);
  }

  #push(entry: Delta<T>): void {
    this.#entries.push(entry);
    this.#gate.notify();
  }
}
