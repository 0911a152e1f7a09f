/**
 * A schema node read once for validation, as apiextensions converts it to a go-openapi schema
 * (`ConvertJSONSchemaPropsWithPostProcess` in `pkg/apiserver/validation/validation.go` with
 * `StripUnsupportedFormatsPostProcess`): `x-kubernetes-int-or-string` becomes the types
 * `integer,string`, formats kube does not validate are dropped, and wrongly typed keywords read
 * as absent. Views are cached per schema object, so a CRD's schema is read once however many
 * objects it validates.
 */
import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import { isSupportedFormat } from "./string-formats.js";

/** The validation keywords of one schema node. */
export interface SchemaNodeInfo {
  readonly node: JsonObject;
  /** `type` as a list: empty, one type, or `integer,string` for int-or-string. */
  readonly types: readonly string[];
  readonly nullable: boolean;
  /** The format kube validates (`""` when absent or unsupported). */
  readonly format: string;
  readonly enumValues: readonly JsonValue[] | undefined;
  readonly maxLength: number | undefined;
  readonly minLength: number | undefined;
  readonly pattern: string;
  readonly maximum: number | undefined;
  readonly exclusiveMaximum: boolean;
  readonly minimum: number | undefined;
  readonly exclusiveMinimum: boolean;
  readonly multipleOf: number | undefined;
  readonly maxItems: number | undefined;
  readonly minItems: number | undefined;
  readonly uniqueItems: boolean;
  readonly items: JsonObject | undefined;
  readonly itemsList: readonly JsonObject[] | undefined;
  readonly additionalItems: SchemaOrBool | undefined;
  readonly maxProperties: number | undefined;
  readonly minProperties: number | undefined;
  readonly required: readonly string[];
  readonly properties: ReadonlyMap<string, JsonObject>;
  readonly patternProperties: ReadonlyMap<string, JsonObject>;
  readonly additionalProperties: SchemaOrBool | undefined;
  readonly allOf: readonly JsonObject[];
  readonly anyOf: readonly JsonObject[];
  readonly oneOf: readonly JsonObject[];
  readonly not: JsonObject | undefined;
  readonly dependencies: ReadonlyMap<string, JsonObject | readonly string[]>;
  readonly embeddedResource: boolean;
}

/** `additionalProperties` / `additionalItems`: a boolean, or a schema (which allows). */
export interface SchemaOrBool {
  readonly allows: boolean;
  readonly schema: JsonObject | undefined;
}

const cache = new WeakMap<JsonObject, SchemaNodeInfo>();

function num(node: JsonObject, key: string): number | undefined {
  const v = node[key];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function schemaMap(node: JsonObject, key: string): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  const v = node[key];
  if (isJsonObject(v)) {
    for (const [k, s] of Object.entries(v)) if (isJsonObject(s)) out.set(k, s);
  }
  return out;
}

function schemaList(node: JsonObject, key: string): JsonObject[] {
  const v = node[key];
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

function schemaOrBool(v: JsonValue | undefined): SchemaOrBool | undefined {
  if (typeof v === "boolean") return { allows: v, schema: undefined };
  if (isJsonObject(v)) return { allows: true, schema: v };
  return undefined;
}

function typesOf(node: JsonObject): string[] {
  if (node["x-kubernetes-int-or-string"] === true) return ["integer", "string"];
  const t = node["type"];
  return typeof t === "string" && t !== "" ? [t] : [];
}

function dependenciesOf(node: JsonObject): Map<string, JsonObject | readonly string[]> {
  const out = new Map<string, JsonObject | readonly string[]>();
  const v = node["dependencies"];
  if (!isJsonObject(v)) return out;
  for (const [k, d] of Object.entries(v)) {
    if (isJsonObject(d)) out.set(k, d);
    else if (Array.isArray(d))
      out.set(
        k,
        d.filter((s): s is string => typeof s === "string"),
      );
  }
  return out;
}

function read(node: JsonObject): SchemaNodeInfo {
  const format = typeof node["format"] === "string" ? node["format"] : "";
  const pattern = typeof node["pattern"] === "string" ? node["pattern"] : "";
  const items = node["items"];
  const required = node["required"];
  const enumValues = node["enum"];
  return {
    node,
    types: typesOf(node),
    nullable: node["nullable"] === true,
    format: isSupportedFormat(format) ? format : "",
    enumValues: Array.isArray(enumValues) ? enumValues : undefined,
    maxLength: num(node, "maxLength"),
    minLength: num(node, "minLength"),
    pattern,
    maximum: num(node, "maximum"),
    exclusiveMaximum: node["exclusiveMaximum"] === true,
    minimum: num(node, "minimum"),
    exclusiveMinimum: node["exclusiveMinimum"] === true,
    multipleOf: num(node, "multipleOf"),
    maxItems: num(node, "maxItems"),
    minItems: num(node, "minItems"),
    uniqueItems: node["uniqueItems"] === true,
    items: isJsonObject(items) ? items : undefined,
    itemsList: Array.isArray(items) ? items.filter(isJsonObject) : undefined,
    additionalItems: schemaOrBool(node["additionalItems"]),
    maxProperties: num(node, "maxProperties"),
    minProperties: num(node, "minProperties"),
    required: Array.isArray(required)
      ? required.filter((s): s is string => typeof s === "string")
      : [],
    properties: schemaMap(node, "properties"),
    patternProperties: schemaMap(node, "patternProperties"),
    additionalProperties: schemaOrBool(node["additionalProperties"]),
    allOf: schemaList(node, "allOf"),
    anyOf: schemaList(node, "anyOf"),
    oneOf: schemaList(node, "oneOf"),
    not: isJsonObject(node["not"]) ? node["not"] : undefined,
    dependencies: dependenciesOf(node),
    embeddedResource: node["x-kubernetes-embedded-resource"] === true,
  };
}

/** The validation view of `node` (cached by object identity). */
export function schemaNodeInfo(node: JsonObject): SchemaNodeInfo {
  let info = cache.get(node);
  if (!info) {
    info = read(node);
    cache.set(node, info);
  }
  return info;
}

const embeddedBelow = new WeakMap<JsonObject, boolean>();

/**
 * Whether `node` or a schema below it (along `properties`, `items` and `additionalProperties`,
 * the structural skeleton) is an `x-kubernetes-embedded-resource`, cached: the embedded
 * resource checks skip schemas without any.
 */
export function hasEmbeddedResources(node: JsonObject): boolean {
  let has = embeddedBelow.get(node);
  if (has === undefined) {
    embeddedBelow.set(node, false);
    const info = schemaNodeInfo(node);
    const children = [...info.properties.values()];
    if (info.items) children.push(info.items);
    if (info.additionalProperties?.schema) children.push(info.additionalProperties.schema);
    has = info.embeddedResource || children.some(hasEmbeddedResources);
    embeddedBelow.set(node, has);
  }
  return has;
}
