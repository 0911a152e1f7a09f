/**
 * Read access to one node of a CRD's OpenAPI v3 schema as the request carried it (wire JSON,
 * not yet known to be well-formed): the checks of a CRD read the schema through these so that
 * a value of an unexpected JSON type reads as absent instead of crashing. Go's zero values
 * are kept apart from absence where kube tells them apart (a `*bool` set to `false`).
 */
import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import type { JSONSchemaProps } from "../schema-props.js";

/** One schema node (a `JSONSchemaProps` as wire JSON). */
export type SchemaNode = JsonObject;

/**
 * The node typed as the schema readers take it (`JSONSchemaProps`). The wire JSON is not
 * checked here: those readers tolerate values of unexpected types as this module does.
 */
export function asSchemaProps(node: SchemaNode): JSONSchemaProps {
  return node as unknown as JSONSchemaProps;
}

/** The string at `key`, `""` when absent or not a string (Go's zero string). */
export function stringField(node: SchemaNode, key: string): string {
  const v = node[key];
  return typeof v === "string" ? v : "";
}

/** Whether `key` holds `true` (Go's `bool` field; absent is `false`). */
export function isTrue(node: SchemaNode, key: string): boolean {
  return node[key] === true;
}

/** The schema object at `key` (`not`, `additionalProperties` as a schema), if any. */
export function schemaAt(node: SchemaNode, key: string): SchemaNode | undefined {
  const v = node[key];
  return isJsonObject(v) ? v : undefined;
}

/** The schemas of a list keyword (`allOf`, `anyOf`, `oneOf`); empty when absent. */
export function schemaList(node: SchemaNode, key: string): SchemaNode[] {
  const v = node[key];
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

/**
 * The entries of a map of schemas (`properties`, `definitions`, `patternProperties`) sorted by
 * key: kube iterates a Go map in random order, kubekit in a stable one.
 */
export function schemaEntries(node: SchemaNode, key: string): [string, SchemaNode][] {
  const v = node[key];
  if (!isJsonObject(v)) return [];
  return Object.keys(v)
    .sort()
    .flatMap((k) => {
      const s = v[k];
      return isJsonObject(s) ? [[k, s] as [string, SchemaNode]] : [];
    });
}

/** Whether a map or list keyword holds at least one entry (Go's `len(x) != 0`). */
export function hasEntries(node: SchemaNode, key: string): boolean {
  const v = node[key];
  if (Array.isArray(v)) return v.length > 0;
  return isJsonObject(v) && Object.keys(v).length > 0;
}

/** `items` when it is a single schema (an array of schemas is not structural). */
export function itemsSchema(node: SchemaNode): SchemaNode | undefined {
  return schemaAt(node, "items");
}

/** The strings of a string-list keyword (`required`, `x-kubernetes-list-map-keys`). */
export function stringList(node: SchemaNode, key: string): string[] {
  const v = node[key];
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
}

/** Whether `key` is present with a value other than `null` (Go's non-nil pointer). */
export function isSet(node: SchemaNode, key: string): boolean {
  const v: JsonValue | undefined = node[key];
  return v !== undefined && v !== null;
}

/**
 * The direct child schemas of a node, each with the path segment kube names it by
 * (`properties[name]`, `items`, `additionalProperties`, `allOf[0]`, `not`, ...), including
 * the non-structural keywords (`definitions`, `patternProperties`, `dependencies`,
 * `additionalItems`, `items` as an array): what `SchemaHas` in kube's validation.go visits.
 */
export function childSchemas(node: SchemaNode): [string, SchemaNode][] {
  const out: [string, SchemaNode][] = [];
  const items = node["items"];
  if (isJsonObject(items)) out.push(["items", items]);
  else if (Array.isArray(items))
    items.forEach((s, i) => isJsonObject(s) && out.push([`items[${i}]`, s]));
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    schemaList(node, key).forEach((s, i) => out.push([`${key}[${i}]`, s]));
  }
  for (const key of ["not", "additionalProperties", "additionalItems"]) {
    const s = schemaAt(node, key);
    if (s) out.push([key, s]);
  }
  for (const key of ["properties", "patternProperties", "definitions", "dependencies"]) {
    for (const [k, s] of schemaEntries(node, key)) out.push([`${key}[${k}]`, s]);
  }
  return out;
}

/**
 * Whether `pred` holds for `node` or any schema below it (kube's `SchemaHas`). Iterative, so a
 * deep schema cannot overflow the stack; the walk is bounded by the (size-bounded) request.
 */
export function schemaHas(node: SchemaNode | undefined, pred: (s: SchemaNode) => boolean): boolean {
  if (!node) return false;
  const stack: SchemaNode[] = [node];
  while (stack.length > 0) {
    const s = stack.pop() as SchemaNode;
    if (pred(s)) return true;
    for (const [, child] of childSchemas(s)) stack.push(child);
  }
  return false;
}
