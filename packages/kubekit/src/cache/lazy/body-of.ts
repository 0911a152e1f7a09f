/**
 * Telling a lazy informer's item from a plain object, and reading the body of either.
 */
import type { LazyObject } from "../lazy-object.js";

/**
 * Whether `value` is a {@link LazyObject}: an object with a `metadata` object, an `object`
 * method and a boolean `parsed`. Decoded JSON never has a function-valued property, so a
 * wire object (or a tombstone) is never taken for a lazy one.
 */
export function isLazyObject(value: unknown): value is LazyObject<unknown> {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { readonly object?: unknown; readonly parsed?: unknown };
  return typeof candidate.object === "function" && typeof candidate.parsed === "boolean";
}

/**
 * The body of `item`: `item.object()` for a {@link LazyObject} (parsing it on the first
 * read), `item` itself otherwise. Lets code written for plain objects take either.
 *
 * @throws {SyntaxError} when a lazy object's bytes are not valid JSON.
 */
export function bodyOf<T>(item: T | LazyObject<T>): T {
  return isLazyObject(item) ? (item as LazyObject<T>).object() : item;
}
