/**
 * One registered handler of a SharedIndexInformer with its own unbounded buffer and delivery
 * loop (client-go's `processorListener`), so that handlers never wait for each other.
 */
import type { Clock } from "../core/clock.js";
import { EventLoopSlice } from "../core/event-loop-slice.js";
import type { Logger } from "../core/logger.js";
import { Deque } from "./deque.js";
import type { ResourceEventHandler } from "./resource-event-handler.js";
import type { DeletedFinalStateUnknown } from "./tombstone.js";

/** A notification buffered for a handler. */
export type Notification<T> =
  | { readonly type: "add"; readonly obj: T; readonly isInInitialList: boolean }
  | { readonly type: "update"; readonly oldObj: T; readonly newObj: T }
  | { readonly type: "delete"; readonly obj: T | DeletedFinalStateUnknown<T> };

/** Settings of a {@link ProcessorListener}; periods in ms. */
export interface ProcessorListenerOptions<T> {
  readonly handler: ResourceEventHandler<T>;
  /** The resync period the handler asked for, after the 1 s floor (0 = never). */
  readonly requestedResyncPeriodMs: number;
  /** The resync period in effect (see `determineResyncPeriod`). */
  readonly resyncPeriodMs: number;
  /** The current time: the first resync is due one period from now. */
  readonly now: number;
  /** Whether the informer has synced (half of the handler's own sync condition). */
  readonly upstreamHasSynced: () => boolean;
  /** Called when the last outstanding initial add has been delivered. */
  readonly onInitialAddsDelivered: () => void;
  /** Where handler failures are logged. */
  readonly logger: Logger;
  /** The clock of the delivery loop's event-loop slices. */
  readonly clock: Clock;
  /** The informer's name, for log messages. */
  readonly name: string;
}

/**
 * Buffers notifications for one handler and delivers them in order, one at a time, awaiting
 * a callback that returns a promise before delivering the next one.
 *
 * - {@link add} never waits and never calls the handler synchronously: the buffer is
 *   unbounded, so a slow handler only grows its own {@link backlog}.
 * - A callback that throws or rejects is logged; delivery continues with the next one.
 * - Sync tracking (client-go's `SingleFileTracker`): every initial add (`isInInitialList`)
 *   counts as outstanding from {@link add} until its callback has finished; the listener
 *   has synced when the informer has and nothing is outstanding.
 * - Callbacks that complete synchronously are called one after the other, without a promise
 *   or a microtask in between; the loop yields to the event loop once it has held it for a
 *   slice (`EventLoopSlice`), so a backlog (the initial list) never blocks it for longer.
 * - {@link stop}: the loop finishes the callback in progress and ends; buffered
 *   notifications are dropped and later ones ignored.
 *
 * The delivery loop starts at construction; {@link done} settles when it has ended.
 */
export class ProcessorListener<T> {
  readonly handler: ResourceEventHandler<T>;
  readonly requestedResyncPeriodMs: number;
  readonly #upstreamHasSynced: () => boolean;
  readonly #onInitialAddsDelivered: () => void;
  readonly #logger: Logger;
  readonly #name: string;
  readonly #slice: EventLoopSlice;
  #buffer = new Deque<Notification<T>>();
  #wake: (() => void) | undefined;
  #stopped = false;
  #outstandingInitialAdds = 0;
  #resyncPeriodMs: number;
  #nextResync: number;
  /** Settles (never rejects) once the delivery loop has ended after {@link stop}. */
  readonly done: Promise<void>;

  constructor(options: ProcessorListenerOptions<T>) {
    this.handler = options.handler;
    this.requestedResyncPeriodMs = options.requestedResyncPeriodMs;
    this.#resyncPeriodMs = options.resyncPeriodMs;
    this.#nextResync = options.now + options.resyncPeriodMs;
    this.#upstreamHasSynced = options.upstreamHasSynced;
    this.#onInitialAddsDelivered = options.onInitialAddsDelivered;
    this.#logger = options.logger;
    this.#name = options.name;
    this.#slice = new EventLoopSlice(options.clock);
    this.done = this.#loop();
  }

  /** Notifications buffered and not yet delivered (not counting one being delivered). */
  get backlog(): number {
    return this.#buffer.length;
  }

  /** The resync period in effect, in ms (0 = never). */
  get resyncPeriodMs(): number {
    return this.#resyncPeriodMs;
  }

  /** Whether {@link stop} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** True once the informer has synced and every initial add buffered so far was delivered. */
  hasSynced(): boolean {
    return this.#upstreamHasSynced() && this.#outstandingInitialAdds === 0;
  }

  /** Buffers a notification (ignored after {@link stop}). */
  add(notification: Notification<T>): void {
    if (this.#stopped) return;
    if (notification.type === "add" && notification.isInInitialList) {
      this.#outstandingInitialAdds++;
    }
    this.#buffer.push(notification);
    this.#wakeLoop();
  }

  /** Ends delivery: the callback in progress finishes, buffered notifications are dropped. Idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#buffer = new Deque();
    this.#wakeLoop();
  }

  /** Changes the resync period in effect; the next resync stays due when it was. */
  setResyncPeriod(ms: number): void {
    this.#resyncPeriodMs = ms;
  }

  /** Whether a resync is due at `now` (never when the period is 0). */
  shouldResync(now: number): boolean {
    return this.#resyncPeriodMs > 0 && now >= this.#nextResync;
  }

  /** Schedules the next resync one period after `now`. */
  determineNextResync(now: number): void {
    this.#nextResync = now + this.#resyncPeriodMs;
  }

  #wakeLoop(): void {
    const wake = this.#wake;
    if (wake === undefined) return;
    this.#wake = undefined;
    wake();
  }

  async #loop(): Promise<void> {
    for (;;) {
      if (this.#stopped) return;
      const notification = this.#buffer.shift();
      if (notification === undefined) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        this.#slice.restart();
        continue;
      }
      // A callback that completes synchronously is followed by the next one at once: no
      // promise and no microtask per notification unless the handler returns one.
      const pending = this.#deliver(notification);
      if (pending !== undefined) await pending;
      if (this.#slice.due) await this.#slice.yield();
    }
  }

  /** Calls the handler; returns the wait for an asynchronous callback, if it returned one. */
  #deliver(notification: Notification<T>): Promise<void> | undefined {
    let result: unknown;
    try {
      result = this.#call(notification);
    } catch (err) {
      this.#failed(notification, err);
    }
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        () => this.#delivered(notification),
        (err: unknown) => {
          this.#failed(notification, err);
          this.#delivered(notification);
        },
      );
    }
    this.#delivered(notification);
    return undefined;
  }

  #call(notification: Notification<T>): unknown {
    const handler = this.handler;
    switch (notification.type) {
      case "add":
        return handler.onAdd?.(notification.obj, notification.isInInitialList);
      case "update":
        return handler.onUpdate?.(notification.oldObj, notification.newObj);
      case "delete":
        return handler.onDelete?.(notification.obj);
    }
  }

  #failed(notification: Notification<T>, err: unknown): void {
    this.#logger.error(`${this.#name}: event handler failed on ${notification.type}`, {
      error: err,
    });
  }

  /** The notification's callback has finished: an initial add is no longer outstanding. */
  #delivered(notification: Notification<T>): void {
    if (notification.type === "add" && notification.isInInitialList) {
      this.#outstandingInitialAdds--;
      if (this.#outstandingInitialAdds === 0) this.#onInitialAddsDelivered();
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
