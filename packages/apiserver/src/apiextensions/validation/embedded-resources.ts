/**
 * The checks of `x-kubernetes-embedded-resource` objects (apiextensions'
 * `pkg/apiserver/schema/objectmeta/validation.go`): `apiVersion` and `kind` are required
 * strings (a group/version, a mixed-case DNS-1035 label), and `metadata` is an ObjectMeta
 * validated as kube's ValidateObjectMeta does with path-segment names (`fakename` standing in
 * for an absent name). Embedded resources are found along `properties`, `additionalProperties`
 * and `items` only.
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { fieldInvalid, fieldRequired, isDns1035Label, isJsonObject } from "kubekit/apimachinery";
import { GENERIC_POLICY } from "../../registry/resource-policy.js";
import { validateObjectMeta } from "../../store/object-validation.js";
import { hasEmbeddedResources, schemaNodeInfo } from "./schema-node-info.js";

const EMBEDDED_META_POLICY = { ...GENERIC_POLICY, nameRule: "path-segment" } as const;

/** ObjectMeta's string fields, whose other JSON types fail Go's decoding. */
const META_STRING_FIELDS = ["name", "generateName", "namespace", "uid", "resourceVersion"];

function child(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

/** Go's JSON type name of a value, as `json: cannot unmarshal <type>` prints it. */
function goJsonType(v: JsonValue): string {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  return typeof v === "object" ? "object" : typeof v;
}

function metadataErrors(path: string, meta: JsonValue): FieldError[] {
  const at = child(path, "metadata");
  if (!isJsonObject(meta)) {
    if (meta === null) return [];
    const detail = `json: cannot unmarshal ${goJsonType(meta)} into Go value of type v1.ObjectMeta`;
    return [fieldInvalid(at, meta, detail)];
  }
  for (const f of META_STRING_FIELDS) {
    const v = meta[f];
    if (v !== undefined && v !== null && typeof v !== "string") {
      const detail = `json: cannot unmarshal ${goJsonType(v)} into Go struct field ObjectMeta.${f} of type string`;
      return [fieldInvalid(at, meta, detail)];
    }
  }
  const name = typeof meta["name"] === "string" && meta["name"] !== "" ? meta["name"] : "fakename";
  return validateObjectMeta({ ...meta, name }, EMBEDDED_META_POLICY, false).map((e) => ({
    ...e,
    field: `${at}${e.field.slice("metadata".length)}`,
  }));
}

function apiVersionErrors(path: string, v: JsonValue): FieldError[] {
  const at = child(path, "apiVersion");
  if (typeof v !== "string") return [fieldInvalid(at, v, "must be a string")];
  if (v === "") return [fieldInvalid(at, v, "must not be empty")];
  if (v !== "/" && v.split("/").length > 2) {
    return [fieldInvalid(at, v, `unexpected GroupVersion string: ${v}`)];
  }
  return [];
}

function kindErrors(path: string, v: JsonValue): FieldError[] {
  const at = child(path, "kind");
  if (typeof v !== "string") return [fieldInvalid(at, v, "must be a string")];
  if (v === "") return [fieldInvalid(at, v, "must not be empty")];
  const errs = isDns1035Label(v.toLowerCase());
  if (errs.length === 0) return [];
  return [
    fieldInvalid(at, v, `may have mixed case, but should otherwise match: ${errs.join(",")}`),
  ];
}

/** validateEmbeddedResource: the TypeMeta and ObjectMeta of one embedded object. */
function embeddedResourceErrors(path: string, x: JsonObject, withMetadata: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!Object.hasOwn(x, "apiVersion")) errs.push(fieldRequired(child(path, "apiVersion"), ""));
  if (!Object.hasOwn(x, "kind")) errs.push(fieldRequired(child(path, "kind"), ""));
  for (const [k, v] of Object.entries(x)) {
    if (k === "apiVersion") errs.push(...apiVersionErrors(path, v));
    else if (k === "kind") errs.push(...kindErrors(path, v));
    else if (k === "metadata" && withMetadata) errs.push(...metadataErrors(path, v));
  }
  return errs;
}

function walk(path: string, x: JsonValue, node: JsonObject, out: FieldError[]): void {
  if (!hasEmbeddedResources(node)) return;
  const info = schemaNodeInfo(node);
  if (isJsonObject(x)) {
    if (info.embeddedResource) out.push(...embeddedResourceErrors(path, x, true));
    for (const [k, v] of Object.entries(x)) {
      const prop = info.properties.get(k);
      if (prop) walk(child(path, k), v, prop, out);
      else if (info.additionalProperties?.schema) {
        walk(`${path}[${k}]`, v, info.additionalProperties.schema, out);
      }
    }
  } else if (Array.isArray(x) && info.items) {
    const items = info.items;
    x.forEach((v, i) => walk(`${path}[${i}]`, v, items, out));
  }
}

/**
 * The embedded-resource errors of `value` under `path`. With `isResourceRoot` the root is a
 * resource too: its `apiVersion` and `kind` are checked, its `metadata` is not (kube-apiserver
 * validates a resource's own metadata with ValidateObjectMetaAccessor, outside the schema).
 */
export function validateEmbeddedResources(
  value: JsonValue,
  schema: JsonObject,
  path: string,
  isResourceRoot: boolean,
): FieldError[] {
  const out: FieldError[] = [];
  if (isResourceRoot && isJsonObject(value) && !schemaNodeInfo(schema).embeddedResource) {
    out.push(...embeddedResourceErrors(path, value, false));
  }
  walk(path, value, schema, out);
  return out;
}
