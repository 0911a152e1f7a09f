/**
 * The workqueue benchmark's baseline: the least a promise-based work queue must do — an
 * array with a head index, and the `get`s waiting for an item — with none of the workqueue's
 * guarantees (no de-duplication, no processing set, no shutdown, no abort, no metrics).
 */

/** A bare FIFO with the workqueue's `add` / `get` / `done` shape. */
export class ArrayQueue<T> {
  #items: T[] = [];
  #head = 0;
  #waiters: ((result: readonly [T, false]) => void)[] = [];

  add(item: T): void {
    const waiter = this.#waiters.shift();
    if (waiter) waiter([item, false]);
    else this.#items.push(item);
  }

  get(): Promise<readonly [T, false]> {
    if (this.#head < this.#items.length) {
      const item = this.#items[this.#head++] as T;
      if (this.#head === this.#items.length) {
        this.#items = [];
        this.#head = 0;
      }
      return Promise.resolve([item, false]);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  done(_item: T): void {}
}
