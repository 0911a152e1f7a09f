/**
 * The uniqueness invariants of `x-kubernetes-list-type: map` and `set` lists in a custom
 * resource, as kube-apiserver checks them before the CEL rules
 * (`staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype/validation.go`):
 * a set may not repeat a value, a map list may not repeat a key (the key fields an item has;
 * an item without them has the empty key), and a map list's items must be objects.
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { fieldDuplicate, fieldInvalid, isJsonObject } from "kubekit/apimachinery";
import type { JSONSchemaProps } from "../schema-props.js";
import { formatGoSyntax } from "./go-syntax.js";

/**
 * `field: Duplicate value: <value>`: a scalar as field errors print it (`"a"`, `1`), a key or
 * compound value as Go's `%#v` prints the unstructured value
 * (`map[string]interface {}{"name":"a"}`).
 */
function duplicate(field: string, value: JsonValue): FieldError {
  if (value !== null && typeof value !== "object") return fieldDuplicate(field, value);
  return { type: "FieldValueDuplicate", field, detail: formatGoSyntax(value) };
}

function child(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

/** The indices of the first repetition of each value (kube's `validateListSet`). */
function repeatedIndices(values: readonly JsonValue[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  values.forEach((v, i) => {
    const key = `${typeof v}:${JSON.stringify(v)}`;
    const times = seen.get(key) ?? 0;
    seen.set(key, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

function mapListKeys(schema: JSONSchemaProps, items: readonly JsonValue[]): JsonObject[] {
  const keyFields = schema["x-kubernetes-list-map-keys"] ?? [];
  return items.map((item) => {
    const key: JsonObject = {};
    if (!isJsonObject(item)) return key;
    for (const k of keyFields) if (Object.hasOwn(item, k)) key[k] = item[k] as JsonValue;
    return key;
  });
}

function validateArray(path: string, schema: JSONSchemaProps, value: JsonValue[]): FieldError[] {
  const errors: FieldError[] = [];
  const listType = schema["x-kubernetes-list-type"];
  if (listType === "set") {
    for (const i of repeatedIndices(value)) errors.push(duplicate(`${path}[${i}]`, value[i]!));
  } else if (listType === "map") {
    const bad = value.findIndex((x) => x !== null && !isJsonObject(x));
    if (bad >= 0) {
      return [
        fieldInvalid(
          `${path}[${bad}]`,
          value[bad],
          "must be an object for an array of list-type map",
        ),
      ];
    }
    const keys = mapListKeys(schema, value);
    for (const i of repeatedIndices(keys)) errors.push(duplicate(`${path}[${i}]`, keys[i]!));
  }
  const items = schema.items && !Array.isArray(schema.items) ? schema.items : undefined;
  if (items) value.forEach((v, i) => errors.push(...validateValue(`${path}[${i}]`, items, v)));
  return errors;
}

function validateObject(path: string, schema: JSONSchemaProps, value: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const additional = schema.additionalProperties;
  const props = schema.properties;
  for (const [k, v] of Object.entries(value)) {
    if (isJsonObject(additional as JsonValue)) {
      errors.push(...validateValue(`${path}[${k}]`, additional as JSONSchemaProps, v));
    }
    const sub = props && Object.hasOwn(props, k) ? props[k] : undefined;
    if (sub) errors.push(...validateValue(child(path, k), sub, v));
  }
  return errors;
}

function validateValue(path: string, schema: JSONSchemaProps, value: JsonValue): FieldError[] {
  if (Array.isArray(value)) return validateArray(path, schema, value);
  if (isJsonObject(value)) return validateObject(path, schema, value);
  return [];
}

/**
 * The duplicate-value errors of every `set` and `map` list in `obj` under `schema` (kube's
 * `ValidateListSetsAndMaps`), with field paths from the root (`spec.items[1]`).
 */
export function validateListTypes(obj: JsonObject, schema: JSONSchemaProps): FieldError[] {
  return validateObject("", schema, obj);
}
