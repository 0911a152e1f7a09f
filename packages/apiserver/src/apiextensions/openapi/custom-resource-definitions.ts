import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import {
  gvkExtension,
  LIST_META_DEFINITION,
  OBJECT_META_DEFINITION,
  refSchema,
  typeMetaProperties,
  type OpenApiFlavor,
} from "../../discovery/openapi/openapi-flavor.js";

/**
 * The OpenAPI definitions of one served version of a CustomResourceDefinition, as
 * apiextensions-apiserver's OpenAPI builder makes them
 * (`apiextensions-apiserver/pkg/controller/openapi/builder/builder.go`):
 *
 * - the kind `<reversed group>.<version>.<Kind>` (`com.example.v1.Website`): the version's
 *   `openAPIV3Schema` reduced to its structural keywords, with `apiVersion`, `kind` and
 *   `metadata` (a reference to ObjectMeta) set at the root and in every
 *   `x-kubernetes-embedded-resource` node (which also requires `apiVersion` and `kind`), and
 *   `x-kubernetes-group-version-kind`; without a schema it is `{type: object}` with the GVK;
 * - the list `<reversed group>.<version>.<ListKind>`: `items` (required) of the kind,
 *   `metadata` a reference to ListMeta, and its own GVK;
 * - both carry the version's `selectableFields` as `x-kubernetes-selectable-fields`
 *   (`[{fieldPath: "spec.color"}]`) when it has any.
 *
 * For OpenAPI v3 an `x-kubernetes-int-or-string` node also gets `anyOf` integer or string
 * (apiextensions' `Structural.Unfold`). For v2 the schema is lowered as
 * `controller/openapi/v2/conversion.go` does (allOf/anyOf/oneOf/not dropped; nullable and
 * preserve-unknown-fields nodes lose their type and children; an array without items loses its
 * type; nullable properties are no longer required; a root that preserves unknown fields is a
 * bare object) and defaults are pruned, so that kubectl's Swagger parser accepts it.
 */

/** The facts of a served custom resource version the definitions need. */
export interface CustomResourceOpenApiInput {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  /** The version's `schema.openAPIV3Schema`, when it has one. */
  readonly schema: JsonObject | undefined;
  /** The version's selectable fields (`spec.color`), published as `x-kubernetes-selectable-fields`. */
  readonly selectableFields: readonly string[];
}

/** `example.com`, `v1`, `Website` → `com.example.v1.Website`. */
export function customResourceDefinitionName(group: string, version: string, kind: string): string {
  return `${group.split(".").reverse().join(".")}.${version}.${kind}`;
}

/** The kind and list definitions of a custom resource version, keyed by definition name. */
export function customResourceDefinitions(
  input: CustomResourceOpenApiInput,
  flavor: OpenApiFlavor,
): Map<string, JsonObject> {
  const { group, version, kind, listKind } = input;
  const kindName = customResourceDefinitionName(group, version, kind);
  const listName = customResourceDefinitionName(group, version, listKind);
  const selectable: JsonObject =
    input.selectableFields.length > 0
      ? {
          "x-kubernetes-selectable-fields": input.selectableFields.map((fieldPath) => ({
            fieldPath,
          })),
        }
      : {};
  const kindSchema: JsonObject = {
    ...kindRoot(input.schema, flavor),
    "x-kubernetes-group-version-kind": gvkExtension([{ group, version, kind }]),
    ...selectable,
  };
  const listSchema: JsonObject = {
    description: `${listKind} is a list of ${kind}`,
    type: "object",
    required: ["items"],
    properties: {
      ...typeMetaProperties(),
      items: {
        description: `The ${kind} objects of the list.`,
        type: "array",
        items: refSchema(kindName, flavor),
      },
      metadata: refSchema(LIST_META_DEFINITION, flavor),
    },
    "x-kubernetes-group-version-kind": gvkExtension([{ group, version, kind: listKind }]),
    ...selectable,
  };
  return new Map([
    [kindName, kindSchema],
    [listName, listSchema],
  ]);
}

/** The definitions every custom resource definition references. */
export const CUSTOM_RESOURCE_REFERENCED_DEFINITIONS: readonly string[] = [
  OBJECT_META_DEFINITION,
  LIST_META_DEFINITION,
];

function kindRoot(schema: JsonObject | undefined, flavor: OpenApiFlavor): JsonObject {
  if (!schema) return { type: "object" };
  if (flavor === "v2" && schema["x-kubernetes-preserve-unknown-fields"] === true) {
    return { type: "object" };
  }
  const root = structuralNode(schema, flavor, 0);
  return withKubeNativeProperties(root, flavor, false);
}

/** Sets `apiVersion`, `kind` and `metadata` (and, for embedded resources, requires the first two). */
function withKubeNativeProperties(
  node: JsonObject,
  flavor: OpenApiFlavor,
  embedded: boolean,
): JsonObject {
  const properties = isJsonObject(node["properties"]) ? node["properties"] : {};
  const out: JsonObject = {
    ...node,
    properties: {
      ...properties,
      ...typeMetaProperties(),
      metadata: refSchema(OBJECT_META_DEFINITION, flavor),
    },
  };
  if (embedded) {
    const required = Array.isArray(node["required"]) ? [...node["required"]] : [];
    for (const key of ["kind", "apiVersion"]) if (!required.includes(key)) required.push(key);
    out["required"] = required;
  }
  return out;
}

/** Keywords a structural schema node keeps (`apiextensions-apiserver/pkg/apiserver/schema`). */
const KEPT_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "format",
  "title",
  "description",
  "default",
  "example",
  "externalDocs",
  "nullable",
  "enum",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "multipleOf",
  "maxProperties",
  "minProperties",
  "required",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-int-or-string",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-list-type",
  "x-kubernetes-map-type",
  "x-kubernetes-validations",
]);

const JUNCTORS = ["allOf", "anyOf", "oneOf"] as const;
const KNOWN_TYPES: ReadonlySet<string> = new Set([
  "object",
  "array",
  "string",
  "integer",
  "number",
  "boolean",
]);

/** Deeper schemas than this are published as free-form objects (bounded work on hostile CRDs). */
const MAX_DEPTH = 64;

/** One node of the schema, reduced and lowered for `flavor`; children are handled recursively. */
function structuralNode(node: JsonObject, flavor: OpenApiFlavor, depth: number): JsonObject {
  if (depth > MAX_DEPTH) return { "x-kubernetes-preserve-unknown-fields": true };
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (KEPT_KEYWORDS.has(key)) out[key] = value;
  }
  const type = out["type"];
  if (type !== undefined && !(typeof type === "string" && KNOWN_TYPES.has(type))) {
    delete out["type"];
  }
  const properties = node["properties"];
  if (isJsonObject(properties)) {
    // fromEntries defines own keys, so a property named `__proto__` stays a property.
    out["properties"] = Object.fromEntries(
      Object.entries(properties)
        .filter((entry): entry is [string, JsonObject] => isJsonObject(entry[1]))
        .map(([name, child]) => [name, childNode(child, flavor, depth)]),
    );
  }
  const items = node["items"];
  if (isJsonObject(items)) out["items"] = childNode(items, flavor, depth);
  const additional = node["additionalProperties"];
  if (typeof additional === "boolean") out["additionalProperties"] = additional;
  else if (isJsonObject(additional)) {
    out["additionalProperties"] = childNode(additional, flavor, depth);
  }
  if (flavor === "v3") {
    for (const junctor of JUNCTORS) {
      const list = node[junctor];
      if (Array.isArray(list)) {
        out[junctor] = list.filter(isJsonObject).map((s) => structuralNode(s, flavor, depth + 1));
      }
    }
    if (isJsonObject(node["not"])) out["not"] = structuralNode(node["not"], flavor, depth + 1);
    unfoldIntOrString(out);
    return out;
  }
  return lowerToV2(out, node);
}

function childNode(child: JsonObject, flavor: OpenApiFlavor, depth: number): JsonObject {
  const node = structuralNode(child, flavor, depth + 1);
  const embedded = child["x-kubernetes-embedded-resource"] === true;
  if (!embedded) return node;
  if (flavor === "v2" && child["x-kubernetes-preserve-unknown-fields"] === true) return node;
  return withKubeNativeProperties(node, flavor, true);
}

/** `x-kubernetes-int-or-string` without its anyOf gets `anyOf: [integer, string]` (Unfold). */
function unfoldIntOrString(node: JsonObject): void {
  if (node["x-kubernetes-int-or-string"] !== true) return;
  const intOrString: JsonValue[] = [{ type: "integer" }, { type: "string" }];
  const anyOf = node["anyOf"];
  if (anyOf === undefined) {
    node["anyOf"] = intOrString;
    return;
  }
  if (isIntOrStringPattern(anyOf)) return;
  const allOf = Array.isArray(node["allOf"]) ? node["allOf"] : [];
  const first = allOf[0];
  if (isJsonObject(first) && isIntOrStringPattern(first["anyOf"])) return;
  node["allOf"] = [{ anyOf: intOrString }, ...allOf];
}

function isIntOrStringPattern(anyOf: JsonValue | undefined): boolean {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return false;
  const [a, b] = anyOf;
  return isJsonObject(a) && isJsonObject(b) && a["type"] === "integer" && b["type"] === "string";
}

/**
 * `controller/openapi/v2/conversion.go` on one reduced node (`original` is the CRD's node, for
 * the nullability of its children), plus default pruning.
 */
function lowerToV2(node: JsonObject, original: JsonObject): JsonObject {
  const nullable = node["nullable"] === true;
  const preserve = node["x-kubernetes-preserve-unknown-fields"] === true;
  delete node["default"];
  delete node["nullable"];
  const properties = isJsonObject(original["properties"]) ? original["properties"] : {};
  const additional = original["additionalProperties"];
  if (isJsonObject(additional) && additional["nullable"] === true) delete node["required"];
  else if (Array.isArray(node["required"])) {
    const required = node["required"].filter((name) => {
      const child = typeof name === "string" ? properties[name] : undefined;
      return !(isJsonObject(child) && child["nullable"] === true);
    });
    if (required.length > 0) node["required"] = required;
    else delete node["required"];
  }
  if (nullable || preserve) {
    delete node["items"];
    delete node["properties"];
  }
  if (nullable) delete node["type"];
  if (node["type"] === "array" && node["items"] === undefined) delete node["type"];
  if (preserve && node["type"] === "object") delete node["type"];
  return node;
}
