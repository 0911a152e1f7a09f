/**
 * The structure server-side apply sees in a custom resource, derived from its CRD version's
 * schema as kube-apiserver derives the structured-merge-diff type of a CRD
 * (`staging/src/k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder` →
 * `k8s.io/apimachinery/pkg/util/managedfields` type converter):
 *
 * - `type: array` with `x-kubernetes-list-type: map` is an associative list keyed by
 *   `x-kubernetes-list-map-keys` (a key field's schema `default` stands for a missing key);
 *   `set` is a set of values; `atomic` or no list type is owned as a whole;
 * - `type: object` with `x-kubernetes-map-type: atomic` is owned as a whole; otherwise its
 *   `properties` make a struct (fields owned separately), its `additionalProperties` a
 *   granular map;
 * - `x-kubernetes-int-or-string` and scalars are leaves; `x-kubernetes-preserve-unknown-fields`
 *   without properties, and fields the schema does not specify, are schemaless (objects
 *   granular, lists atomic);
 * - `metadata` at the root and in `x-kubernetes-embedded-resource` objects is ObjectMeta.
 */
import type { JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import {
  objectMetaShape,
  type FieldShape,
  type FieldSlot,
  type ListKey,
  type StructShape,
} from "../../apply/field-shape.js";
import type { JSONSchemaProps } from "../schema-props.js";

const LEAF: FieldShape = { kind: "leaf" };
const SET: FieldShape = { kind: "set" };
const DYNAMIC: FieldShape = { kind: "dynamic" };
const DYNAMIC_SLOT: FieldSlot = { shape: DYNAMIC, alwaysPresent: false };

function slot(shape: FieldShape): FieldSlot {
  return { shape, alwaysPresent: false };
}

/** A struct whose fields are shaped lazily from `properties` (computed once per field). */
function structOf(
  properties: Readonly<Record<string, JSONSchemaProps>>,
  embedded: boolean,
): StructShape {
  const slots = new Map<string, FieldSlot>();
  return {
    kind: "struct",
    field(name: string): FieldSlot {
      let s = slots.get(name);
      if (!s) {
        const prop = Object.hasOwn(properties, name) ? properties[name] : undefined;
        if (embedded && name === "metadata") s = slot(objectMetaShape());
        else s = prop ? slot(shapeOfSchema(prop)) : DYNAMIC_SLOT;
        slots.set(name, s);
      }
      return s;
    },
  };
}

function listKeys(schema: JSONSchemaProps): ListKey[] {
  const itemProps = schema.items && !Array.isArray(schema.items) ? schema.items.properties : {};
  return (schema["x-kubernetes-list-map-keys"] ?? []).map((name: string) => {
    const fallback: unknown = itemProps?.[name]?.default;
    return fallback === undefined ? { name } : { name, defaultValue: fallback as JsonValue };
  });
}

function arrayShape(schema: JSONSchemaProps): FieldShape {
  switch (schema["x-kubernetes-list-type"]) {
    case "map": {
      const items = schema.items && !Array.isArray(schema.items) ? schema.items : {};
      return { kind: "list", keys: listKeys(schema), item: shapeOfSchema(items) };
    }
    case "set":
      return SET;
    default:
      return LEAF;
  }
}

function objectShape(schema: JSONSchemaProps): FieldShape {
  if (schema["x-kubernetes-map-type"] === "atomic") return LEAF;
  const embedded = schema["x-kubernetes-embedded-resource"] === true;
  if (schema.properties !== undefined || embedded) {
    return structOf(schema.properties ?? {}, embedded);
  }
  const additional = schema.additionalProperties;
  if (isJsonObject(additional as JsonValue)) {
    return { kind: "map", value: shapeOfSchema(additional as JSONSchemaProps) };
  }
  return DYNAMIC;
}

/** The apply shape of a value under `schema` (see the module comment for the rules). */
export function shapeOfSchema(schema: JSONSchemaProps): FieldShape {
  if (schema["x-kubernetes-int-or-string"] === true) return LEAF;
  switch (schema.type) {
    case "array":
      return arrayShape(schema);
    case "object":
      return objectShape(schema);
    case undefined:
      if (schema.properties !== undefined) return objectShape(schema);
      return schema["x-kubernetes-preserve-unknown-fields"] === true ? DYNAMIC : LEAF;
    default:
      return LEAF;
  }
}

/**
 * The apply shape of a whole custom resource under its version's `openAPIV3Schema`
 * (undefined: schemaless): a struct whose `metadata` is ObjectMeta.
 */
export function customResourceApplyShape(schema: JSONSchemaProps | undefined): StructShape {
  return structOf(schema?.properties ?? {}, true);
}
