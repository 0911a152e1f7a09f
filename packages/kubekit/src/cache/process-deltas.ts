/**
 * How an informer applies a popped item to its cache and notifies its handler (client-go's
 * `processDeltas` and `processReplacedAllInfo`).
 */
import type { CooperativeSlice } from "../core/event-loop-slice.js";
import { runSliced, runToCompletion } from "../core/event-loop-slice.js";
import type { Deltas, ReplacedAllInfo } from "./delta.js";
import { CacheIndexer } from "./indexer.js";
import type { Store } from "./store.js";
import { DeletedFinalStateUnknown } from "./tombstone.js";

/**
 * Receives the notifications {@link processDeltas} derives (the shape of client-go's
 * `ResourceEventHandler`). Called synchronously, after the cache was updated.
 */
export interface DeltaHandler<T> {
  /** A new key: `isInInitialList` is true while the informer has not synced yet. */
  onAdd(obj: T, isInInitialList: boolean): void;
  /** A cached key changed, or was re-delivered by a relist/resync (then `oldObj` may equal `newObj`). */
  onUpdate(oldObj: T, newObj: T): void;
  /** A key was removed; a tombstone when the deletion was inferred from a relist. */
  onDelete(obj: T | DeletedFinalStateUnknown<T>): void;
}

/** The relist's lookups pause after every `STEP_MASK + 1` objects (a power of two). */
const STEP_MASK = 255;

/**
 * Applies popped deltas, oldest first, to `store` and notifies `handler`. The store is always
 * updated before the handler is called, so a handler reading the cache sees the new state.
 *
 * - `Added`/`Updated`/`Replaced`/`Sync`: whether the key is cached decides: cached →
 *   `store.update` then `onUpdate(old, new)`; not cached → `store.add` then
 *   `onAdd(obj, isInInitialList)`. (An `Added` for a cached key is an update; a `Replaced`
 *   for an unknown key is an add.) A `Sync` of the very object cached (a DeltaFIFO resync) is
 *   only re-delivered: the store is not written, so its resourceVersion does not step back
 *   to that object's.
 * - `Deleted`: `store.delete` then `onDelete(obj)` — no existence check.
 * - `ReplacedAll`: computes the deletions (cached keys absent from the list, as tombstones
 *   holding the cached object) and the old state of every listed object, replaces the whole
 *   store (recording the list's resourceVersion), then calls `onDelete` for every deletion,
 *   then `onUpdate`/`onAdd` for the listed objects in list order.
 * - `SyncAll`: `onUpdate(obj, obj)` for every cached object.
 * - `Bookmark`: `store.bookmark(resourceVersion)`; no notification.
 *
 * Errors: a store write that throws (key or index function) stops processing there, before
 * the corresponding notification; a throwing handler also stops it, after the cache was
 * updated. Deltas already applied stay applied.
 */
export function processDeltas<T>(
  handler: DeltaHandler<T>,
  store: Store<T>,
  deltas: Deltas<T>,
  isInInitialList: boolean,
): void {
  for (const delta of deltas) {
    switch (delta.type) {
      case "Added":
      case "Updated":
      case "Replaced": {
        const obj = delta.object;
        // One key computation and one lookup for both the old state and the write.
        const old = store instanceof CacheIndexer ? store.upsert(obj) : upsert(store, obj);
        if (old !== undefined) handler.onUpdate(old, obj);
        else handler.onAdd(obj, isInInitialList);
        break;
      }
      case "Sync": {
        const obj = delta.object;
        const old = store.getByKey(store.keyOf(obj));
        if (old !== undefined) {
          if (old !== obj) store.update(obj);
          handler.onUpdate(old, obj);
        } else {
          store.add(obj);
          handler.onAdd(obj, isInInitialList);
        }
        break;
      }
      case "Deleted":
        store.delete(delta.object);
        handler.onDelete(delta.object);
        break;
      case "ReplacedAll":
        processReplacedAll(handler, store, delta.object, isInInitialList);
        break;
      case "SyncAll":
        for (const obj of store.list()) handler.onUpdate(obj, obj);
        break;
      case "Bookmark":
        store.bookmark(delta.object.resourceVersion);
        break;
    }
  }
}

/**
 * Writes `obj` into a store other than a `CacheIndexer` (which has its own `upsert`) and
 * returns the object it replaced: `update` for a cached key, `add` otherwise.
 */
function upsert<T>(store: Store<T>, obj: T): T | undefined {
  const old = store.getByKey(store.keyOf(obj));
  if (old !== undefined) store.update(obj);
  else store.add(obj);
  return old;
}

/**
 * Applies one `ReplacedAll` (a relist) as {@link processDeltas} does, cooperatively: the
 * deletions and the old state of every listed object are looked up, and the new content of
 * `store` is built aside (`CacheIndexer.replaceSteps`), in slices that yield to the event
 * loop whenever `slice` is due. Meanwhile readers of `store` see its old, complete content
 * and no handler is called. Then, in one synchronous step, the new content is swapped in
 * (`CacheIndexer.commitReplace`) and every notification delivered, as `processDeltas` would
 * (deletions, then the listed objects in list order). A store other than a `CacheIndexer` is
 * replaced with `store.replace` in that step.
 *
 * The caller must not write to `store` until this settles (an informer's queue holds every
 * later change meanwhile): the lookups made before the swap are those of the content
 * replaced. An abort of `signal` while it yields abandons the relist: `store` is left as it
 * was, no handler is called, and the promise rejects with `signal.reason`. Errors as
 * `processDeltas`: a throwing key or index function rejects before the swap; a throwing
 * handler after it.
 */
export function processReplacedAllSliced<T>(
  handler: DeltaHandler<T>,
  store: Store<T>,
  info: ReplacedAllInfo<T>,
  isInInitialList: boolean,
  slice: CooperativeSlice,
  signal?: AbortSignal,
): Promise<void> {
  return runSliced(replacedAllSteps(handler, store, info, isInInitialList), slice, signal);
}

function processReplacedAll<T>(
  handler: DeltaHandler<T>,
  store: Store<T>,
  info: ReplacedAllInfo<T>,
  isInInitialList: boolean,
): void {
  runToCompletion(replacedAllSteps(handler, store, info, isInInitialList));
}

/**
 * A relist's application as steps (see {@link processReplacedAllSliced}): pauses only
 * before the swap; the swap and the notifications are one step.
 */
function* replacedAllSteps<T>(
  handler: DeltaHandler<T>,
  store: Store<T>,
  info: ReplacedAllInfo<T>,
  isInInitialList: boolean,
): Generator<void, void> {
  const objects = info.objects;
  const cachedKeys = store.listKeys();
  // The cached state of each listed object, aligned with `objects` (none when the cache is
  // empty, as at the initial list: then nothing is looked up).
  const olds = new Array<T | undefined>(cachedKeys.length > 0 ? objects.length : 0);
  const deletions: DeletedFinalStateUnknown<T>[] = [];
  if (cachedKeys.length > 0) {
    const listed = new Set<string>();
    for (let i = 0; i < objects.length; i++) {
      const key = store.keyOf(objects[i] as T);
      listed.add(key);
      olds[i] = store.getByKey(key);
      if ((i & STEP_MASK) === STEP_MASK) yield;
    }
    for (let i = 0; i < cachedKeys.length; i++) {
      const key = cachedKeys[i] as string;
      if (!listed.has(key)) deletions.push(new DeletedFinalStateUnknown(key, store.getByKey(key)));
      if ((i & STEP_MASK) === STEP_MASK) yield;
    }
  }
  if (store instanceof CacheIndexer) {
    const prepared = yield* store.replaceSteps(objects, info.resourceVersion);
    store.commitReplace(prepared);
  } else {
    store.replace(objects, info.resourceVersion);
  }
  for (const tombstone of deletions) handler.onDelete(tombstone);
  for (let i = 0; i < objects.length; i++) {
    const obj = objects[i] as T;
    const old = olds[i];
    if (old !== undefined) handler.onUpdate(old, obj);
    else handler.onAdd(obj, isInInitialList);
  }
}
