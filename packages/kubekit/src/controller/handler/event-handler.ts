/**
 * What a controller's sources deliver and what turns it into keys (controller-runtime's
 * `pkg/event` events and `pkg/handler` `TypedEventHandler`), and the queue a handler or a
 * raw source writes keys to.
 */
import type { QueueAddOptions } from "../../workqueue/priority-queue.js";

/**
 * A controller's work queue as its sources and handlers see it (controller-runtime hands
 * them the `workqueue.TypedRateLimitingInterface`): keys (`ns/name`, or `name` when
 * cluster-scoped) to reconcile. Adding a key already waiting is a no-op (a priority queue
 * raises its priority, an earlier `afterMs` wins); adding after the controller stopped is
 * ignored.
 */
export interface ReconcileQueue {
  /**
   * Adds `key` (with `options`: a delay, the rate limiter's delay, a priority). The
   * priority is honoured only by a controller using the priority queue
   * (`priorityQueue: true`); higher is handed out first, default 0, `LOW_PRIORITY` -100.
   */
  add(key: string, options?: QueueAddOptions): void;
}

/**
 * An object appeared (controller-runtime's `TypedCreateEvent`). `isInInitialList` is true
 * for the objects of an informer's first list (the state found at start, e.g. after a
 * restart): the built-in handlers add them at `LOW_PRIORITY` to a priority queue.
 */
export interface CreateEvent<T> {
  readonly object: T;
  readonly isInInitialList: boolean;
}

/**
 * An object changed, or was re-delivered by a resync or a relist (then both are the same
 * state, with the same resourceVersion: the built-in handlers add it at `LOW_PRIORITY` to a
 * priority queue).
 */
export interface UpdateEvent<T> {
  readonly objectOld: T;
  readonly objectNew: T;
}

/**
 * An object left the cache. `finalStateUnknown` is true when the deletion was inferred from
 * a relist; `object` is then the last state the cache knew, which may be stale.
 */
export interface DeleteEvent<T> {
  readonly object: T;
  readonly finalStateUnknown: boolean;
}

/**
 * An object from a source that is not an informer (controller-runtime's
 * `TypedGenericEvent`): a `channelSource`'s items.
 */
export interface GenericEvent<T> {
  readonly object: T;
}

/**
 * Turns a source's events into keys on the queue (controller-runtime's `TypedEventHandler`).
 * A missing method ignores that kind of event. Methods run on the source's delivery path:
 * they must be fast and must not mutate the objects (an informer's are its cache's). A
 * throw is recovered by the controller: logged with the source, counted in
 * `controller_runtime_reconcile_panics_total`, and the event dropped.
 *
 * Built-in: `enqueueForObject()`, `enqueueForOwner(owner)`, `enqueueFromMap(map)`; write
 * your own for anything else (e.g. to add with `afterMs` or a priority).
 */
export interface EventHandler<T> {
  create?(event: CreateEvent<T>, queue: ReconcileQueue): void;
  update?(event: UpdateEvent<T>, queue: ReconcileQueue): void;
  delete?(event: DeleteEvent<T>, queue: ReconcileQueue): void;
  generic?(event: GenericEvent<T>, queue: ReconcileQueue): void;
  /**
   * A deletion inferred from a relist whose last state is unknown: only the cache `key` of
   * the deleted object is known (predicates are not asked). `enqueueForObject` adds that key;
   * handlers without this method ignore such deletions.
   */
  deletedWithUnknownState?(key: string, queue: ReconcileQueue): void;
}

/**
 * The priority the built-in handlers give, on a priority queue, to objects of an informer's
 * initial list and to updates that changed nothing (resyncs): -100, controller-runtime's
 * `handler.LowPriority`. Default priority is 0; higher is handed out first.
 */
export const LOW_PRIORITY = -100;
