import { deepEqual, isJsonObject } from "kubekit/apimachinery";
import type { JsonValue } from "kubekit";
import { FieldSet, fieldElement } from "./field-set.js";
import type { PathElement } from "./field-set.js";
import { concreteShape, listItemElement, sharedShape } from "./field-shape.js";
import type { FieldShape, ListShape, SetShape } from "./field-shape.js";

/**
 * Field sets derived from values: the fields an object sets (what an applier owns), and the
 * fields a write added, modified or removed (what an updater takes over or gives up).
 */

/**
 * The fields `value` sets, as server-side apply records them for an applied configuration:
 * every leaf (scalars, atomic structs and lists, `null`s); every map entry and every list
 * item as an item of its own (`"."`) besides its fields; never a struct field that only
 * holds other fields, and nothing for empty structs, maps and non-atomic lists.
 */
export function fieldSetOfValue(value: JsonValue, shape: FieldShape): FieldSet {
  const out = new FieldSet();
  collect(value, shape, [], out);
  return out;
}

function collect(value: JsonValue, shape: FieldShape, path: PathElement[], out: FieldSet): void {
  const s = concreteShape(shape, value);
  switch (s.kind) {
    case "leaf":
      out.insert(path);
      return;
    case "struct":
    case "map":
      if (!isJsonObject(value)) return;
      for (const [k, v] of Object.entries(value)) {
        const childPath = [...path, fieldElement(k)];
        if (s.kind === "struct") {
          collect(v, s.field(k).shape, childPath, out);
        } else {
          collect(v, s.value, childPath, out);
          out.insert(childPath);
        }
      }
      return;
    case "list":
    case "set":
      if (!Array.isArray(value)) return;
      value.forEach((item, i) => {
        const childPath = [...path, listItemElement(s, item, i)];
        if (s.kind === "list") collect(item, s.item, childPath, out);
        out.insert(childPath);
      });
      return;
  }
}

/** What a write changed, as field sets. */
export interface FieldDiff {
  /** Paths present after but not before (including containers and items that appeared). */
  readonly added: FieldSet;
  /** Leaves present on both sides with different values. */
  readonly modified: FieldSet;
  /** Paths present before but not after. */
  readonly removed: FieldSet;
}

/**
 * Compares two versions of an object (`before` undefined: a create). Leaves (scalars,
 * atomic values, and containers empty on both sides) are added, removed or modified; a
 * container or list item that appears or disappears is itself added or removed, unless
 * the schema says Go always serializes it (then only its contents count). Items of
 * associative lists and sets are matched by key or value, not by position; repeated keys
 * after the first are ignored.
 */
export function diffFields(
  before: JsonValue | undefined,
  after: JsonValue | undefined,
  shape: FieldShape,
): FieldDiff {
  const diff = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compare(before, after, shape, [], true, diff);
  return diff;
}

function isEmptyContainer(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isJsonObject(value) && Object.keys(value).length === 0;
}

function compare(
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
  shape: FieldShape,
  path: PathElement[],
  alwaysPresent: boolean,
  diff: FieldDiff,
): void {
  if (lhs === undefined && rhs === undefined) return;
  const s = sharedShape(shape, lhs, rhs);
  if (s.kind === "leaf" || (isEmptyContainer(lhs) && isEmptyContainer(rhs))) {
    if (lhs === undefined) diff.added.insert(path);
    else if (rhs === undefined) diff.removed.insert(path);
    else if (!deepEqual(lhs, rhs)) diff.modified.insert(path);
    return;
  }
  switch (s.kind) {
    case "struct":
    case "map": {
      const left = isJsonObject(lhs) ? lhs : {};
      const right = isJsonObject(rhs) ? rhs : {};
      for (const k of unionKeys(Object.keys(left), Object.keys(right))) {
        const slot = s.kind === "struct" ? s.field(k) : { shape: s.value, alwaysPresent: false };
        compare(
          left[k],
          right[k],
          slot.shape,
          [...path, fieldElement(k)],
          slot.alwaysPresent,
          diff,
        );
      }
      break;
    }
    case "list":
    case "set": {
      const left = indexItems(s, lhs);
      const right = indexItems(s, rhs);
      const item = s.kind === "list" ? s.item : { kind: "leaf" as const };
      for (const pe of unionKeys([...left.keys()], [...right.keys()])) {
        compare(left.get(pe), right.get(pe), item, [...path, pe], false, diff);
      }
      break;
    }
  }
  if (!alwaysPresent) {
    if (lhs === undefined) diff.added.insert(path);
    else if (rhs === undefined) diff.removed.insert(path);
  }
}

function unionKeys(left: readonly string[], right: readonly string[]): string[] {
  const seen = new Set(left);
  return [...left, ...right.filter((k) => !seen.has(k))];
}

/**
 * The items of a keyed list or set by path element, in list order; repeated elements after
 * the first are ignored. A non-array value has no items.
 */
export function indexItems(
  shape: ListShape | SetShape,
  value: JsonValue | undefined,
): Map<PathElement, JsonValue> {
  const out = new Map<PathElement, JsonValue>();
  if (!Array.isArray(value)) return out;
  value.forEach((item, i) => {
    const pe = listItemElement(shape, item, i);
    if (!out.has(pe)) out.set(pe, item);
  });
  return out;
}
