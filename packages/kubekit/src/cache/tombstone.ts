/**
 * The tombstone an informer delivers when an object disappeared without its deletion being
 * observed (client-go's `DeletedFinalStateUnknown`), and the key function that understands it.
 */
import { objectKey } from "../core/object-key.js";

/** What {@link objectKey} accepts: anything with an optional `metadata.name`/`namespace`. */
export type ObjectWithMeta = Parameters<typeof objectKey>[0];

/**
 * Placed in a `Deleted` delta (and handed to `onDelete`) when a relist shows that an object is
 * gone but its DELETE watch event was missed, e.g. while the watch was disconnected.
 *
 * Caveat: `obj` is the last state the client knew of, which may be stale, and it is
 * `undefined` when nothing was known. `key` is always set and is the key the object had.
 */
export class DeletedFinalStateUnknown<T> {
  /** The cache key of the deleted object (`ns/name` or `name`). */
  readonly key: string;
  /** The last known state of the object; possibly stale, `undefined` when unknown. */
  readonly obj: T | undefined;

  constructor(key: string, obj: T | undefined) {
    this.key = key;
    this.obj = obj;
  }
}

/**
 * client-go's `DeletionHandlingMetaNamespaceKeyFunc`: a tombstone's own `key`, otherwise
 * {@link objectKey} of the object (`ns/name`, or `name` when cluster-scoped).
 *
 * @throws {ObjectKeyError} (from {@link objectKey}) when an object has no metadata or no name.
 */
export function deletionHandlingKey(
  obj: ObjectWithMeta | DeletedFinalStateUnknown<unknown>,
): string {
  return obj instanceof DeletedFinalStateUnknown ? obj.key : objectKey(obj);
}
