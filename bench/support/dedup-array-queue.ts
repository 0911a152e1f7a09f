/**
 * The workqueue benchmark's second baseline: the bare FIFO of `array-queue.ts` behind a `Set`
 * of the items added and not yet done, so that an item is never queued twice — the least a
 * de-duplicating work queue that keeps no reference to a done item does per item (a hash
 * lookup and insert in `add`, a hash delete in `done`). It is not a correct workqueue: an
 * add while the item is processed is dropped instead of queued again after `done`, and there
 * is no shutdown, abort or metrics.
 */
import { ArrayQueue } from "./array-queue.js";

/** A de-duplicating FIFO with the workqueue's `add` / `get` / `done` shape. */
export class DedupArrayQueue<T> {
  readonly #fifo = new ArrayQueue<T>();
  /** Items added and not yet done. */
  readonly #known = new Set<T>();

  add(item: T): void {
    if (this.#known.has(item)) return;
    this.#known.add(item);
    this.#fifo.add(item);
  }

  get(): Promise<readonly [T, false]> {
    return this.#fifo.get();
  }

  done(item: T): void {
    this.#known.delete(item);
  }
}
