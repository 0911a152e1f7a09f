/**
 * The work queue: client-go's `workqueue.Typed`
 * (`staging/src/k8s.io/client-go/util/workqueue/queue.go`), a FIFO with marking and
 * de-duplication that hands each item to one worker at a time.
 */
import type { Clock } from "../core/clock.js";
import { realClock } from "../core/clock.js";
import type { MetricsProvider } from "./metrics-provider.js";
import { QueueMetrics } from "./queue-metrics.js";
import { RingBuffer } from "./ring-buffer.js";

/** Options of {@link Queue} (and of the delaying and rate-limiting queues built on it). */
export interface QueueOptions {
  /** The clock of the queue's timers and metrics; default the real clock. */
  readonly clock?: Clock;
  /**
   * The queue's name, given to the metrics provider. A queue records metrics only when it
   * has both a name and {@link metrics} (client-go registers none for an unnamed queue).
   */
  readonly name?: string;
  /** Where the queue's metrics go; default none (nothing is recorded, nothing is paid). */
  readonly metrics?: MetricsProvider;
}

/**
 * What {@link Queue.get} resolves to: `[item, false]`, or `[undefined, true]` once the queue
 * is shut down and empty (the worker should then stop). Destructure it and test `shutdown`
 * first: TypeScript then knows `item` is a `T`.
 */
export type QueueGetResult<T> =
  readonly [item: T, shutdown: false] | readonly [item: undefined, shutdown: true];

/** The answer of every `get` on a shut-down, empty queue. */
const SHUT_DOWN: readonly [item: undefined, shutdown: true] = Object.freeze([undefined, true]);

/**
 * The state of an item being processed that was added again meanwhile (client-go: in both
 * `dirty` and `processing`): it is queued once more on `done`. Every other state is a ticket
 * (see {@link Queue}'s `#states`), which is never negative.
 */
const REQUEUE = -1;

/** A blocked `get`, in a doubly linked list so an aborted one leaves in O(1). */
interface Getter<T> {
  readonly resolve: (result: QueueGetResult<T>) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: (() => void) | undefined;
  prev: Getter<T> | undefined;
  next: Getter<T> | undefined;
}

/**
 * A work queue with client-go's guarantees:
 *
 * - Items are compared with SameValueZero (as `Map` keys): strings and numbers by value,
 *   objects by identity (as Go compares pointers). Use keys (`ns/name`) rather than objects.
 * - An item added several times before a worker gets it is handed out once (`add` of a
 *   waiting item is a no-op, and its place in line is kept).
 * - An item is never handed to two workers at once: an `add` while it is being processed
 *   only marks it, and it is queued once more when the worker calls {@link done}.
 * - Items are handed out in the order they were queued; blocked `get`s are served in the
 *   order they were made.
 * - The queue keeps no reference to an item after its `done` (unless it was added again).
 * - After {@link shutDown}, `add` is ignored; queued items are still handed out, then every
 *   `get` resolves to `[undefined, true]`. {@link shutDownWithDrain} also waits until every
 *   handed-out item is done.
 *
 * Every item a worker gets must be passed to {@link done} once its processing ends,
 * whatever the outcome; otherwise it is never handed out again and a draining shutdown never
 * ends.
 */
export class Queue<T> {
  /** The queue's clock, for the timers of the queues built on this one. */
  protected readonly clock: Clock;
  /** Items queued for a worker, in order; each is dirty and not being processed. */
  readonly #queue = new RingBuffer<T>();
  /**
   * The state of every item the queue knows (client-go's `dirty` and `processing` sets in one
   * map, so that an item costs one entry): its ticket, the number of items queued before it,
   * while it waits or is processed without having been added again; {@link REQUEUE} when it
   * is processed and was added again. Items leave {@link #queue} in ticket order, so an item
   * with a ticket `>= #handedOut` is waiting and one with a ticket below is being processed:
   * handing an item out updates no entry. (Tickets stay exact up to 2^53 items.)
   */
  readonly #states = new Map<T, number>();
  /** Tickets given: items queued (or handed straight to a blocked `get`) since construction. */
  #ticketsGiven = 0;
  /** Tickets handed out: items given to workers since construction. */
  #handedOut = 0;
  /** How many items are being processed (handed out, not yet done). */
  #processing = 0;
  /** Blocked `get`s, oldest first; when there is one, {@link #queue} is empty. */
  #firstGetter: Getter<T> | undefined;
  #lastGetter: Getter<T> | undefined;
  #shuttingDown = false;
  /** Resolvers of pending {@link shutDownWithDrain} calls. */
  #drainWaiters: (() => void)[] = [];
  readonly #metrics: QueueMetrics<T> | undefined;

  constructor(options: QueueOptions = {}) {
    this.clock = options.clock ?? realClock;
    const { name, metrics } = options;
    this.#metrics =
      name !== undefined && name !== "" && metrics !== undefined
        ? new QueueMetrics<T>(metrics, name, this.clock)
        : undefined;
  }

  /**
   * Marks `item` as needing processing. It is queued unless it is already waiting (no-op)
   * or being processed (it is then queued again when the worker calls {@link done}).
   * Ignored once the queue is shutting down.
   */
  add(item: T): void {
    if (this.#shuttingDown) return;
    const state = this.#states.get(item);
    if (state === undefined) {
      this.#metrics?.add(item);
      this.#enqueue(item);
    } else if (state !== REQUEUE && state < this.#handedOut) {
      // Being processed: queued again on done.
      this.#metrics?.add(item);
      this.#states.set(item, REQUEUE);
    }
  }

  /** How many items wait for a worker (items being processed are not counted). Informational only. */
  len(): number {
    return this.#queue.length;
  }

  /**
   * Hands the next item to the caller, who must call {@link done} with it when finished;
   * waits while the queue is empty. Resolves to `[undefined, true]` once the queue is shut
   * down and has nothing left to hand out: the worker should stop.
   *
   * When `signal` is already aborted, or aborts while the call waits, the promise rejects
   * with `signal.reason` and no item is taken (an item arriving later goes to another
   * `get`). Once the promise has resolved with an item, an abort no longer affects it.
   */
  get(signal?: AbortSignal): Promise<QueueGetResult<T>> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#queue.length > 0) return Promise.resolve(this.#handOut(this.#queue.shift()));
    if (this.#shuttingDown) return Promise.resolve(SHUT_DOWN);
    return new Promise<QueueGetResult<T>>((resolve, reject) => {
      const onAbort =
        signal &&
        ((): void => {
          this.#unlink(getter);
          reject(signal.reason);
        });
      const getter: Getter<T> = {
        resolve,
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

  /**
   * Marks the processing of `item` finished. If it was added again meanwhile, it is queued
   * once more. A no-op for an item that is not being processed.
   */
  done(item: T): void {
    const state = this.#states.get(item);
    // Unknown, or waiting (not handed out): not being processed.
    if (state === undefined || state >= this.#handedOut) return;
    this.#processing--;
    this.#metrics?.done(item);
    if (state === REQUEUE) this.#enqueue(item);
    else this.#states.delete(item);
    if (this.#processing === 0 && this.#drainWaiters.length > 0) this.#releaseDrainWaiters();
  }

  /**
   * Stops accepting items: later `add`s are ignored; queued items are still handed out, then
   * every `get` (those waiting now included) resolves to `[undefined, true]`. Also ends the
   * wait of any {@link shutDownWithDrain}, and stops the queue's timers so that, on the real
   * clock, the queue no longer keeps the process alive. Idempotent.
   */
  shutDown(): void {
    this.#beginShutDown();
    this.#releaseDrainWaiters();
  }

  /**
   * {@link shutDown}, then resolves once no item is being processed: every item handed out
   * has been passed to {@link done}. Items still queued do not delay it (client-go's
   * `ShutDownWithDrain`). A later {@link shutDown} resolves it at once.
   */
  shutDownWithDrain(): Promise<void> {
    this.#beginShutDown();
    if (this.#processing === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
  }

  /** Whether {@link shutDown} or {@link shutDownWithDrain} has been called. */
  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * Called once, when the queue starts shutting down (after `add` starts being ignored):
   * subclasses cancel their timers here.
   */
  protected onShutDown(): void {}

  /**
   * Gives a dirty item that is not being processed its ticket and queues it, or hands it
   * straight to a blocked `get` (the queue is then empty, so its ticket is the next one
   * handed out).
   */
  #enqueue(item: T): void {
    this.#states.set(item, this.#ticketsGiven++);
    const getter = this.#firstGetter;
    if (getter === undefined) {
      this.#queue.push(item);
      return;
    }
    this.#unlink(getter);
    if (getter.signal && getter.onAbort) {
      getter.signal.removeEventListener("abort", getter.onAbort);
    }
    getter.resolve(this.#handOut(item));
  }

  /** Moves the item with the next ticket to processing. */
  #handOut(item: T): QueueGetResult<T> {
    this.#handedOut++;
    this.#processing++;
    this.#metrics?.get(item);
    return [item, false];
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
    this.onShutDown();
    // A blocked get means the queue is empty: each one ends now.
    for (let g = this.#firstGetter; g !== undefined; g = this.#firstGetter) {
      this.#unlink(g);
      if (g.signal && g.onAbort) g.signal.removeEventListener("abort", g.onAbort);
      g.resolve(SHUT_DOWN);
    }
  }

  #releaseDrainWaiters(): void {
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
