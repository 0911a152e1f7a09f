/**
 * The JSON Patch that turns one JSON document into another: what a mutating webhook answers
 * (controller-runtime's `admission.PatchResponseFromRaw`, built on gomodules.xyz/jsonpatch's
 * `CreatePatch`).
 */
import type { JsonPatchOperation } from "./json-patch.js";
import { deepClone, deepEqual, isJsonObject, ownValue } from "./json.js";
import type { JsonObject, JsonValue } from "./json.js";

/**
 * The RFC 6902 operations that turn `original` into `modified`: applied in order to `original`
 * (kubekit's `applyJsonPatch`, or kube-apiserver's evanphx/json-patch), they give a document
 * deep-equal to `modified`.
 *
 * Shape: an empty array when the documents are deep-equal (numbers compare by value, key order
 * is irrelevant); objects are compared member by member (`remove` for a member that is gone,
 * `add` for a new one, recursion into members present in both); arrays element by element up
 * to the shorter length, then `add` at each new trailing index or `remove` of each dropped
 * trailing index from the last one down; any other change is a `replace` of the whole value.
 * Values in the operations are copies, never shared with `modified`. Pointers are escaped as
 * RFC 6901 says (`~` as `~0`, `/` as `~1`).
 *
 * Caveat: an element inserted at the front of an array yields a `replace` per shifted element
 * (no longest-common-subsequence search), which is correct but longer than necessary.
 */
export function createJsonPatch(original: JsonValue, modified: JsonValue): JsonPatchOperation[] {
  const operations: JsonPatchOperation[] = [];
  diffValue(original, modified, "", operations);
  return operations;
}

/** RFC 6901 escaping of one reference token. */
function escapeToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

function diffValue(a: JsonValue, b: JsonValue, path: string, out: JsonPatchOperation[]): void {
  if (deepEqual(a, b)) return;
  if (isJsonObject(a) && isJsonObject(b)) {
    diffObject(a, b, path, out);
  } else if (Array.isArray(a) && Array.isArray(b)) {
    diffArray(a, b, path, out);
  } else {
    out.push({ op: "replace", path, value: deepClone(b) });
  }
}

function diffObject(a: JsonObject, b: JsonObject, path: string, out: JsonPatchOperation[]): void {
  for (const key of Object.keys(a)) {
    if (!Object.hasOwn(b, key)) out.push({ op: "remove", path: `${path}/${escapeToken(key)}` });
  }
  for (const key of Object.keys(b)) {
    const next = ownValue(b, key) as JsonValue;
    const member = `${path}/${escapeToken(key)}`;
    const previous = ownValue(a, key);
    if (previous === undefined) out.push({ op: "add", path: member, value: deepClone(next) });
    else diffValue(previous, next, member, out);
  }
}

function diffArray(a: JsonValue[], b: JsonValue[], path: string, out: JsonPatchOperation[]): void {
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++)
    diffValue(a[i] as JsonValue, b[i] as JsonValue, `${path}/${i}`, out);
  for (let i = common; i < b.length; i++) {
    out.push({ op: "add", path: `${path}/${i}`, value: deepClone(b[i] as JsonValue) });
  }
  for (let i = a.length - 1; i >= common; i--) out.push({ op: "remove", path: `${path}/${i}` });
}
