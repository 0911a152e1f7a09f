/**
 * The priority queue: controller-runtime's `priorityqueue.PriorityQueue`
 * (`pkg/controller/priorityqueue/priorityqueue.go`), a rate-limiting work queue whose ready
 * items are handed out highest priority first.
 */
import type { Clock, TimerHandle } from "../core/clock.js";
import { realClock } from "../core/clock.js";
import { defaultControllerRateLimiter } from "./default-controller-rate-limiter.js";
import type { CounterMetric } from "./metrics-provider.js";
import type { QueueGetResult } from "./queue.js";
import { QueueMetrics } from "./queue-metrics.js";
import type { RateLimitingQueueOptions } from "./rate-limiting-queue.js";
import type { RateLimiter } from "./rate-limiter.js";
import { RingBuffer } from "./ring-buffer.js";
import { WaitingHeap } from "./waiting-heap.js";

/** How {@link PriorityQueue.addWithOptions} adds items (controller-runtime's `AddOpts`). */
export interface QueueAddOptions {
  /** Add after this many milliseconds (at once when absent or `<= 0`). */
  readonly afterMs?: number;
  /**
   * Add after the rate limiter's delay (counted as a failure, as `addRateLimited`); with
   * `afterMs` too, the shorter of the two delays.
   */
  readonly rateLimited?: boolean;
  /** Higher is handed out first; default 0. */
  readonly priority?: number;
}

/**
 * What {@link PriorityQueue.getWithPriority} resolves to: `[item, priority, false]`, or
 * `[undefined, 0, true]` once the queue is shut down and empty.
 */
export type PriorityQueueGetResult<T> =
  | readonly [item: T, priority: number, shutdown: false]
  | readonly [item: undefined, priority: 0, shutdown: true];

/** Buckets kept at most before the empty ones are dropped (distinct priorities are few). */
const MAX_EMPTY_BUCKETS = 16;

const READY = 0;
const WAITING = 1;
const PROCESSING = 2;
/** Done, or replaced by a newer entry: any node still pointing at it is stale. */
const GONE = 3;

/** One item the queue knows. A new entry is made each time a done item is queued again. */
interface Entry<T> {
  readonly item: T;
  priority: number;
  state: typeof READY | typeof WAITING | typeof PROCESSING | typeof GONE;
  /** While processing: whether the item was added again, and how (queued on `done`). */
  requeue: boolean;
  requeuePriority: number;
  /** Clock ms the re-added item is ready at (0: at once). */
  requeueReadyAt: number;
}

/** A blocked `get`, in a doubly linked list so an aborted one leaves in O(1). */
interface Getter<T> {
  readonly resolve: (entry: Entry<T> | undefined) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: (() => void) | undefined;
  prev: Getter<T> | undefined;
  next: Getter<T> | undefined;
}

/** Ready entries of one priority, in the order they became ready. */
interface Bucket<T> {
  readonly priority: number;
  readonly entries: RingBuffer<Entry<T>>;
}

/**
 * A work queue with {@link RateLimitingQueue}'s interface and guarantees (de-duplication, one
 * worker per item at a time, an item added while processed is queued again on `done`,
 * `shutDown` / `shutDownWithDrain`, `addAfter`, `addRateLimited`, `forget`, `numRequeues`)
 * plus priorities (controller-runtime's `PriorityQueue`):
 *
 * - Ready items are handed out highest priority first, in the order they became ready
 *   within a priority (an item whose delay passes becomes ready then).
 * - Adding an item already queued keeps one entry: its priority is raised to the higher of
 *   the two (it then counts as newly ready at that priority), and its ready time is the
 *   earlier of the two (an add without delay makes a waiting item ready at once).
 * - An item added while it is processed is queued when its worker calls `done`, with the
 *   highest priority and earliest ready time of those adds.
 *
 * Each priority in use has a FIFO of its own; a `get` looks at the priorities present, so
 * queue operations cost O(1) plus O(log n) for delayed items (a few distinct priorities are
 * typical: 0 and `LOW_PRIORITY`). Waiting items share one timer on the queue's clock, which
 * `shutDown` cancels (dropping them).
 */
export class PriorityQueue<T> {
  readonly #clock: Clock;
  readonly #rateLimiter: RateLimiter<T>;
  readonly #metrics: QueueMetrics<T> | undefined;
  readonly #retries: CounterMetric | undefined;
  readonly #entries = new Map<T, Entry<T>>();
  /** Buckets with ready entries (maybe stale ones), highest priority first. */
  #buckets: Bucket<T>[] = [];
  /** Live ready entries. */
  #ready = 0;
  #processing = 0;
  readonly #waiting = new WaitingHeap<T>();
  #timer: TimerHandle | undefined;
  #timerAt = Infinity;
  #firstGetter: Getter<T> | undefined;
  #lastGetter: Getter<T> | undefined;
  #shuttingDown = false;
  #drainWaiters: (() => void)[] = [];

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    const { clock, name, metrics } = options;
    this.#clock = clock ?? realClock;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.#clock);
    const named = name !== undefined && name !== "" && metrics !== undefined;
    this.#metrics = named ? new QueueMetrics<T>(metrics, name, this.#clock) : undefined;
    this.#retries = named ? metrics.newRetriesMetric(name) : undefined;
  }

  /** Adds `item` at priority 0 (see {@link addWithOptions}). */
  add(item: T): void {
    this.#addOne(item, 0, 0);
  }

  /** Adds `item` at priority 0 after `ms` milliseconds (at once when `ms <= 0`). */
  addAfter(item: T, ms: number): void {
    this.addWithOptions({ afterMs: ms }, item);
  }

  /** Adds `item` at priority 0 after its rate limiter's delay. */
  addRateLimited(item: T): void {
    this.addWithOptions({ rateLimited: true }, item);
  }

  /**
   * Adds `items` with a priority and a delay (controller-runtime's `AddWithOpts`). Ignored
   * once the queue is shutting down (a rate-limited add still counts the failure first).
   */
  addWithOptions(options: QueueAddOptions, ...items: T[]): void {
    const priority = options.priority ?? 0;
    for (const item of items) {
      let after = options.afterMs ?? 0;
      if (options.rateLimited === true) {
        const limited = this.#rateLimiter.when(item);
        if (!(after > 0) || limited < after) after = limited;
      }
      if (this.#shuttingDown) continue;
      if (after > 0) this.#retries?.inc();
      this.#addOne(item, priority, after > 0 ? this.#clock.now() + after : 0);
    }
  }

  /** Tells the rate limiter to stop tracking `item`. */
  forget(item: T): void {
    this.#rateLimiter.forget(item);
  }

  /** How many times `item` was rate-limited since it was last forgotten. */
  numRequeues(item: T): number {
    return this.#rateLimiter.numRequeues(item);
  }

  /** How many items are ready for a worker (waiting and processed ones are not counted). */
  len(): number {
    return this.#ready;
  }

  /**
   * Hands the ready item of highest priority to the caller, who must call {@link done} with
   * it; waits while none is ready. As `Queue.get`: `[undefined, true]` once shut down and
   * empty; rejects with `signal.reason` when `signal` aborts first.
   */
  get(signal?: AbortSignal): Promise<QueueGetResult<T>> {
    return this.#take(signal, toGetResult);
  }

  /** {@link get}, with the item's priority (controller-runtime's `GetWithPriority`). */
  getWithPriority(signal?: AbortSignal): Promise<PriorityQueueGetResult<T>> {
    return this.#take(signal, toPriorityResult);
  }

  /** Marks the processing of `item` finished; queues it again if it was added meanwhile. */
  done(item: T): void {
    const entry = this.#entries.get(item);
    if (entry === undefined || entry.state !== PROCESSING) return;
    this.#processing--;
    this.#metrics?.done(item);
    entry.state = GONE;
    this.#entries.delete(item);
    if (entry.requeue && !this.#shuttingDown) {
      this.#addOne(item, entry.requeuePriority, entry.requeueReadyAt);
    }
    if (this.#processing === 0 && this.#drainWaiters.length > 0) this.#releaseDrainWaiters();
  }

  /** As `Queue.shutDown`: adds are ignored, ready items still handed out, waiting ones dropped. */
  shutDown(): void {
    this.#beginShutDown();
    this.#releaseDrainWaiters();
  }

  /** As `Queue.shutDownWithDrain`: {@link shutDown}, then resolves once nothing is processed. */
  shutDownWithDrain(): Promise<void> {
    this.#beginShutDown();
    if (this.#processing === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
  }

  /** Whether {@link shutDown} or {@link shutDownWithDrain} has been called. */
  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Adds one item ready at `readyAt` (0: now). */
  #addOne(item: T, priority: number, readyAt: number): void {
    if (this.#shuttingDown) return;
    const entry = this.#entries.get(item);
    if (entry === undefined) {
      const created: Entry<T> = {
        item,
        priority,
        state: WAITING,
        requeue: false,
        requeuePriority: 0,
        requeueReadyAt: 0,
      };
      this.#entries.set(item, created);
      if (readyAt > 0) this.#wait(item, readyAt);
      else this.#makeReady(created);
      return;
    }
    if (entry.state === PROCESSING) {
      entry.requeuePriority = entry.requeue ? Math.max(entry.requeuePriority, priority) : priority;
      entry.requeueReadyAt = entry.requeue ? earlier(entry.requeueReadyAt, readyAt) : readyAt;
      entry.requeue = true;
      return;
    }
    const raise = priority > entry.priority;
    if (raise) entry.priority = priority;
    if (entry.state === WAITING) {
      if (readyAt > 0) this.#wait(item, readyAt);
      else {
        this.#waiting.remove(item);
        this.#makeReady(entry);
      }
    } else if (raise) {
      // READY at a lower priority: the node in the old bucket is stale from now on.
      this.#ready--;
      this.#makeReady(entry);
    }
  }

  /** Puts `entry` in its priority's bucket, or hands it to a blocked `get`. */
  #makeReady(entry: Entry<T>): void {
    if (entry.state !== READY) this.#metrics?.add(entry.item);
    entry.state = READY;
    const getter = this.#firstGetter;
    if (getter !== undefined) {
      this.#unlink(getter);
      if (getter.signal && getter.onAbort) {
        getter.signal.removeEventListener("abort", getter.onAbort);
      }
      getter.resolve(this.#handOut(entry));
      return;
    }
    this.#ready++;
    this.#bucket(entry.priority).entries.push(entry);
  }

  /**
   * The bucket of `priority`, created in its place when missing. Empty buckets are kept for
   * reuse (a queue that empties and refills allocates nothing), up to
   * {@link MAX_EMPTY_BUCKETS}: past that, the empty ones are dropped.
   */
  #bucket(priority: number): Bucket<T> {
    // Most adds go to the highest priority present (often the only one).
    const first = this.#buckets[0];
    if (first !== undefined && first.priority === priority) return first;
    const found = this.#buckets.find((b) => b.priority === priority);
    if (found !== undefined) return found;
    if (this.#buckets.length >= MAX_EMPTY_BUCKETS) {
      this.#buckets = this.#buckets.filter((b) => b.entries.length > 0);
    }
    const buckets = this.#buckets;
    let index = 0;
    while (index < buckets.length && (buckets[index] as Bucket<T>).priority > priority) index++;
    const bucket: Bucket<T> = { priority, entries: new RingBuffer<Entry<T>>() };
    buckets.splice(index, 0, bucket);
    return bucket;
  }

  /** Takes the live ready entry of highest priority; the caller checks {@link #ready} first. */
  #popReady(): Entry<T> {
    const buckets = this.#buckets;
    let index = 0;
    for (;;) {
      const bucket = buckets[index] as Bucket<T>;
      if (bucket.entries.length === 0) {
        index++;
        continue;
      }
      const entry = bucket.entries.shift();
      // Skip stale nodes: entries done since, or raised to a higher priority.
      if (entry.state === READY && entry.priority === bucket.priority) {
        this.#ready--;
        return entry;
      }
    }
  }

  #handOut(entry: Entry<T>): Entry<T> {
    entry.state = PROCESSING;
    entry.requeue = false;
    this.#processing++;
    this.#metrics?.get(entry.item);
    return entry;
  }

  #take<R>(signal: AbortSignal | undefined, map: (entry: Entry<T> | undefined) => R): Promise<R> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#ready > 0) return Promise.resolve(map(this.#handOut(this.#popReady())));
    if (this.#shuttingDown) return Promise.resolve(map(undefined));
    return new Promise<R>((resolve, reject) => {
      const onAbort =
        signal &&
        ((): void => {
          this.#unlink(getter);
          reject(signal.reason);
        });
      const getter: Getter<T> = {
        resolve: (entry) => resolve(map(entry)),
        signal,
        onAbort,
        prev: this.#lastGetter,
        next: undefined,
      };
      if (this.#lastGetter) this.#lastGetter.next = getter;
      else this.#firstGetter = getter;
      this.#lastGetter = getter;
      if (signal && onAbort) signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  #wait(item: T, readyAt: number): void {
    this.#waiting.schedule(item, readyAt);
    const next = this.#waiting.nextReadyAt();
    if (next >= this.#timerAt) return;
    this.#timer?.cancel();
    this.#timerAt = next;
    this.#timer = this.#clock.setTimer(next - this.#clock.now(), () => this.#fire());
  }

  /** Makes every item whose ready time has come ready, then re-arms for the next one. */
  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = this.#clock.now();
    while (this.#waiting.size > 0 && this.#waiting.nextReadyAt() <= now) {
      const entry = this.#entries.get(this.#waiting.pop());
      if (entry !== undefined && entry.state === WAITING) this.#makeReady(entry);
    }
    const next = this.#waiting.nextReadyAt();
    if (next < Infinity) {
      this.#timerAt = next;
      this.#timer = this.#clock.setTimer(next - now, () => this.#fire());
    }
  }

  #unlink(getter: Getter<T>): void {
    if (getter.prev) getter.prev.next = getter.next;
    else if (this.#firstGetter === getter) this.#firstGetter = getter.next;
    else return; // already unlinked
    if (getter.next) getter.next.prev = getter.prev;
    else this.#lastGetter = getter.prev;
    getter.prev = undefined;
    getter.next = undefined;
  }

  #beginShutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    this.#metrics?.stop();
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Infinity;
    // Waiting items are dropped (processed ones stay known until their done).
    for (let entry = this.#waitingEntry(); entry !== undefined; entry = this.#waitingEntry()) {
      entry.state = GONE;
      this.#entries.delete(entry.item);
    }
    // A blocked get means nothing is ready: each one ends now.
    for (let g = this.#firstGetter; g !== undefined; g = this.#firstGetter) {
      this.#unlink(g);
      if (g.signal && g.onAbort) g.signal.removeEventListener("abort", g.onAbort);
      g.resolve(undefined);
    }
  }

  /** The next entry still waiting for its time, taken off the waiting heap. */
  #waitingEntry(): Entry<T> | undefined {
    while (this.#waiting.size > 0) {
      const entry = this.#entries.get(this.#waiting.pop());
      if (entry !== undefined && entry.state === WAITING) return entry;
    }
    return undefined;
  }

  #releaseDrainWaiters(): void {
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

const SHUT_DOWN: readonly [item: undefined, shutdown: true] = Object.freeze([undefined, true]);
const SHUT_DOWN_WITH_PRIORITY: readonly [item: undefined, priority: 0, shutdown: true] =
  Object.freeze([undefined, 0, true]);

function toGetResult<T>(entry: Entry<T> | undefined): QueueGetResult<T> {
  return entry === undefined ? SHUT_DOWN : [entry.item, false];
}

function toPriorityResult<T>(entry: Entry<T> | undefined): PriorityQueueGetResult<T> {
  return entry === undefined ? SHUT_DOWN_WITH_PRIORITY : [entry.item, entry.priority, false];
}

/** The earlier of two ready times, where 0 means now. */
function earlier(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : Math.min(a, b);
}
