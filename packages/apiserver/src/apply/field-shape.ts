import { SPECIAL_MESSAGES, type FieldInfo, isJsonObject } from "kubekit/apimachinery";
import type { JsonValue } from "kubekit";
import { jsonFieldsOf, messageJsonShape } from "../schema/message-json-view.js";
import { indexElement, keyElement, valueElement } from "./field-set.js";
import type { PathElement } from "./field-set.js";

/**
 * How server-side apply sees the structure of an object: which parts are owned as a whole
 * (leaves) and which are owned piece by piece (structs, maps, associative lists, sets).
 *
 * Built-in kinds take their structure from the field tables:
 * - a message field is a struct, except the special messages (Time, IntOrString, Quantity,
 *   RawExtension, FieldsV1, ...) and the messages Kubernetes marks `+structType=atomic`
 *   ({@link ATOMIC_MESSAGES}), which are leaves;
 * - a map field is a granular map (each entry owned separately);
 * - a repeated message field with patch strategy `merge` and a merge key is an associative
 *   list keyed by that field; a few lists have more key fields in real Kubernetes than the
 *   patch merge key, with a default for the extra one ({@link EXTRA_LIST_KEYS}: container
 *   ports are keyed by `containerPort` and `protocol`, defaulting to `"TCP"`);
 * - a repeated primitive field with strategy `merge` (finalizers) is a set;
 * - every other list is atomic (a leaf).
 *
 * Custom resources take theirs from their CRD version's schema
 * (`apiextensions/list-types/schema-apply-shape.ts`: `x-kubernetes-list-type`,
 * `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`). Without a schema (fields the table
 * does not know, preserved unknown fields) objects are granular structs, lists are atomic,
 * and only `metadata` is typed (as ObjectMeta). A value whose JSON type does not fit its
 * shape (a string where a struct is expected) is a leaf.
 */

/** Owned as a whole: a scalar, a special message, an atomic struct or an atomic list. */
export interface LeafShape {
  readonly kind: "leaf";
}

/** An object whose fields are owned separately. */
export interface StructShape {
  readonly kind: "struct";
  /** The shape of one field (unknown fields are {@link DynamicShape}). */
  field(name: string): FieldSlot;
}

/** An object whose entries are owned separately; each entry is also an owned item itself. */
export interface MapShape {
  readonly kind: "map";
  readonly value: FieldShape;
}

/** A list whose items are identified by key fields (`k:{...}` elements). */
export interface ListShape {
  readonly kind: "list";
  readonly keys: readonly ListKey[];
  readonly item: FieldShape;
}

/** A list of primitives whose items are identified by value (`v:...` elements). */
export interface SetShape {
  readonly kind: "set";
}

/** No schema: decided by the value (an object is a granular struct, anything else a leaf). */
export interface DynamicShape {
  readonly kind: "dynamic";
}

/** The shape of a value, before looking at the value itself. */
export type FieldShape = LeafShape | StructShape | MapShape | ListShape | SetShape | DynamicShape;

/** A shape after looking at the value: never dynamic. */
export type ConcreteShape = Exclude<FieldShape, DynamicShape>;

/** A struct field's shape, and whether Go always serializes the field. */
export interface FieldSlot {
  readonly shape: FieldShape;
  /**
   * Whether the field is present in every serialized object of the type, even a zero one
   * (a non-pointer struct field, or a list or map without `omitempty`). Such a container is
   * never "added" by a write, so the writer does not own it as an item (no `"."` entry).
   */
  readonly alwaysPresent: boolean;
}

/** One key field of an associative list, with the value assumed when an item omits it. */
export interface ListKey {
  readonly name: string;
  readonly defaultValue?: JsonValue;
}

const LEAF: LeafShape = { kind: "leaf" };
const SET: SetShape = { kind: "set" };
const DYNAMIC: DynamicShape = { kind: "dynamic" };
const DYNAMIC_SLOT: FieldSlot = { shape: DYNAMIC, alwaysPresent: false };
const SCHEMALESS_STRUCT: StructShape = { kind: "struct", field: () => DYNAMIC_SLOT };

const OBJECT_META = "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/** Messages Kubernetes declares `+structType=atomic`: owned as a whole. */
const ATOMIC_MESSAGES: ReadonlySet<string> = new Set([
  "k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector",
  "k8s.io.api.core.v1.LocalObjectReference",
  "k8s.io.api.core.v1.ObjectReference",
  "k8s.io.api.core.v1.TypedLocalObjectReference",
  "k8s.io.api.core.v1.NodeSelector",
  "k8s.io.api.core.v1.NodeSelectorTerm",
  "k8s.io.api.core.v1.ConfigMapKeySelector",
  "k8s.io.api.core.v1.SecretKeySelector",
  "k8s.io.api.core.v1.ObjectFieldSelector",
  "k8s.io.api.core.v1.ResourceFieldSelector",
  "k8s.io.api.autoscaling.v1.CrossVersionObjectReference",
  "k8s.io.api.autoscaling.v2.CrossVersionObjectReference",
]);

const CONTAINER_PORT_KEYS: readonly ListKey[] = [
  { name: "containerPort" },
  { name: "protocol", defaultValue: "TCP" },
];

/**
 * Associative lists whose key in real Kubernetes (`+listMapKey`) has more fields than the
 * patch merge key, by `<owner message>.<field>`.
 */
const EXTRA_LIST_KEYS: ReadonlyMap<string, readonly ListKey[]> = new Map([
  ["k8s.io.api.core.v1.Container.ports", CONTAINER_PORT_KEYS],
  ["k8s.io.api.core.v1.EphemeralContainerCommon.ports", CONTAINER_PORT_KEYS],
  [
    "k8s.io.api.core.v1.ServiceSpec.ports",
    [{ name: "port" }, { name: "protocol", defaultValue: "TCP" }],
  ],
  [
    "k8s.io.api.core.v1.PodSpec.topologySpreadConstraints",
    [{ name: "topologyKey" }, { name: "whenUnsatisfiable" }],
  ],
]);

const SPECIAL: ReadonlySet<string> = new Set(Object.values(SPECIAL_MESSAGES));

const messageShapes = new Map<string, FieldShape>();

/** The shape of a message: a struct, or a leaf for special and atomic messages. */
function messageShape(messageName: string): FieldShape {
  const cached = messageShapes.get(messageName);
  if (cached) return cached;
  let shape: FieldShape;
  if (SPECIAL.has(messageName) || ATOMIC_MESSAGES.has(messageName)) shape = LEAF;
  else if (messageJsonShape(messageName) !== "object") shape = LEAF;
  else shape = messageStruct(messageName) ?? DYNAMIC;
  messageShapes.set(messageName, shape);
  return shape;
}

function messageStruct(messageName: string): StructShape | undefined {
  const fields = jsonFieldsOf(messageName);
  if (!fields) return undefined;
  const slots = new Map<string, FieldSlot>();
  return {
    kind: "struct",
    field(name: string): FieldSlot {
      let slot = slots.get(name);
      if (!slot) {
        const loc = fields.get(name);
        const last = loc?.inlinePath[loc.inlinePath.length - 1];
        slot = loc ? slotOf(last ? last.type : messageName, loc.field) : DYNAMIC_SLOT;
        slots.set(name, slot);
      }
      return slot;
    },
  };
}

/** The slot of field `field` declared by message `owner`. */
function slotOf(owner: string, field: FieldInfo): FieldSlot {
  if (field.map) {
    const value = field.map.valueIsMessage ? messageShape(field.map.value) : LEAF;
    return { shape: { kind: "map", value }, alwaysPresent: !field.omitempty };
  }
  if (field.repeated) {
    const merge = field.patchStrategies.includes("merge");
    let shape: FieldShape = LEAF;
    if (merge && field.isMessage && field.patchMergeKey !== undefined) {
      const keys = EXTRA_LIST_KEYS.get(`${owner}.${field.jsonName ?? field.name}`) ?? [
        { name: field.patchMergeKey },
      ];
      shape = { kind: "list", keys, item: messageShape(field.type) };
    } else if (merge && !field.isMessage) {
      shape = SET;
    }
    return { shape, alwaysPresent: !field.omitempty };
  }
  if (field.isMessage) return { shape: messageShape(field.type), alwaysPresent: !field.pointer };
  return { shape: LEAF, alwaysPresent: false };
}

/** The shape of ObjectMeta, for roots whose other fields come from elsewhere (a CRD schema). */
export function objectMetaShape(): FieldShape {
  return messageShape(OBJECT_META);
}

const SCHEMALESS_ROOT: StructShape = {
  kind: "struct",
  field: (name) =>
    name === "metadata" ? { shape: messageShape(OBJECT_META), alwaysPresent: false } : DYNAMIC_SLOT,
};

/**
 * The shape of a whole object of the message with this fully qualified name; without a
 * name (or for a name the tables do not know) a schemaless object with typed `metadata`.
 */
export function rootShape(messageName: string | undefined): StructShape {
  const shape = messageName === undefined ? undefined : messageShape(messageName);
  return shape?.kind === "struct" ? shape : SCHEMALESS_ROOT;
}

/**
 * The shape `value` takes under `shape`: dynamic shapes become a schemaless struct for an
 * object and a leaf otherwise; a container shape whose value has the wrong JSON type
 * becomes a leaf. `null` and a missing value (`undefined`) keep container shapes (an empty
 * container).
 */
export function concreteShape(shape: FieldShape, value: JsonValue | undefined): ConcreteShape {
  switch (shape.kind) {
    case "dynamic":
      return isJsonObject(value) ? SCHEMALESS_STRUCT : LEAF;
    case "struct":
    case "map":
      return value === undefined || value === null || isJsonObject(value) ? shape : LEAF;
    case "list":
    case "set":
      return value === undefined || value === null || Array.isArray(value) ? shape : LEAF;
    default:
      return shape;
  }
}

/**
 * The shape two versions of a value share: the concrete shape of the one that exists, or of
 * each when both do, or a leaf when those disagree (the value changed JSON type, so it is
 * compared as a whole).
 */
export function sharedShape(
  shape: FieldShape,
  lhs: JsonValue | undefined,
  rhs: JsonValue | undefined,
): ConcreteShape {
  if (lhs === undefined) return concreteShape(shape, rhs);
  if (rhs === undefined) return concreteShape(shape, lhs);
  const left = concreteShape(shape, lhs);
  const right = concreteShape(shape, rhs);
  return left === right ? left : LEAF;
}

function isScalar(value: JsonValue | undefined): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/**
 * The path element of the item at `index` of a list of this shape: `v:<value>` for a set;
 * `k:{...}` for an associative list, from the item's key fields (a missing key field takes
 * its default); `i:<index>` when the item is not an object or has none of its key fields.
 */
export function listItemElement(
  shape: ListShape | SetShape,
  item: JsonValue,
  index: number,
): PathElement {
  if (shape.kind === "set") return valueElement(item);
  if (!isJsonObject(item) || !shape.keys.some((k) => isScalar(item[k.name]))) {
    return indexElement(index);
  }
  const key: Record<string, JsonValue> = {};
  for (const k of shape.keys) {
    const v = item[k.name] ?? k.defaultValue;
    if (isScalar(v)) key[k.name] = v;
  }
  return keyElement(key);
}
