/**
 * The delaying queue's waiting items: client-go's `waitForPriorityQueue` with its
 * `waitingEntryByData` index (`staging/src/k8s.io/client-go/util/workqueue/delaying_queue.go`),
 * a binary min-heap by ready time with at most one entry per item.
 */

interface Entry<T> {
  readonly item: T;
  readyAt: number;
  /** Insertion order, so that items ready at the same time come out in the order scheduled. */
  readonly seq: number;
  /** Position in the heap array. */
  index: number;
}

/**
 * Items waiting for their ready time (clock ms), earliest first. Scheduling an item that
 * already waits keeps the earlier of its two ready times (client-go's `insert`). Internal to
 * the workqueue.
 */
export class WaitingHeap<T> {
  #entries: Entry<T>[] = [];
  readonly #byItem = new Map<T, Entry<T>>();
  #seq = 0;

  /** Number of waiting items. */
  get size(): number {
    return this.#entries.length;
  }

  /** The earliest ready time, or `Infinity` when nothing waits. */
  nextReadyAt(): number {
    return this.#entries[0]?.readyAt ?? Infinity;
  }

  /** Makes `item` wait until `readyAt`, or until its current ready time if that is earlier. */
  schedule(item: T, readyAt: number): void {
    const existing = this.#byItem.get(item);
    if (existing !== undefined) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.#siftUp(existing.index);
      }
      return;
    }
    const entry: Entry<T> = { item, readyAt, seq: this.#seq++, index: this.#entries.length };
    this.#entries.push(entry);
    this.#byItem.set(item, entry);
    this.#siftUp(entry.index);
  }

  /** Removes and returns the earliest item; the caller checks {@link size} first. */
  pop(): T {
    const entries = this.#entries;
    const top = entries[0] as Entry<T>;
    const last = entries.pop() as Entry<T>;
    if (last !== top) {
      last.index = 0;
      entries[0] = last;
      this.#siftDown(0);
    }
    this.#byItem.delete(top.item);
    return top.item;
  }

  /** Stops `item` from waiting (a no-op when it does not wait). */
  remove(item: T): void {
    const entry = this.#byItem.get(item);
    if (entry === undefined) return;
    this.#byItem.delete(item);
    const entries = this.#entries;
    const last = entries.pop() as Entry<T>;
    if (last === entry) return;
    last.index = entry.index;
    entries[entry.index] = last;
    this.#siftDown(last.index);
    this.#siftUp(last.index);
  }

  /** Drops every waiting item. */
  clear(): void {
    this.#entries = [];
    this.#byItem.clear();
  }

  #less(a: Entry<T>, b: Entry<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  #siftUp(index: number): void {
    const entries = this.#entries;
    const entry = entries[index] as Entry<T>;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = entries[parentIndex] as Entry<T>;
      if (!this.#less(entry, parent)) break;
      parent.index = index;
      entries[index] = parent;
      index = parentIndex;
    }
    entry.index = index;
    entries[index] = entry;
  }

  #siftDown(index: number): void {
    const entries = this.#entries;
    const length = entries.length;
    const entry = entries[index] as Entry<T>;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && this.#less(entries[right] as Entry<T>, entries[left] as Entry<T>)) {
        child = right;
      }
      const smaller = entries[child] as Entry<T>;
      if (!this.#less(smaller, entry)) break;
      smaller.index = index;
      entries[index] = smaller;
      index = child;
    }
    entry.index = index;
    entries[index] = entry;
  }
}
