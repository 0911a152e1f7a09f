/**
 * What a SharedIndexInformer calls with the changes it observes (client-go's
 * `ResourceEventHandler`), and the handle returned when such a handler is registered
 * (client-go's `ResourceEventHandlerRegistration`).
 */
import type { DeletedFinalStateUnknown } from "./tombstone.js";

/**
 * Callbacks for the changes an informer observes; each is optional. Every callback runs
 * after the informer's cache already holds the new state.
 *
 * Delivery guarantees (per handler): notifications arrive one at a time, in the order the
 * informer processed them; a callback returning a promise is awaited before the next
 * notification is delivered. Handlers are independent: a slow handler delays only itself.
 *
 * Objects are the informer's cached objects, shared with the cache and every other handler:
 * never mutate them (copy first). A callback that throws or rejects is logged and the next
 * notification is delivered (client-go crashes the process by default instead).
 *
 * Level-triggered: intermediate states may be skipped (e.g. across a relist), and an update
 * may carry identical old and new objects (a resync, or a relist where nothing changed).
 */
export interface ResourceEventHandler<T> {
  /**
   * An object appeared in the cache. `isInInitialList` is true for objects of the first list
   * (before the informer synced) and for the replay of the cache to a handler added late.
   */
  onAdd?(obj: T, isInInitialList: boolean): void | Promise<void>;
  /**
   * A cached object changed, or was re-delivered by a resync or a relist (same
   * resourceVersion: then `oldObj` and `newObj` may be the same object).
   */
  onUpdate?(oldObj: T, newObj: T): void | Promise<void>;
  /**
   * An object left the cache. A {@link DeletedFinalStateUnknown} tombstone when the deletion
   * was inferred from a relist (the DELETE event was missed); its `obj` may be stale.
   */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

/** The handle of one registered {@link ResourceEventHandler}. */
export interface EventHandlerRegistration {
  /**
   * True once the informer has synced AND this handler has processed every initial add
   * (the objects of the first list, or the cache replay of a handler added late).
   */
  hasSynced(): boolean;
  /**
   * Resolves `true` once {@link hasSynced} is true; `false` if `signal` aborts, the
   * registration is removed or the informer stops first. Event-driven (no polling).
   */
  waitForSync(signal?: AbortSignal): Promise<boolean>;
  /**
   * Stops delivery to this handler (idempotent). A callback already running finishes;
   * buffered notifications are dropped.
   */
  remove(): void;
  /** Notifications buffered for this handler and not yet delivered (not counting one running). */
  readonly backlog: number;
  /**
   * The resync period in effect for this handler, in ms (0 = never), after the 1 s floor and
   * the adjustment to the informer's resync check period.
   */
  readonly resyncPeriodMs: number;
}
