import { isJsonObject } from "kubekit/apimachinery";
import type { JsonObject, JsonValue } from "kubekit";

/**
 * Sets of field paths, the data structure behind `metadata.managedFields` (the FieldsV1
 * trie of server-side apply).
 *
 * A path is a list of path elements, each spelled as in FieldsV1:
 * - `f:<name>`: a field of a struct, or an entry of a map;
 * - `k:<json object>`: the item of an associative list whose key fields have these values
 *   (key names sorted, compact JSON, e.g. `k:{"containerPort":80,"protocol":"TCP"}`);
 * - `v:<json>`: the item of a set (a list of primitives) with this value, e.g. `v:"foo"`;
 * - `i:<n>`: a list item by index (only used when an item has no key at all).
 *
 * Elements built by {@link keyElement} and {@link valueElement} are canonical (sorted keys,
 * Go's HTML-safe JSON escaping), so two spellings of one element compare equal as strings;
 * {@link FieldSet.fromFieldsV1} canonicalizes what it reads.
 */

/** One path element in its FieldsV1 spelling (`f:name`, `k:{...}`, `v:...`, `i:n`). */
export type PathElement = string;

/** A field path: path elements from the object root down. */
export type FieldPath = readonly PathElement[];

/** JSON as Go's encoding/json writes it: object keys sorted, `<`, `>`, `&`, U+2028/9 escaped. */
function canonicalJson(value: JsonValue): string {
  return JSON.stringify(sortKeys(value)).replace(/[<>&\u2028\u2029]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const k of Object.keys(value).sort(compareStrings)) out[k] = sortKeys(value[k] as JsonValue);
  return out;
}

/** The element naming field (or map entry) `name`. */
export function fieldElement(name: string): PathElement {
  return `f:${name}`;
}

/** The element naming the associative-list item whose key fields have these values. */
export function keyElement(key: Readonly<Record<string, JsonValue>>): PathElement {
  return `k:${canonicalJson(key as JsonObject)}`;
}

/** The element naming the set item with this value. */
export function valueElement(value: JsonValue): PathElement {
  return `v:${canonicalJson(value)}`;
}

/** The element naming a list item by its index. */
export function indexElement(index: number): PathElement {
  return `i:${index}`;
}

/**
 * The canonical spelling of a FieldsV1 key, or `undefined` for keys that are not path
 * elements (unknown prefixes and unparsable JSON are dropped, as the API server does with
 * element types it does not understand).
 */
function canonicalElement(raw: string): PathElement | undefined {
  const kind = raw.slice(0, 2);
  const rest = raw.slice(2);
  if (kind === "f:") return raw;
  if (kind === "i:") return /^\d+$/.test(rest) ? indexElement(Number(rest)) : undefined;
  if (kind !== "k:" && kind !== "v:") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(rest);
  } catch {
    return undefined;
  }
  if (kind === "v:") return valueElement(parsed as JsonValue);
  return isJsonObject(parsed) ? keyElement(parsed) : undefined;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function typeRank(value: JsonValue): number {
  if (typeof value === "number") return 0;
  if (typeof value === "string") return 1;
  if (typeof value === "boolean") return 2;
  if (Array.isArray(value)) return 3;
  return value === null ? 5 : 4;
}

/** A total order on JSON values: numbers < strings < booleans < lists < maps < null. */
function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return compareStrings(a, b);
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) return compareSequences(a, b, compareValues);
  if (isJsonObject(a) && isJsonObject(b)) return compareFieldLists(a, b);
  return 0;
}

function compareSequences<T>(
  a: readonly T[],
  b: readonly T[],
  cmp: (x: T, y: T) => number,
): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const c = cmp(a[i] as T, b[i] as T);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Objects compared as lists of (name, value) pairs in name order. */
function compareFieldLists(a: JsonObject, b: JsonObject): number {
  const pairs = (o: JsonObject): [string, JsonValue][] =>
    Object.keys(o)
      .sort(compareStrings)
      .map((k) => [k, o[k] as JsonValue]);
  return compareSequences(pairs(a), pairs(b), ([ka, va], [kb, vb]) => {
    return compareStrings(ka, kb) || compareValues(va, vb);
  });
}

const ELEMENT_KIND_RANK: Readonly<Record<string, number>> = { "f:": 0, "k:": 1, "v:": 2, "i:": 3 };

/**
 * The order of path elements in serialized FieldsV1: fields (by name), then keys, then
 * values, then indexes, like structured-merge-diff.
 */
export function compareElements(a: PathElement, b: PathElement): number {
  const ka = a.slice(0, 2);
  const kb = b.slice(0, 2);
  if (ka !== kb) return (ELEMENT_KIND_RANK[ka] ?? 4) - (ELEMENT_KIND_RANK[kb] ?? 4);
  const ra = a.slice(2);
  const rb = b.slice(2);
  if (ka === "f:") return compareStrings(ra, rb);
  if (ka === "i:") return Number(ra) - Number(rb);
  return compareValues(JSON.parse(ra) as JsonValue, JSON.parse(rb) as JsonValue);
}

/** A value as structured-merge-diff prints it in a path: strings quoted, others bare. */
function printValue(value: JsonValue): string {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(printValue).join(",")}]`;
  if (isJsonObject(value)) {
    return Object.keys(value)
      .sort(compareStrings)
      .map((k) => `${k}=${printValue(value[k] as JsonValue)}`)
      .join("");
  }
  return String(value);
}

/**
 * A path as the API server prints it in conflict messages: `.spec.replicas`,
 * `.spec.template.spec.containers[name="nginx"].image`, `.metadata.finalizers[="x"]`.
 */
export function formatPath(path: FieldPath): string {
  return path
    .map((pe) => {
      const rest = pe.slice(2);
      switch (pe.slice(0, 2)) {
        case "f:":
          return `.${rest}`;
        case "k:": {
          const key = JSON.parse(rest) as JsonObject;
          const parts = Object.keys(key)
            .sort(compareStrings)
            .map((k) => `${k}=${printValue(key[k] as JsonValue)}`);
          return `[${parts.join(",")}]`;
        }
        case "v:":
          return `[=${printValue(JSON.parse(rest) as JsonValue)}]`;
        default:
          return `[${rest}]`;
      }
    })
    .join("");
}

/**
 * A set of field paths. A path is in the set when it is a *member*; a node of the trie may
 * also just lead to members further down. Sets are mutable through {@link FieldSet.insert}
 * only; the set operations return new sets and never share structure with their inputs.
 */
export class FieldSet {
  readonly #members = new Set<PathElement>();
  readonly #children = new Map<PathElement, FieldSet>();

  /**
   * Reads a FieldsV1 trie (`{"f:spec":{"f:replicas":{}},"k:{...}":{".":{},...}}`): a key
   * whose value is `{}` or contains `"."` is a member. Keys are canonicalized; keys that
   * are not path elements are ignored; a non-object input yields an empty set.
   */
  static fromFieldsV1(fields: JsonValue | undefined): FieldSet {
    const set = new FieldSet();
    if (isJsonObject(fields)) set.#read(fields);
    return set;
  }

  #read(node: JsonObject): void {
    for (const [raw, value] of Object.entries(node)) {
      if (raw === ".") continue;
      const pe = canonicalElement(raw);
      if (pe === undefined) continue;
      const sub = isJsonObject(value) ? value : {};
      const child = new FieldSet();
      child.#read(sub);
      if (child.isEmpty() || Object.prototype.hasOwnProperty.call(sub, ".")) this.#members.add(pe);
      if (!child.isEmpty()) this.#childFor(pe).#addAll(child);
    }
  }

  #childFor(pe: PathElement): FieldSet {
    let child = this.#children.get(pe);
    if (!child) {
      child = new FieldSet();
      this.#children.set(pe, child);
    }
    return child;
  }

  /** Writes the set as a FieldsV1 trie, elements in structured-merge-diff order, `"."` last. */
  toFieldsV1(): JsonObject {
    const out: JsonObject = {};
    const elements = new Set([...this.#members, ...this.#children.keys()]);
    for (const pe of [...elements].sort(compareElements)) {
      const child = this.#children.get(pe);
      const node = child ? child.toFieldsV1() : {};
      if (child && this.#members.has(pe)) node["."] = {};
      out[pe] = node;
    }
    return out;
  }

  /** Adds a path (the empty path is ignored: the root is never a member). */
  insert(path: FieldPath): void {
    const [first, ...rest] = path;
    if (first === undefined) return;
    if (rest.length === 0) this.#members.add(first);
    else this.#childFor(first).insert(rest);
  }

  /** Whether `pe` (one element below this node) is a member. */
  hasMember(pe: PathElement): boolean {
    return this.#members.has(pe);
  }

  /** The subset below element `pe`, or `undefined` when nothing lies below it. */
  child(pe: PathElement): FieldSet | undefined {
    return this.#children.get(pe);
  }

  /** Whether the path is a member. */
  has(path: FieldPath): boolean {
    const last = path[path.length - 1];
    if (last === undefined) return false;
    const parent = this.#at(path.slice(0, -1));
    return parent !== undefined && parent.#members.has(last);
  }

  /** Whether the path or any path below it is a member. */
  hasAtOrBelow(path: FieldPath): boolean {
    const last = path[path.length - 1];
    if (last === undefined) return !this.isEmpty();
    const parent = this.#at(path.slice(0, -1));
    return parent !== undefined && (parent.#members.has(last) || parent.#children.has(last));
  }

  /** Whether the path or one of its ancestors is a member (an owner of a whole value covers its parts). */
  covers(path: FieldPath): boolean {
    const [first, ...rest] = path;
    if (first === undefined) return false;
    return this.#members.has(first) || (this.#children.get(first)?.covers(rest) ?? false);
  }

  #at(path: FieldPath): FieldSet | undefined {
    const [first, ...rest] = path;
    if (first === undefined) return this;
    const child = this.#children.get(first);
    return child === undefined ? undefined : child.#at(rest);
  }

  /** Whether the set has no members. */
  isEmpty(): boolean {
    return this.#members.size === 0 && this.#children.size === 0;
  }

  /** Every member path, in serialization order (parents before their children). */
  paths(): PathElement[][] {
    const out: PathElement[][] = [];
    const elements = new Set([...this.#members, ...this.#children.keys()]);
    for (const pe of [...elements].sort(compareElements)) {
      if (this.#members.has(pe)) out.push([pe]);
      for (const sub of this.#children.get(pe)?.paths() ?? []) out.push([pe, ...sub]);
    }
    return out;
  }

  /** Paths in either set. */
  union(other: FieldSet): FieldSet {
    const out = this.#copy();
    out.#addAll(other);
    return out;
  }

  /** Paths in this set but not in `other` (members of `other` do not remove anything below them). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const pe of this.#members) if (!other.#members.has(pe)) out.#members.add(pe);
    for (const [pe, child] of this.#children) {
      const against = other.#children.get(pe);
      const rest = against ? child.difference(against) : child.#copy();
      if (!rest.isEmpty()) out.#children.set(pe, rest);
    }
    return out;
  }

  /** Paths in both sets. */
  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const pe of this.#members) if (other.#members.has(pe)) out.#members.add(pe);
    for (const [pe, child] of this.#children) {
      const against = other.#children.get(pe);
      if (!against) continue;
      const both = child.intersection(against);
      if (!both.isEmpty()) out.#children.set(pe, both);
    }
    return out;
  }

  /** Whether both sets have exactly the same members. */
  equals(other: FieldSet): boolean {
    if (this.#members.size !== other.#members.size) return false;
    if (this.#children.size !== other.#children.size) return false;
    for (const pe of this.#members) if (!other.#members.has(pe)) return false;
    for (const [pe, child] of this.#children) {
      const against = other.#children.get(pe);
      if (!against || !child.equals(against)) return false;
    }
    return true;
  }

  #copy(): FieldSet {
    const out = new FieldSet();
    out.#addAll(this);
    return out;
  }

  #addAll(other: FieldSet): void {
    for (const pe of other.#members) this.#members.add(pe);
    for (const [pe, child] of other.#children) this.#childFor(pe).#addAll(child);
  }
}
