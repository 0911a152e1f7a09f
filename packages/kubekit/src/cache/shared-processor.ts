/**
 * The fan-out of a SharedIndexInformer (client-go's `sharedProcessor`): its handlers'
 * listeners, which of them take resync notifications, and the resync period rules.
 */
import type { Logger } from "../core/logger.js";
import type { Notification, ProcessorListener } from "./processor-listener.js";

/** client-go's `minimumResyncPeriod`: handler resync periods below 1 s are raised to 1 s. */
export const MINIMUM_RESYNC_PERIOD_MS = 1_000;

/**
 * The resync period a handler gets (client-go's `determineResyncPeriod`): `desiredMs` 0 stays
 * 0 (never); when the informer does not resync (`checkPeriodMs` 0) it is 0; below the
 * informer's resync check period it is raised to that period. Adjustments are logged.
 */
export function determineResyncPeriod(
  desiredMs: number,
  checkPeriodMs: number,
  logger: Logger,
  name: string,
): number {
  if (desiredMs === 0) return 0;
  if (checkPeriodMs === 0) {
    logger.info(`${name}: the requested resync period is ignored: this informer never resyncs`, {
      desiredMs,
    });
    return 0;
  }
  if (desiredMs < checkPeriodMs) {
    logger.info(`${name}: the requested resync period is raised to the resync check period`, {
      desiredMs,
      checkPeriodMs,
    });
    return checkPeriodMs;
  }
  return desiredMs;
}

/**
 * The listeners of one informer. Each listener carries a "syncing" flag: resync notifications
 * (updates that did not change the resourceVersion) go only to flagged listeners, every other
 * notification to all. A listener is flagged when added; {@link shouldResync} recomputes the
 * flags at every resync check.
 */
export class SharedProcessor<T> {
  /** listener → whether it currently takes resync notifications. */
  readonly #listeners = new Map<ProcessorListener<T>, boolean>();
  /** Delivery loops not yet ended, including those of removed listeners. */
  readonly #running = new Set<Promise<void>>();

  /** How many listeners are registered. */
  get size(): number {
    return this.#listeners.size;
  }

  /** Registers a listener (flagged for resync notifications). */
  add(listener: ProcessorListener<T>): void {
    this.#listeners.set(listener, true);
    const done = listener.done.then(() => {
      this.#running.delete(done);
    });
    this.#running.add(done);
  }

  /** Unregisters and stops a listener; a no-op for one not registered. */
  remove(listener: ProcessorListener<T>): void {
    if (!this.#listeners.delete(listener)) return;
    listener.stop();
  }

  /** Buffers `notification` for every listener, or only the flagged ones when `isSync`. */
  distribute(notification: Notification<T>, isSync: boolean): void {
    for (const [listener, syncing] of this.#listeners) {
      if (!isSync || syncing) listener.add(notification);
    }
  }

  /**
   * The reflector's `shouldResync` (client-go's `sharedProcessor.shouldResync`): flags exactly
   * the listeners whose resync is due at `now`, schedules their next one, and says whether
   * any is due.
   */
  shouldResync(now: number): boolean {
    let due = false;
    for (const listener of this.#listeners.keys()) {
      const resync = listener.shouldResync(now);
      this.#listeners.set(listener, resync);
      if (resync) {
        due = true;
        listener.determineNextResync(now);
      }
    }
    return due;
  }

  /** Re-derives every listener's resync period after the informer's check period changed. */
  resyncCheckPeriodChanged(checkPeriodMs: number, logger: Logger, name: string): void {
    for (const listener of this.#listeners.keys()) {
      listener.setResyncPeriod(
        determineResyncPeriod(listener.requestedResyncPeriodMs, checkPeriodMs, logger, name),
      );
    }
  }

  /**
   * Stops every listener and resolves once every delivery loop (also of listeners removed
   * earlier) has ended, i.e. once the callbacks in progress have finished.
   */
  async stop(): Promise<void> {
    for (const listener of this.#listeners.keys()) listener.stop();
    this.#listeners.clear();
    await Promise.all(this.#running);
  }
}
