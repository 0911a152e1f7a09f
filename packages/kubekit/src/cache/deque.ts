/**
 * A first-in first-out buffer with O(1) amortized push and shift that releases what it has
 * handed out (an array's `shift()` is O(n); slicing would pin popped items).
 */

/** Compact the backing array once this many leading slots are spent and they are at least half. */
const COMPACT_AFTER = 1024;

/** A FIFO buffer of items; used by the informer queues, not exported from the package. */
export class Deque<T> {
  #slots: (T | undefined)[] = [];
  #head = 0;

  /** Number of items held. */
  get length(): number {
    return this.#slots.length - this.#head;
  }

  /** Appends an item at the back. */
  push(item: T): void {
    this.#slots.push(item);
  }

  /** Removes and returns the front item, or `undefined` when empty. */
  shift(): T | undefined {
    if (this.#head >= this.#slots.length) return undefined;
    const item = this.#slots[this.#head];
    this.#slots[this.#head] = undefined;
    this.#head++;
    if (this.#head === this.#slots.length) {
      this.#slots = [];
      this.#head = 0;
    } else if (this.#head >= COMPACT_AFTER && this.#head * 2 >= this.#slots.length) {
      this.#slots = this.#slots.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** The held items, front first (a copy). */
  toArray(): T[] {
    return this.#slots.slice(this.#head) as T[];
  }
}
