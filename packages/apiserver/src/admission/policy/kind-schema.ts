/**
 * The CEL type of a served kind for type checking (kube's schema resolver,
 * `k8s.io/apiserver/pkg/cel/openapi/resolver`): the kind's OpenAPI v3 definition as the server
 * publishes it (`discovery/openapi/resource-definitions.ts`: the field tables of built-in
 * kinds, a CRD version's schema with the full ObjectMeta for custom resources), its `$ref`s
 * inlined, typed as CRD schemas are (`schemaDeclType`). A recursive reference, or one deeper
 * than {@link MAX_REF_DEPTH}, is typed `dyn`; `int-or-string` values are `dyn`.
 */
import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import type { DeclType } from "../../apiextensions/cel/decl-type.js";
import { schemaDeclType } from "../../apiextensions/cel/schema-decl-type.js";
import type { JSONSchemaProps } from "../../apiextensions/schema-props.js";
import { definitionsForResources } from "../../discovery/openapi/resource-definitions.js";
import type { ServedResource } from "../../registry/served-resource.js";

/** References nested deeper than this are typed `dyn` (bounds the inlined tree). */
const MAX_REF_DEPTH = 24;
const REF_PREFIX = "#/components/schemas/";
const DYN_SCHEMA: JSONSchemaProps = { "x-kubernetes-preserve-unknown-fields": true };

/** The keys of a schema node the CEL type depends on. */
const TYPE_KEYS = [
  "type",
  "format",
  "maxLength",
  "maxItems",
  "maxProperties",
  "minLength",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-embedded-resource",
];

function refName(node: JsonObject): string | undefined {
  const direct = node["$ref"];
  if (typeof direct === "string") return direct.slice(REF_PREFIX.length);
  const allOf = node["allOf"];
  if (Array.isArray(allOf) && allOf.length === 1 && isJsonObject(allOf[0]))
    return refName(allOf[0]);
  return undefined;
}

function inline(
  node: JsonValue | undefined,
  defs: ReadonlyMap<string, JsonObject>,
  stack: readonly string[],
): JSONSchemaProps | undefined {
  if (!isJsonObject(node)) return undefined;
  const ref = refName(node);
  if (ref !== undefined) {
    const def = defs.get(ref);
    if (!def || stack.includes(ref) || stack.length >= MAX_REF_DEPTH) return DYN_SCHEMA;
    return inline(def, defs, [...stack, ref]);
  }
  if (node["format"] === "int-or-string" || node["x-kubernetes-int-or-string"] === true) {
    return { "x-kubernetes-int-or-string": true };
  }
  const out: Record<string, unknown> = {};
  for (const key of TYPE_KEYS) if (node[key] !== undefined) out[key] = node[key];
  const properties = node["properties"];
  if (isJsonObject(properties)) {
    const props: Record<string, JSONSchemaProps> = {};
    for (const [name, sub] of Object.entries(properties)) {
      const inlined = inline(sub, defs, stack);
      if (inlined) props[name] = inlined;
    }
    out["properties"] = props;
  }
  const items = inline(node["items"], defs, stack);
  if (items) out["items"] = items;
  const additional = inline(node["additionalProperties"], defs, stack);
  if (additional) out["additionalProperties"] = additional;
  return out as JSONSchemaProps;
}

function hasGvk(def: JsonObject, r: ServedResource): boolean {
  const gvks = def["x-kubernetes-group-version-kind"];
  return (
    Array.isArray(gvks) &&
    gvks.some(
      (g) =>
        isJsonObject(g) &&
        g["group"] === r.group &&
        g["version"] === r.version &&
        g["kind"] === r.kind,
    )
  );
}

/** The CEL type of objects of `resource`, or undefined when the server publishes no schema for it. */
export function kindDeclType(resource: ServedResource): DeclType | undefined {
  const defs = definitionsForResources([resource], "v3");
  for (const [name, def] of defs) {
    if (!hasGvk(def, resource)) continue;
    const schema = inline(def, defs, [name]);
    return schema ? schemaDeclType(schema, { typeName: resource.kind }) : undefined;
  }
  return undefined;
}
