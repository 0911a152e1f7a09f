import { deepClone, deepEqual, isJsonObject, setOwnValue } from "./json.js";
import type { JsonObject, JsonValue } from "./json.js";

/**
 * RFC 7386 JSON Merge Patch (`application/merge-patch+json`): objects merge recursively, `null`
 * deletes a member, and anything else (arrays included) replaces the target value whole.
 */

/**
 * Apply a merge patch to `target` (`undefined` means "no target", e.g. a missing member) and
 * return the result, exactly as RFC 7386 §2 defines it: a non-object patch replaces the target; an
 * object patch turns a non-object target into `{}` first, deletes the members whose patch value is
 * `null`, and merges the others recursively. `null` members nested in the patch's objects never
 * reach the result; `null` elements inside arrays do (arrays are taken verbatim).
 *
 * Neither input is mutated. The result is a new value, except that subtrees of `target` the patch
 * does not touch are shared with it (the result is as immutable as `target` is). Nothing is
 * shared with `patch`: its arrays are copied.
 */
export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return Array.isArray(patch) ? deepClone(patch) : patch;
  const result: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else {
      const current = Object.hasOwn(result, key) ? result[key] : undefined;
      setOwnValue(result, key, applyMergePatch(current, value));
    }
  }
  return result;
}

/**
 * The smallest merge patch that turns `original` into `modified`. For two objects it is an object
 * holding the added and changed members (recursing into members that are objects on both sides)
 * and `null` for every removed member, so equal objects give `{}`. When either side is not an
 * object, the patch is (a copy of) `modified` itself, the only patch that can replace a value.
 * Arrays are never diffed element-wise: a changed array appears whole.
 *
 * Caveat inherent to RFC 7386: a member whose value is `null` in `modified` cannot be expressed,
 * since `null` in a patch means "delete". Such a member comes out as a deletion (or, when it is
 * absent from `original`, not at all), so applying the patch yields `modified` without it.
 *
 * Neither input is mutated; the patch shares no objects or arrays with them.
 */
export function createMergePatch(original: JsonValue, modified: JsonValue): JsonValue {
  if (!isJsonObject(original) || !isJsonObject(modified)) return deepClone(modified);
  return diffObjects(original, modified);
}

function diffObjects(original: JsonObject, modified: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(original)) {
    if (!Object.hasOwn(modified, key)) setOwnValue(patch, key, null);
  }
  for (const [key, value] of Object.entries(modified)) {
    if (!Object.hasOwn(original, key)) {
      if (value !== null) setOwnValue(patch, key, deepClone(value));
      continue;
    }
    const before = original[key] as JsonValue;
    if (deepEqual(before, value)) continue;
    if (isJsonObject(before) && isJsonObject(value)) {
      setOwnValue(patch, key, diffObjects(before, value));
    } else {
      setOwnValue(patch, key, deepClone(value));
    }
  }
  return patch;
}
