/**
 * The queue between a Reflector and an informer (client-go's `Queue`): the Reflector writes
 * into it, the informer pops from it. Implemented by {@link DeltaFIFO} and {@link RealFIFO}.
 */
import type { Deltas } from "./delta.js";
import type { ReflectorStore } from "./reflector-store.js";

/** Returned by `pop` once the queue is closed and empty. */
export const QUEUE_CLOSED: unique symbol = Symbol("kubekit.queueClosed");

/**
 * Handles one popped item. `isInInitialList` is true while the queue has not synced, i.e. for
 * items of the first relist. May be async: the queue awaits it before delivering anything else.
 */
export type PopProcessFunc<T> = (
  deltas: Deltas<T>,
  isInInitialList: boolean,
) => void | Promise<void>;

/**
 * Applied to every object as it is enqueued (client-go's `TransformFunc`), e.g. to strip
 * `managedFields` before caching. Never applied to tombstones or to resync (`Sync`) objects,
 * which already went through it. It may mutate and return its argument; it should be
 * idempotent. A throw propagates to the writer and nothing is enqueued.
 */
export type TransformFunc<T> = (obj: T) => T;

/**
 * The informer's queue. Writes (`add`, `update`, `delete`, `replace`, `resync`, `bookmark`)
 * never wait; a write whose key function or transform throws enqueues nothing.
 */
export interface InformerQueue<T> extends ReflectorStore<T> {
  /**
   * Waits until an item is queued, removes it, runs `process` on it and awaits it, then
   * resolves with the item. Items are delivered one at a time: while a `process` runs, other
   * pops wait (so does `hasSynced()`'s progress). If `process` throws or rejects, `pop` rejects
   * with that error; the item is consumed either way (no requeue).
   *
   * After `close()`, items still queued are delivered; once the queue is empty, `pop`
   * resolves {@link QUEUE_CLOSED}. `signal` only cancels the wait: an aborted pop rejects with
   * `signal.reason` and consumes nothing; a `process` already running is not interrupted.
   */
  pop(process: PopProcessFunc<T>, signal?: AbortSignal): Promise<Deltas<T> | typeof QUEUE_CLOSED>;
  /**
   * Like {@link pop}, for every item queued (client-go's `PopBatch`): waits until an item is
   * queued, then removes and processes the items one after the other, in order, each as
   * `pop` would (awaiting a `process` that returns a promise), without waiting in between,
   * until the queue is empty; resolves with the number processed. Items queued while it runs
   * are processed too. If `process` throws or rejects, it rejects with that error: that item
   * is consumed, later ones stay queued. Resolves {@link QUEUE_CLOSED} like `pop`; `signal`
   * only cancels the wait.
   */
  popBatch(process: PopProcessFunc<T>, signal?: AbortSignal): Promise<number | typeof QUEUE_CLOSED>;
  /**
   * True once the first relist has been delivered (or a plain add/update/delete came before
   * any relist); see each implementation for exactly when.
   */
  hasSynced(): boolean;
  /**
   * Closes the queue: pops drain what is queued, then resolve {@link QUEUE_CLOSED}. Idempotent.
   * As in client-go, writes are still accepted afterwards (the Reflector is expected to have
   * stopped) and are delivered by later pops.
   */
  close(): void;
  /** Whether {@link InformerQueue.close} was called. */
  readonly closed: boolean;
  /** The backlog: items waiting to be popped (not counting one being processed). */
  readonly length: number;
}
