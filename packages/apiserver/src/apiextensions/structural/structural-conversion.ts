/**
 * Whether a CRD schema can be turned into a structural schema at all: the errors of
 * `NewStructural` (apiextensions-apiserver `pkg/apiserver/schema/convert.go`), which refuses
 * the keywords a structural schema has no place for before any structural rule is checked.
 */
import { isJsonObject } from "kubekit/apimachinery";
import {
  hasEntries,
  isSet,
  schemaAt,
  schemaEntries,
  schemaList,
  stringField,
  type SchemaNode,
} from "./schema-node.js";

/** `validateUnsupportedFields` of convert.go: the keywords NewStructural refuses. */
function unsupportedField(node: SchemaNode): string | undefined {
  if (stringField(node, "id") !== "") return "OpenAPIV3Schema 'id' is not supported";
  if (stringField(node, "$schema") !== "") return "OpenAPIV3Schema 'schema' is not supported";
  if (stringField(node, "$ref") !== "") return "OpenAPIV3Schema '$ref' is not supported";
  if (hasEntries(node, "patternProperties"))
    return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (hasEntries(node, "dependencies")) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (isSet(node, "additionalItems")) return "OpenAPIV3Schema 'additionalItems' is not supported";
  if (hasEntries(node, "definitions")) return "OpenAPIV3Schema 'definitions' is not supported";
  return undefined;
}

/**
 * The first error NewStructural reports for `node` (in its traversal order: the node's
 * unsupported keywords, then `not`, `allOf`, `anyOf`, `oneOf`, the extensions, `items`,
 * `properties` sorted by name, `additionalProperties`), or `undefined` when it converts.
 */
export function structuralConversionError(node: SchemaNode): string | undefined {
  const unsupported = unsupportedField(node);
  if (unsupported) return unsupported;
  const not = schemaAt(node, "not");
  const junctors = [
    ...(not ? [not] : []),
    ...schemaList(node, "allOf"),
    ...schemaList(node, "anyOf"),
    ...schemaList(node, "oneOf"),
  ];
  for (const s of junctors) {
    const e = structuralConversionError(s);
    if (e) return e;
  }
  if (node["x-kubernetes-preserve-unknown-fields"] === false) {
    return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  }
  const items = node["items"];
  if (Array.isArray(items) && items.length > 0) {
    return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  }
  const children = [
    ...(isJsonObject(items) ? [items] : []),
    ...schemaEntries(node, "properties").map(([, s]) => s),
    ...(schemaAt(node, "additionalProperties") ? [schemaAt(node, "additionalProperties")] : []),
  ];
  for (const s of children) {
    const e = s && structuralConversionError(s);
    if (e) return e;
  }
  return undefined;
}
