import type { JsonObject } from "kubekit";
import { SPECIAL_MESSAGES, type FieldInfo } from "kubekit/apimachinery";
import { rootShape, type FieldShape } from "../../apply/field-shape.js";
import { jsonFieldsOf, messageJsonShape } from "../../schema/message-json-view.js";
import {
  gvkExtension,
  refSchema,
  typeMetaProperties,
  type GroupVersionKind,
  type OpenApiFlavor,
} from "./openapi-flavor.js";

/**
 * OpenAPI definitions of the built-in types, generated from the field tables the server
 * already decodes with (kubekit's `kubernetes-api-fields.json`), named and shaped as
 * kube-openapi publishes them (`k8s.io/kube-openapi/pkg/generators/openapi.go`):
 *
 * - a message `k8s.io.api.core.v1.Pod` is the definition `io.k8s.api.core.v1.Pod`;
 * - an object message is `type: object` with its JSON fields as `properties` (Go's inline
 *   embedded structs flattened), `required` for the fields Go always serializes (no
 *   `omitempty`; never `metadata`), and a `$ref` for every field of another object message;
 * - scalars take kube's types and formats (`int32` → `integer`/`int32`, `bytes` →
 *   `string`/`byte`, ...); a map is `type: object` with `additionalProperties`; a list is
 *   `type: array` with `items`;
 * - meta/v1 Time and MicroTime are `string`/`date-time`, IntOrString is `int-or-string`
 *   (v3: `oneOf` integer or string), Quantity a string (v3: `oneOf` string or number),
 *   RawExtension and FieldsV1 free-form objects;
 * - strategic-merge-patch directives become `x-kubernetes-patch-strategy` and
 *   `x-kubernetes-patch-merge-key`; list and map types come from the structure server-side
 *   apply uses (`apply/field-shape.ts`): associative lists are `x-kubernetes-list-type: map`
 *   with their `x-kubernetes-list-map-keys`, sets `set`, other lists `atomic`, and atomic
 *   structs `x-kubernetes-map-type: atomic`;
 * - a kind (and its list, and a subresource's kind) gets TypeMeta's `apiVersion` and `kind`
 *   properties and `x-kubernetes-group-version-kind`.
 *
 * The field tables carry no documentation, so field definitions have no `description`.
 * Definitions are generated once per message and flavor and shared: callers must not mutate
 * them.
 */

/** A kind whose definition a document publishes, with the message that describes it. */
export interface BuiltinKind {
  /** The fully qualified message name, e.g. `k8s.io.api.apps.v1.Deployment`. */
  readonly messageName: string;
  readonly gvk: GroupVersionKind;
}

/** `k8s.io.api.core.v1.Pod` → `io.k8s.api.core.v1.Pod` (kube's names reverse the `k8s.io` domain). */
export function builtinDefinitionName(messageName: string): string {
  return messageName.startsWith("k8s.io.") ? `io.k8s.${messageName.slice(7)}` : messageName;
}

/** A generated definition and the object messages it references. */
interface MessageDefinition {
  readonly schema: JsonObject;
  readonly references: readonly string[];
}

const SCALAR_SCHEMAS: Readonly<Record<string, JsonObject>> = {
  string: { type: "string" },
  bool: { type: "boolean" },
  int32: { type: "integer", format: "int32" },
  uint32: { type: "integer", format: "int32" },
  int64: { type: "integer", format: "int64" },
  uint64: { type: "integer", format: "int64" },
  double: { type: "number", format: "double" },
  float: { type: "number", format: "float" },
  bytes: { type: "string", format: "byte" },
};

/** The definitions of messages whose JSON is not the object their fields describe. */
function specialDefinition(messageName: string, flavor: OpenApiFlavor): JsonObject | undefined {
  switch (messageName) {
    case SPECIAL_MESSAGES.time:
    case SPECIAL_MESSAGES.microTime:
      return { type: "string", format: "date-time" };
    case SPECIAL_MESSAGES.intOrString:
      return flavor === "v2"
        ? { type: "string", format: "int-or-string" }
        : { oneOf: [{ type: "integer" }, { type: "string" }], format: "int-or-string" };
    case SPECIAL_MESSAGES.quantity:
      return flavor === "v2"
        ? { type: "string" }
        : { oneOf: [{ type: "string" }, { type: "number" }] };
    case SPECIAL_MESSAGES.rawExtension:
    case SPECIAL_MESSAGES.fieldsV1:
      return { type: "object" };
    default:
      return undefined;
  }
}

/** Messages reached as struct fields that server-side apply owns as a whole. */
const atomicMessages = new Set<string>();
const cache: Record<OpenApiFlavor, Map<string, MessageDefinition>> = {
  v2: new Map(),
  v3: new Map(),
};

/** The schema of a value of message type `type` (a reference, or inline for string lists). */
function messageValueSchema(type: string, flavor: OpenApiFlavor, refs: string[]): JsonObject {
  if (messageJsonShape(type) === "stringList") return { type: "array", items: { type: "string" } };
  refs.push(type);
  return refSchema(builtinDefinitionName(type), flavor);
}

function scalarSchema(type: string): JsonObject {
  return { ...(SCALAR_SCHEMAS[type] ?? { type: "string" }) };
}

/** The list and map extensions of a field, from server-side apply's view of its structure. */
function structureExtensions(field: FieldInfo, shape: FieldShape): JsonObject {
  if (field.repeated) {
    if (shape.kind === "list") {
      return {
        "x-kubernetes-list-map-keys": shape.keys.map((k) => k.name),
        "x-kubernetes-list-type": "map",
      };
    }
    return { "x-kubernetes-list-type": shape.kind === "set" ? "set" : "atomic" };
  }
  if (field.isMessage && shape.kind === "leaf" && messageJsonShape(field.type) === "object") {
    atomicMessages.add(field.type);
  }
  return {};
}

function patchExtensions(field: FieldInfo): JsonObject {
  const out: JsonObject = {};
  if (field.patchMergeKey !== undefined) out["x-kubernetes-patch-merge-key"] = field.patchMergeKey;
  if (field.patchStrategies.length > 0) {
    out["x-kubernetes-patch-strategy"] = field.patchStrategies.join(",");
  }
  return out;
}

/** The schema of one field (`shape` is how server-side apply sees it). */
function fieldSchema(
  field: FieldInfo,
  shape: FieldShape,
  flavor: OpenApiFlavor,
  refs: string[],
): JsonObject {
  let schema: JsonObject;
  if (field.map) {
    const value = field.map.valueIsMessage
      ? messageValueSchema(field.map.value, flavor, refs)
      : scalarSchema(field.map.value);
    schema = { type: "object", additionalProperties: value };
  } else {
    const item = field.isMessage
      ? messageValueSchema(field.type, flavor, refs)
      : scalarSchema(field.type);
    schema = field.repeated ? { type: "array", items: item } : item;
  }
  return { ...schema, ...structureExtensions(field, shape), ...patchExtensions(field) };
}

/**
 * A field Go always serializes (no `omitempty`) is required, as kube-openapi's generator
 * decides without a `+optional` marker. Object metadata never is: the field tables do not
 * record its `omitempty`.
 */
function isRequired(jsonName: string, field: FieldInfo): boolean {
  return !field.omitempty && jsonName !== "metadata";
}

function generate(messageName: string, flavor: OpenApiFlavor): MessageDefinition {
  const special = specialDefinition(messageName, flavor);
  if (special) return { schema: special, references: [] };
  const fields = jsonFieldsOf(messageName);
  if (!fields) return { schema: { type: "object" }, references: [] };
  const struct = rootShape(messageName);
  const refs: string[] = [];
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const name of [...fields.keys()].sort()) {
    const loc = fields.get(name);
    if (!loc) continue;
    properties[name] = fieldSchema(loc.field, struct.field(name).shape, flavor, refs);
    if (isRequired(name, loc.field)) required.push(name);
  }
  const schema: JsonObject = { type: "object", properties };
  if (required.length > 0) schema["required"] = required;
  return { schema, references: refs };
}

function definitionOf(messageName: string, flavor: OpenApiFlavor): MessageDefinition {
  const cached = cache[flavor].get(messageName);
  if (cached) return cached;
  const made = generate(messageName, flavor);
  cache[flavor].set(messageName, made);
  return made;
}

/**
 * The definitions of `kinds`, of the messages named in `alsoMessages` (fully qualified) and of
 * every message they reference, keyed by definition name and sorted. A message that describes
 * several kinds lists each in its `x-kubernetes-group-version-kind`. Kinds get the TypeMeta
 * properties. The returned schemas may be shared with other documents: serialize them, do not
 * mutate them.
 */
export function builtinDefinitions(
  kinds: readonly BuiltinKind[],
  flavor: OpenApiFlavor,
  alsoMessages: readonly string[] = [],
): Map<string, JsonObject> {
  const gvksOf = new Map<string, GroupVersionKind[]>();
  for (const k of kinds) {
    const list = gvksOf.get(k.messageName) ?? [];
    if (
      !list.some(
        (g) => g.group === k.gvk.group && g.version === k.gvk.version && g.kind === k.gvk.kind,
      )
    ) {
      list.push(k.gvk);
    }
    gvksOf.set(k.messageName, list);
  }
  const seen = new Set<string>();
  const queue = [...gvksOf.keys(), ...alsoMessages];
  const out = new Map<string, JsonObject>();
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (seen.has(next)) continue;
    seen.add(next);
    const def = definitionOf(next, flavor);
    for (const ref of def.references) if (!seen.has(ref)) queue.push(ref);
    out.set(builtinDefinitionName(next), def.schema);
  }
  for (const messageName of seen) {
    const name = builtinDefinitionName(messageName);
    const schema = out.get(name);
    const gvks = gvksOf.get(messageName);
    if (!schema) continue;
    if (gvks) {
      const properties = { ...typeMetaProperties(), ...(schema["properties"] as JsonObject) };
      out.set(name, {
        ...schema,
        properties,
        "x-kubernetes-group-version-kind": gvkExtension(gvks),
      });
    } else if (atomicMessages.has(messageName)) {
      out.set(name, { ...schema, "x-kubernetes-map-type": "atomic" });
    }
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
