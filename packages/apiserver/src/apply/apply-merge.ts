import { deepClone, isJsonObject } from "kubekit/apimachinery";
import type { JsonObject, JsonValue } from "kubekit";
import { indexItems } from "./field-diff.js";
import { FieldSet, fieldElement } from "./field-set.js";
import type { PathElement } from "./field-set.js";
import { concreteShape, listItemElement, sharedShape } from "./field-shape.js";
import type { FieldShape, ListShape, SetShape } from "./field-shape.js";

/**
 * The object side of server-side apply: merging an applied configuration into the live
 * object, and removing the fields an applier stopped managing.
 */

/**
 * Merges `applied` into `live` (a new value; neither input is modified). Leaves, atomic
 * lists and atomic structs in `applied` replace the live value; structs and maps merge
 * field by field; associative lists merge item by item (by key) and sets by value, keeping
 * the live items the configuration does not mention. Items the configuration lists come in
 * its order; live-only items keep their place relative to them.
 */
export function mergeApplied(
  live: JsonValue | undefined,
  applied: JsonValue,
  shape: FieldShape,
): JsonValue {
  return merge(live, applied, shape);
}

function merge(lhs: JsonValue | undefined, rhs: JsonValue, shape: FieldShape): JsonValue {
  if (lhs === undefined) return deepClone(rhs);
  const s = sharedShape(shape, lhs, rhs);
  switch (s.kind) {
    case "struct":
    case "map": {
      if (!isJsonObject(lhs) || !isJsonObject(rhs)) return deepClone(rhs);
      const out: JsonObject = deepClone(lhs);
      for (const [k, v] of Object.entries(rhs)) {
        out[k] = merge(lhs[k], v, s.kind === "struct" ? s.field(k).shape : s.value);
      }
      return out;
    }
    case "list":
    case "set":
      if (!Array.isArray(lhs) || !Array.isArray(rhs)) return deepClone(rhs);
      return mergeItems(s, lhs, rhs);
    default:
      return deepClone(rhs);
  }
}

/**
 * Merges the items of two keyed lists. Walks both lists together: an item found in both is
 * merged and emitted when the configuration reaches it, so shared items follow the
 * configuration's order; a live-only item is emitted where it stands; a configuration-only
 * item is emitted where it stands in the configuration.
 */
function mergeItems(shape: ListShape | SetShape, lhs: JsonValue[], rhs: JsonValue[]): JsonValue[] {
  const left = indexItems(shape, lhs);
  const right = indexItems(shape, rhs);
  const leftOrder = [...left.keys()];
  const rightOrder = [...right.keys()];
  const shared = rightOrder.filter((pe) => left.has(pe));
  const itemShape: FieldShape = shape.kind === "list" ? shape.item : { kind: "leaf" };
  const emit = (pe: PathElement): JsonValue =>
    merge(left.get(pe), right.get(pe) as JsonValue, itemShape);
  const out: JsonValue[] = [];
  let next = 0;
  let li = 0;
  let ri = 0;
  while (li < leftOrder.length || ri < rightOrder.length) {
    const lpe = leftOrder[li];
    const rpe = rightOrder[ri];
    if (lpe !== undefined && rpe !== undefined) {
      if (lpe === rpe) {
        out.push(emit(rpe));
        li++;
        ri++;
        next++;
        continue;
      }
      if (right.has(lpe) && shared[next] !== lpe) {
        li++;
        continue;
      }
    }
    if (lpe !== undefined && !right.has(lpe)) {
      out.push(deepClone(left.get(lpe) as JsonValue));
      li++;
      continue;
    }
    if (rpe !== undefined) {
      out.push(emit(rpe));
      ri++;
      if (shared[next] === rpe) next++;
      continue;
    }
    // Only shared live items remain; each was emitted when the configuration reached it.
    li++;
  }
  return out;
}

/**
 * Removes the paths of `toRemove` from `obj` (a new object; the input is not modified). A
 * removed struct field, map entry, list item or set value disappears with everything below
 * it; a container that becomes empty because of the removal is removed too (the root is
 * kept). The key fields of an associative-list item that stays are never removed.
 */
export function removeFields(obj: JsonObject, toRemove: FieldSet, shape: FieldShape): JsonObject {
  const out = prune(obj, toRemove, shape);
  return isJsonObject(out) ? out : {};
}

function isEmptyContainer(value: JsonValue): boolean {
  return Array.isArray(value)
    ? value.length === 0
    : isJsonObject(value) && Object.keys(value).length === 0;
}

/** The value with `set` removed below it; `undefined` when removal emptied a container. */
function prune(value: JsonValue, set: FieldSet, shape: FieldShape): JsonValue | undefined {
  const s = concreteShape(shape, value);
  let out: JsonValue;
  if ((s.kind === "struct" || s.kind === "map") && isJsonObject(value)) {
    const obj: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      const pe = fieldElement(k);
      if (set.hasMember(pe)) continue;
      const below = set.child(pe);
      const child = below ? prune(v, below, s.kind === "struct" ? s.field(k).shape : s.value) : v;
      if (child !== undefined) obj[k] = child;
    }
    out = obj;
  } else if ((s.kind === "list" || s.kind === "set") && Array.isArray(value)) {
    const items: JsonValue[] = [];
    value.forEach((item, i) => {
      const pe = listItemElement(s, item, i);
      if (set.hasMember(pe)) return;
      const below = set.child(pe);
      if (!below || s.kind === "set") {
        items.push(item);
        return;
      }
      const child = prune(item, below.difference(keyFieldSet(s)), s.item);
      if (child !== undefined) items.push(child);
    });
    out = items;
  } else {
    return value;
  }
  return isEmptyContainer(out) && !isEmptyContainer(value) ? undefined : out;
}

/** The key fields of an associative list's items, as members (never pruned from a kept item). */
function keyFieldSet(shape: ListShape): FieldSet {
  const set = new FieldSet();
  for (const k of shape.keys) set.insert([fieldElement(k.name)]);
  return set;
}
