import { SPECIAL_MESSAGES, messageInfo } from "./field-table.js";
import type { FieldInfo, MessageInfo } from "./field-table.js";
import { deepEqual, isJsonObject, ownValue, setOwnValue } from "./json.js";
import type { JsonObject, JsonValue } from "./json.js";

/**
 * Kubernetes strategic merge patch (`application/strategic-merge-patch+json`) for the built-in
 * types, driven by the `patchStrategy`/`patchMergeKey` tags of the field tables (field-table.ts).
 * It follows the server side of k8s.io/apimachinery/pkg/util/strategicpatch (StrategicMergeMapPatch):
 *
 * - Objects merge recursively and a `null` member deletes the key. A field with strategy `replace`
 *   (e.g. PodDisruptionBudget `spec.selector`) is replaced whole.
 * - Lists whose field has strategy `merge` are merged: lists of objects element by element on the
 *   merge key (`containers` by `name`, container `ports` by `containerPort`, ...), lists of
 *   primitives (e.g. `metadata.finalizers`) as a set union. Every other list is replaced whole.
 * - Directives: `$patch: replace|delete` in an object or in a merged list's element,
 *   `$retainKeys`, `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>`.
 * - Subtrees without a schema (no message name, unknown fields, and the special messages Time,
 *   MicroTime, IntOrString, Quantity, RawExtension, FieldsV1, Unknown) behave like JSON merge
 *   patch: objects merge, lists are replaced. Map-level directives still apply there.
 *
 * Element order of a merged list (apimachinery's rule): the elements named in the patch take the
 * patch's relative order; the other ("server-only") elements keep their relative order from the
 * original; the two sequences are interleaved by walking both and emitting a server-only element
 * first only when both elements exist in the original and the server-only one came earlier there.
 * A new element therefore lands before the server-only elements that follow the previous patch
 * element, e.g. adding `c` to `[a, b]` with the patch `[c]` gives `[c, a, b]`. With
 * `$setElementOrder/<list>` the same rule applies with the directive's list in place of the patch
 * list, so kubectl's client-side apply (which always sends the full order) gets exactly its order
 * for the elements it names, and elements it does not name are interleaved as above.
 *
 * Deliberate differences from apimachinery, all in corner cases:
 * - A value with no counterpart in the original is still processed, so directive keys and `null`
 *   members never leak into the result (apimachinery copies such values verbatim). Likewise the
 *   elements of a list replaced whole are processed on their own: one carrying `$patch: delete`
 *   is dropped.
 * - `$patch: delete` in an object removes the key (apimachinery leaves `{}`); at the top level the
 *   result is `{}`.
 * - `$deleteFromPrimitiveList/<list>` runs after the other members of the same object (apimachinery
 *   follows Go's random map order); it is a no-op when the list is absent and an error on a list
 *   without the merge strategy (apimachinery would replace the list with the deletion list).
 * - `$setElementOrder/<list>` is ignored on a list without the merge strategy and on a list the
 *   same patch deletes with `null` (apimachinery fails the latter).
 * - Elements of the original list that lack the merge key are kept and never matched (apimachinery
 *   fails the patch); unknown fields are merged schema-less (apimachinery fails when both sides are
 *   objects or lists).
 */

/**
 * A strategic merge patch that is invalid. `kind: "malformed"` marks the errors kube-apiserver
 * answers with 400 Bad Request (a badly formed `$retainKeys`, `$setElementOrder/…` or
 * `$deleteFromPrimitiveList/…` directive, a patch that is not an object); `kind: "invalid"` the
 * others, answered with 422 (a missing merge key, an unknown `$patch` value, a patch that does not
 * match its `$retainKeys` or `$setElementOrder` list, lists of lists, mixed element types).
 *
 * `detail` is apimachinery's wording where it has one; `message` prefixes it with `path`.
 */
export class StrategicMergePatchError extends Error {
  override readonly name = "StrategicMergePatchError";
  /** `"malformed"`: 400 Bad Request. `"invalid"`: 422 Unprocessable Entity. */
  readonly kind: "malformed" | "invalid";
  /** Dotted location in the patch, e.g. `spec.template.spec.containers[name=web]`; `""` at the top. */
  readonly path: string;
  /** What went wrong, without the location. */
  readonly detail: string;

  constructor(kind: "malformed" | "invalid", path: string, detail: string) {
    super(path === "" ? detail : `${path}: ${detail}`);
    this.kind = kind;
    this.path = path;
    this.detail = detail;
  }
}

/**
 * Apply a strategic merge patch to `original` and return the result.
 *
 * `messageName` is the fully qualified message of the top-level object (e.g.
 * `k8s.io.api.apps.v1.Deployment`, see `messageNameForKind`); `undefined` means no schema, which
 * behaves like JSON merge patch (objects merge, lists are replaced) with the object directives
 * still honoured. See the module documentation for the exact semantics.
 *
 * Neither input is mutated. The result is a new object along every path the patch touches;
 * subtrees of `original` the patch does not touch are shared with it. Nothing is shared with
 * `patch`.
 *
 * @throws {StrategicMergePatchError} for an invalid patch.
 * @throws {Error} when `messageName` is not in the field tables (a programming error).
 */
export function applyStrategicMergePatch(
  original: JsonObject,
  patch: JsonObject,
  messageName: string | undefined,
): JsonObject {
  let schema: Schema = OPAQUE;
  if (messageName !== undefined) {
    if (!messageInfo(messageName)) {
      throw new Error(`strategic merge patch: unknown message ${messageName}`);
    }
    schema = messageSchema(messageName);
  }
  if (!isJsonObject(patch)) throw malformed("", "invalid JSON document");
  return mergeObject(original, patch, schema, "") ?? {};
}

const PATCH = "$patch";
const RETAIN_KEYS = "$retainKeys";
const SET_ELEMENT_ORDER = "$setElementOrder";
const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";

/** What is known about the values at some place in the document. */
type Schema =
  | { readonly kind: "message"; readonly info: MessageInfo }
  /** A protobuf map (labels, resource lists, ...): every value has the same schema. */
  | { readonly kind: "map"; readonly values: Schema }
  | { readonly kind: "opaque" };

/** How to patch the value of one field. */
interface FieldMeta {
  /** The value's schema; for a list, each element's. */
  readonly schema: Schema;
  /** A list with strategy `merge`. */
  readonly mergeList: boolean;
  /** An object with strategy `replace`. */
  readonly replaceObject: boolean;
  readonly mergeKey: string | undefined;
}

const OPAQUE: Schema = { kind: "opaque" };
const OPAQUE_FIELD: FieldMeta = {
  schema: OPAQUE,
  mergeList: false,
  replaceObject: false,
  mergeKey: undefined,
};
const OPAQUE_MESSAGES: ReadonlySet<string> = new Set(Object.values(SPECIAL_MESSAGES));
/** How deep embedded (Go `json:",inline"`) structs are searched for a field. */
const MAX_EMBEDDING_DEPTH = 3;

const fieldMetaCache = new WeakMap<MessageInfo, Map<string, FieldMeta>>();

function messageSchema(name: string): Schema {
  if (OPAQUE_MESSAGES.has(name)) return OPAQUE;
  const info = messageInfo(name);
  return info ? { kind: "message", info } : OPAQUE;
}

function fieldMeta(schema: Schema, key: string): FieldMeta {
  switch (schema.kind) {
    case "opaque":
      return OPAQUE_FIELD;
    case "map":
      return { ...OPAQUE_FIELD, schema: schema.values };
    case "message": {
      let cache = fieldMetaCache.get(schema.info);
      if (!cache) {
        cache = new Map();
        fieldMetaCache.set(schema.info, cache);
      }
      const cached = cache.get(key);
      if (cached) return cached;
      const field = findField(schema.info, key, 0);
      if (!field) return OPAQUE_FIELD; // not cached: unknown keys come from clients, unbounded
      const meta = metaOf(field);
      cache.set(key, meta);
      return meta;
    }
  }
}

function metaOf(field: FieldInfo): FieldMeta {
  let schema: Schema = OPAQUE;
  if (field.map) {
    if (field.map.valueIsMessage) schema = { kind: "map", values: messageSchema(field.map.value) };
  } else if (field.isMessage) {
    schema = messageSchema(field.type);
  }
  return {
    schema,
    mergeList: field.patchStrategies.includes("merge"),
    replaceObject: field.patchStrategies.includes("replace"),
    mergeKey: field.patchMergeKey,
  };
}

/**
 * The field with this JSON name, looking into embedded structs when the message has none. The
 * tables do not mark Go's inlined structs (Volume's VolumeSource, EphemeralContainer's
 * EphemeralContainerCommon, ...); they show as a singular message field named after its type.
 */
function findField(info: MessageInfo, key: string, depth: number): FieldInfo | undefined {
  const direct = info.byJsonName.get(key);
  if (direct || depth >= MAX_EMBEDDING_DEPTH) return direct;
  for (const field of info.fields) {
    if (!isEmbeddingCandidate(field)) continue;
    const inner = messageSchema(field.type);
    if (inner.kind !== "message") continue;
    const found = findField(inner.info, key, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function isEmbeddingCandidate(field: FieldInfo): boolean {
  if (!field.isMessage || field.repeated || field.map || field.jsonName === undefined) return false;
  const simpleName = field.type.slice(field.type.lastIndexOf(".") + 1);
  return field.jsonName === simpleName.charAt(0).toLowerCase() + simpleName.slice(1);
}

/** Patch an object; `undefined` means the object is deleted (`$patch: delete`). */
function mergeObject(
  original: JsonObject | undefined,
  patch: JsonObject,
  schema: Schema,
  path: string,
): JsonObject | undefined {
  if (!Object.hasOwn(patch, PATCH)) return mergeMembers(original, patch, schema, path);
  const directive = patch[PATCH];
  if (directive === "delete") return undefined;
  if (directive === "replace") {
    const rest = { ...patch };
    delete rest[PATCH];
    return mergeMembers(undefined, rest, schema, path);
  }
  throw invalid(
    path,
    `unknown patch type: ${showDirective(directive)} in map: ${JSON.stringify(patch)}`,
  );
}

/** Patch an object whose patch carries no `$patch` directive. */
function mergeMembers(
  original: JsonObject | undefined,
  patch: JsonObject,
  schema: Schema,
  path: string,
): JsonObject {
  const result: JsonObject = original ? { ...original } : {};
  applyRetainKeys(result, patch, path);
  const ordered = applySetElementOrders(result, patch, schema, path);
  const deletions: [string, JsonValue][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === PATCH || key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER)) continue;
    if (ordered.has(key)) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      deletions.push([key, value]);
      continue;
    }
    if (value === null) {
      delete result[key];
      continue;
    }
    const merged = mergeValue(
      ownValue(result, key),
      value,
      fieldMeta(schema, key),
      join(path, key),
    );
    if (merged === undefined) delete result[key];
    else setOwnValue(result, key, merged);
  }
  for (const [key, value] of deletions) deleteFromPrimitiveList(result, key, value, schema, path);
  return result;
}

/** Patch one member's value (`patch` is not `null`); `undefined` means the member is deleted. */
function mergeValue(
  current: JsonValue | undefined,
  patch: JsonValue,
  meta: FieldMeta,
  path: string,
): JsonValue | undefined {
  if (isJsonObject(patch)) {
    const base = isJsonObject(current) && !meta.replaceObject ? current : undefined;
    return mergeObject(base, patch, meta.schema, path);
  }
  if (Array.isArray(patch)) {
    if (meta.mergeList) return mergeList(Array.isArray(current) ? current : [], patch, meta, path);
    return replaceList(patch, meta.schema, path);
  }
  return patch;
}

/** A list replaced whole: its elements, with their own directives applied to nothing. */
function replaceList(list: readonly JsonValue[], schema: Schema, path: string): JsonValue[] {
  return list.flatMap((element): JsonValue[] => {
    if (Array.isArray(element)) return [replaceList(element, OPAQUE, path)];
    if (!isJsonObject(element)) return [element];
    const materialized = mergeObject(undefined, element, schema, path);
    return materialized === undefined ? [] : [materialized];
  });
}

/** Merge a list whose field has the `merge` strategy. */
function mergeList(
  original: readonly JsonValue[],
  patch: readonly JsonValue[],
  meta: FieldMeta,
  path: string,
): JsonValue[] {
  const kind = elementKind(original, patch, path);
  if (kind === "none") return [];
  if (kind === "scalar") {
    const merged: JsonValue[] = [];
    for (const value of [...original, ...patch]) {
      if (!merged.some((other) => deepEqual(other, value))) merged.push(value);
    }
    return orderMerged(merged, patch, original, undefined);
  }
  const mergeKey = meta.mergeKey;
  if (mergeKey === undefined) throw invalid(path, "cannot merge lists without merge key");
  const elements = patch as readonly JsonObject[];
  let current = original as readonly JsonObject[];
  const regular: JsonObject[] = [];
  let replace = false;
  for (const element of elements) {
    if (!Object.hasOwn(element, PATCH)) {
      regular.push(element);
      continue;
    }
    const directive = element[PATCH];
    if (directive === "delete") {
      const id = mergeKeyValue(element, mergeKey, path);
      current = current.filter((other) => !hasIdentity(other, id, mergeKey));
    } else if (directive === "replace") {
      replace = true;
    } else if (directive === "merge") {
      throw invalid(path, "merging lists cannot yet be specified in the patch");
    } else {
      throw invalid(
        path,
        `unknown patch type: ${showDirective(directive)} in map: ${JSON.stringify(element)}`,
      );
    }
  }
  if (replace) {
    return regular.map((element) =>
      mergeMembers(undefined, element, meta.schema, elementPath(path, element, mergeKey)),
    );
  }
  const merged: JsonObject[] = [...current];
  for (const element of regular) {
    const id = mergeKeyValue(element, mergeKey, path);
    const at = merged.findIndex((other) => hasIdentity(other, id, mergeKey));
    const where = elementPath(path, element, mergeKey);
    if (at >= 0) merged[at] = mergeMembers(merged[at], element, meta.schema, where);
    else merged.push(mergeMembers(undefined, element, meta.schema, where));
  }
  return orderMerged(merged, regular, current, mergeKey);
}

/** Whether the elements of both lists are objects, scalars, or absent; anything else fails. */
function elementKind(
  original: readonly JsonValue[],
  patch: readonly JsonValue[],
  path: string,
): "object" | "scalar" | "none" {
  let kind: "object" | "scalar" | "none" = "none";
  for (const element of [...original, ...patch]) {
    if (Array.isArray(element)) throw invalid(path, "lists of lists are not supported");
    const current = isJsonObject(element) ? "object" : "scalar";
    if (kind !== "none" && kind !== current) {
      throw invalid(path, "list element types are not identical");
    }
    kind = current;
  }
  return kind;
}

/**
 * Order a merged list: elements present in `patchOrder` in that order, the others in their
 * original order, interleaved by their positions in `serverOrder` (see the module documentation).
 */
function orderMerged(
  merged: readonly JsonValue[],
  patchOrder: readonly JsonValue[],
  serverOrder: readonly JsonValue[],
  mergeKey: string | undefined,
): JsonValue[] {
  const fromPatch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const element of merged) {
    (indexOf(patchOrder, element, mergeKey) >= 0 ? fromPatch : serverOnly).push(element);
  }
  const patchItems = sortByPosition(fromPatch, patchOrder, mergeKey);
  const result: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length && j < patchItems.length) {
    const left = indexOf(serverOrder, serverOnly[i] as JsonValue, mergeKey);
    const right = indexOf(serverOrder, patchItems[j] as JsonValue, mergeKey);
    if (left >= 0 && right >= 0 && left < right) result.push(serverOnly[i++] as JsonValue);
    else result.push(patchItems[j++] as JsonValue);
  }
  return [...result, ...serverOnly.slice(i), ...patchItems.slice(j)];
}

function sortByPosition(
  items: readonly JsonValue[],
  order: readonly JsonValue[],
  mergeKey: string | undefined,
): JsonValue[] {
  return items
    .map((item) => ({ item, position: indexOf(order, item, mergeKey) }))
    .sort((a, b) => a.position - b.position)
    .map(({ item }) => item);
}

/** Process the `$setElementOrder/<list>` directives; returns the list keys fully handled here. */
function applySetElementOrders(
  result: JsonObject,
  patch: JsonObject,
  schema: Schema,
  path: string,
): Set<string> {
  const handled = new Set<string>();
  for (const [directiveKey, order] of Object.entries(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) continue;
    const key = directiveTarget(directiveKey, SET_ELEMENT_ORDER, path);
    if (!Array.isArray(order))
      throw malformed(path, "invalid patch format of setElementOrder list");
    const meta = fieldMeta(schema, key);
    // Ordering a list the same patch deletes (or one that is not merged) has no meaning.
    if (!meta.mergeList || ownValue(patch, key) === null) continue;
    const listPath = join(path, key);
    const original = listMember(result, key, listPath);
    const patchList = listMember(patch, key, listPath);
    if (original === undefined && patchList === undefined) continue;
    if (patchList) checkOrderConsistency(patchList, order, meta.mergeKey, listPath);
    const merged = patchList
      ? mergeList(original ?? [], patchList, meta, listPath)
      : (original ?? []);
    setOwnValue(result, key, orderMerged(merged, order, original ?? [], meta.mergeKey));
    handled.add(key);
  }
  return handled;
}

/** The list at `key`, `undefined` when absent or `null`; fails on any other non-list value. */
function listMember(object: JsonObject, key: string, path: string): JsonValue[] | undefined {
  const value = ownValue(object, key);
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value))
    throw invalid(path, `expected a list, but received ${typeName(value)}`);
  return value;
}

/**
 * The patch list's elements (except those carrying `$patch`) must appear in the
 * `$setElementOrder` list, in the same relative order.
 */
function checkOrderConsistency(
  patchList: readonly JsonValue[],
  order: readonly JsonValue[],
  mergeKey: string | undefined,
  path: string,
): void {
  const items = patchList.filter((item) => !(isJsonObject(item) && Object.hasOwn(item, PATCH)));
  let matched = 0;
  for (const entry of order) {
    const item = items[matched];
    if (item === undefined) break;
    const same =
      mergeKey === undefined
        ? deepEqual(item, entry)
        : deepEqual(mergeKeyValue(item, mergeKey, path), mergeKeyValue(entry, mergeKey, path));
    if (same) matched++;
  }
  if (matched < items.length) {
    throw invalid(
      path,
      `The order in patch list: ${JSON.stringify(patchList)} doesn't match ` +
        `${SET_ELEMENT_ORDER} list: ${JSON.stringify(order)}`,
    );
  }
}

/** Apply `$retainKeys`: clear the original's keys not listed, after checking the patch's keys. */
function applyRetainKeys(result: JsonObject, patch: JsonObject, path: string): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw malformed(path, "invalid patch format of retainKeys");
  const retained = new Set(list.filter((key): key is string => typeof key === "string"));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key === RETAIN_KEYS) continue;
    if (key.startsWith(SET_ELEMENT_ORDER) || key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) continue;
    if (!retained.has(key)) throw invalid(path, "patch content doesn't match retainKeys list");
  }
  for (const key of Object.keys(result)) {
    if (!retained.has(key)) delete result[key];
  }
}

/** Apply one `$deleteFromPrimitiveList/<list>` directive. */
function deleteFromPrimitiveList(
  result: JsonObject,
  directiveKey: string,
  values: JsonValue,
  schema: Schema,
  path: string,
): void {
  const key = directiveTarget(directiveKey, DELETE_FROM_PRIMITIVE_LIST, path);
  if (!Array.isArray(values)) throw malformed(path, "invalid patch format of primitive list");
  const listPath = join(path, key);
  if (!fieldMeta(schema, key).mergeList) {
    throw invalid(listPath, `${DELETE_FROM_PRIMITIVE_LIST} applies only to merged lists`);
  }
  const current = listMember(result, key, listPath);
  if (current === undefined) return;
  setOwnValue(
    result,
    key,
    current.filter((element) => !values.some((value) => deepEqual(value, element))),
  );
}

/** The list key named by a `<prefix>/<list>` directive key. */
function directiveTarget(directiveKey: string, prefix: string, path: string): string {
  if (!directiveKey.startsWith(`${prefix}/`)) {
    const what = prefix === SET_ELEMENT_ORDER ? "setElementOrder list" : "primitive list";
    throw malformed(path, `invalid patch format of ${what}`);
  }
  return directiveKey.slice(prefix.length + 1);
}

/** The merge key's value of a patch element, which must have one. */
function mergeKeyValue(element: JsonValue, mergeKey: string, path: string): JsonValue {
  if (!isJsonObject(element)) {
    throw invalid(path, `expected a map, but received ${typeName(element)}`);
  }
  const value = ownValue(element, mergeKey);
  if (value === undefined) {
    throw invalid(
      path,
      `map: ${JSON.stringify(element)} does not contain declared merge key: ${mergeKey}`,
    );
  }
  return value;
}

/** The identity of a list element: its merge key's value, or itself for primitives. */
function identityOf(element: JsonValue, mergeKey: string | undefined): JsonValue | undefined {
  if (mergeKey === undefined) return element;
  return isJsonObject(element) ? ownValue(element, mergeKey) : undefined;
}

function hasIdentity(element: JsonValue, id: JsonValue, mergeKey: string | undefined): boolean {
  const own = identityOf(element, mergeKey);
  return own !== undefined && deepEqual(own, id);
}

/** Position of the element with the same identity in `list`, or -1. */
function indexOf(
  list: readonly JsonValue[],
  element: JsonValue,
  mergeKey: string | undefined,
): number {
  const id = identityOf(element, mergeKey);
  if (id === undefined) return -1;
  return list.findIndex((other) => hasIdentity(other, id, mergeKey));
}

function elementPath(path: string, element: JsonObject, mergeKey: string): string {
  const id = ownValue(element, mergeKey);
  return `${path}[${mergeKey}=${typeof id === "string" ? id : JSON.stringify(id)}]`;
}

function showDirective(directive: JsonValue | undefined): string {
  return typeof directive === "string" ? directive : JSON.stringify(directive);
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function typeName(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return isJsonObject(value) ? "a map" : `a ${typeof value}`;
}

function malformed(path: string, detail: string): StrategicMergePatchError {
  return new StrategicMergePatchError("malformed", path, detail);
}

function invalid(path: string, detail: string): StrategicMergePatchError {
  return new StrategicMergePatchError("invalid", path, detail);
}
