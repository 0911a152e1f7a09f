/**
 * What the informer queues deliver (client-go's `Delta`, `Deltas` and `DeltaType`): one change
 * to one object, or, from the in-order FIFO, one atomic relist / resync / bookmark.
 */
import type { DeletedFinalStateUnknown } from "./tombstone.js";

/**
 * - `Added`, `Updated`, `Deleted`: a watch event (or a direct queue call).
 * - `Replaced`: an object from a relist (`Sync` instead when a DeltaFIFO was built with
 *   `emitDeltaTypeReplaced: false`).
 * - `Sync`: a periodic resync of a cached object (DeltaFIFO).
 * - `ReplacedAll`, `SyncAll`, `Bookmark`: a whole relist, a whole resync, and a watch bookmark,
 *   each as a single entry (in-order FIFO only).
 */
export type DeltaType =
  "Added" | "Updated" | "Deleted" | "Replaced" | "Sync" | "ReplacedAll" | "SyncAll" | "Bookmark";

/** The payload of a `ReplacedAll` delta: a complete relist. */
export interface ReplacedAllInfo<T> {
  /** The list's resourceVersion. */
  readonly resourceVersion: string;
  /** Every object of the list, in list order, already transformed. */
  readonly objects: readonly T[];
}

/** The payload of a `SyncAll` delta: no data, "re-deliver every cached object". */
export type SyncAllInfo = Readonly<Record<string, never>>;

/** The payload of a `Bookmark` delta. */
export interface BookmarkInfo {
  /** The bookmark's resourceVersion: every event up to it has been queued before this entry. */
  readonly resourceVersion: string;
}

/** A change carrying the object's new state. */
export interface ObjectDelta<T> {
  readonly type: "Added" | "Updated" | "Replaced" | "Sync";
  readonly object: T;
}

/** A deletion: the last state seen, or a tombstone when the deletion was inferred from a relist. */
export interface DeletedDelta<T> {
  readonly type: "Deleted";
  readonly object: T | DeletedFinalStateUnknown<T>;
}

/** A whole relist as one entry. */
export interface ReplacedAllDelta<T> {
  readonly type: "ReplacedAll";
  readonly object: ReplacedAllInfo<T>;
}

/** A whole resync as one entry. */
export interface SyncAllDelta {
  readonly type: "SyncAll";
  readonly object: SyncAllInfo;
}

/** A watch bookmark as one entry. */
export interface BookmarkDelta {
  readonly type: "Bookmark";
  readonly object: BookmarkInfo;
}

/** One queued change; `type` discriminates the shape of `object`. */
export type Delta<T> =
  ObjectDelta<T> | DeletedDelta<T> | ReplacedAllDelta<T> | SyncAllDelta | BookmarkDelta;

/**
 * What one pop delivers, oldest first: every change queued for one key (DeltaFIFO), or exactly
 * one entry (in-order FIFO).
 */
export type Deltas<T> = readonly Delta<T>[];
