/**
 * The stock informer transform that drops `metadata.managedFields` (client-go's
 * `TransformStripManagedFields`): server-side-apply bookkeeping that controllers rarely read
 * and that often makes up most of an object's memory.
 */
import { isJsonObject } from "../core/json.js";
import { metadataOf } from "../core/object-metadata.js";
import { LazyJsonObject } from "./lazy/lazy-json-object.js";

/**
 * Returns `obj` without `metadata.managedFields`. Does not mutate its argument: when there is
 * something to strip it returns a shallow copy of the object with a shallow copy of its
 * metadata (everything else shared); otherwise it returns `obj` itself. Idempotent.
 * Non-objects, and objects without `metadata`, pass through unchanged.
 *
 * Use it with `SharedIndexInformer.setTransform(stripManagedFields)` or the `transform`
 * option. On a lazy informer's object (`LazyObject`, whose metadata never holds
 * `managedFields`) it returns a lazy object whose body is stripped when it is parsed.
 */
export function stripManagedFields<T>(obj: T): T {
  if (obj instanceof LazyJsonObject) {
    return LazyJsonObject.withBodyTransform(obj, stripManagedFields) as T;
  }
  if (!isJsonObject(obj)) return obj;
  const metadata = metadataOf(obj);
  if (metadata === undefined || !Object.hasOwn(metadata, "managedFields")) return obj;
  const { managedFields: _managedFields, ...rest } = metadata;
  return { ...obj, metadata: rest };
}
