/**
 * The workqueue's FIFO storage: a growable circular buffer (client-go's slice-backed `queue`
 * in `staging/src/k8s.io/client-go/util/workqueue/queue.go`, without its reslicing).
 */

/** The smallest capacity; also the size below which the buffer never shrinks. */
const MIN_CAPACITY = 16;

/** A packed array of `capacity` empty slots (packed arrays are faster to index than holey ones). */
function emptySlots<T>(capacity: number): (T | undefined)[] {
  return new Array<T | undefined>(capacity).fill(undefined);
}

/**
 * A first-in first-out buffer over a power-of-two circular array: `push` and `shift` are
 * O(1) (amortized when the buffer grows or shrinks) and allocate nothing in the steady
 * state. A shifted slot is cleared at once, so the buffer never keeps a reference to an item
 * it has handed out; capacity halves once the buffer is a quarter full, so a burst does not
 * pin memory for ever. Internal to the workqueue.
 */
export class RingBuffer<T> {
  #slots: (T | undefined)[] = emptySlots(MIN_CAPACITY);
  /** `#slots.length - 1`; the capacity is a power of two. */
  #mask = MIN_CAPACITY - 1;
  #head = 0;
  #length = 0;

  /** Number of items held. */
  get length(): number {
    return this.#length;
  }

  /** Appends an item at the back. */
  push(item: T): void {
    if (this.#length > this.#mask) this.#resize(this.#slots.length * 2);
    this.#slots[(this.#head + this.#length) & this.#mask] = item;
    this.#length++;
  }

  /** Removes and returns the front item; the caller checks {@link length} first. */
  shift(): T {
    const item = this.#slots[this.#head] as T;
    this.#slots[this.#head] = undefined;
    this.#head = (this.#head + 1) & this.#mask;
    this.#length--;
    if (this.#slots.length > MIN_CAPACITY && this.#length * 4 <= this.#slots.length) {
      this.#resize(this.#slots.length / 2);
    }
    return item;
  }

  #resize(capacity: number): void {
    const slots = emptySlots<T>(capacity);
    for (let i = 0; i < this.#length; i++) {
      slots[i] = this.#slots[(this.#head + i) & this.#mask];
    }
    this.#slots = slots;
    this.#mask = capacity - 1;
    this.#head = 0;
  }
}
