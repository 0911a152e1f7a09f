/**
 * kube-apiserver's coercion of a custom resource to its schema when decoding a request
 * (`unstructuredSchemaCoercer.apply` in apiextensions' `pkg/apiserver/customresource_handler.go`):
 * unknown ObjectMeta fields at the root, structural pruning (`pkg/apiserver/schema/pruning/
 * algorithm.go`), removal of non-nullable nulls without a default (`schema/defaulting/
 * prunenulls.go`) and unknown ObjectMeta fields of embedded resources (`schema/objectmeta/
 * coerce.go`).
 */
import type { JsonObject, JsonValue } from "kubekit";
import { deepClone, isJsonObject } from "kubekit/apimachinery";
import { removeFieldPaths } from "../../schema/field-validation.js";
import { findUnknownFields } from "../../schema/unknown-fields.js";
import type { JSONSchemaProps } from "../schema-props.js";
import { hasEmbeddedResources, schemaNodeInfo } from "../validation/schema-node-info.js";

/** Options of {@link pruneUnknownFields}. */
export interface PruneOptions {
  /** The object is a whole custom resource: `apiVersion`, `kind` and `metadata` are kept. */
  readonly isResourceRoot?: boolean;
}

/** What {@link pruneUnknownFields} returns. */
export interface PruneResult {
  /** The object without the fields the schema does not specify (a copy; the input is untouched). */
  readonly value: JsonObject;
  /** The paths of the pruned fields, as kube's `unknown field "…"` warnings print them. */
  readonly unknownFields: string[];
}

const META_FIELDS = new Set(["apiVersion", "kind", "metadata"]);
const OBJECT_META = "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta";

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function isPreserving(node: JsonObject | undefined): boolean {
  return node !== undefined && node["x-kubernetes-preserve-unknown-fields"] === true;
}

function isEmbedded(node: JsonObject | undefined): boolean {
  return node !== undefined && node["x-kubernetes-embedded-resource"] === true;
}

/** What one pruning pass collects, and whether it also drops non-nullable nulls. */
interface PruneContext {
  readonly out: string[];
  /** defaulting.PruneNonNullableNullsWithoutDefaults, folded into the same walk. */
  readonly dropNulls: boolean;
}

/** A `null` that a non-nullable schema without a default does not keep. */
function isDroppedNull(v: JsonValue, schema: JsonObject | undefined, ctx: PruneContext): boolean {
  if (!ctx.dropNulls || v !== null || schema === undefined) return false;
  const d = schema["default"];
  return schema["nullable"] !== true && (d === undefined || d === null);
}

/** pruning.prune: a copy of `x` without the fields `node` does not specify. */
function prune(
  x: JsonValue,
  node: JsonObject | undefined,
  embedded: boolean,
  path: string,
  ctx: PruneContext,
): JsonValue {
  if (isPreserving(node)) return skipPrune(x, node as JsonObject, embedded, path, ctx);
  if (Array.isArray(x)) {
    const items = node ? schemaNodeInfo(node).items : undefined;
    return x.map((v, i) => prune(v, items, isEmbedded(items), `${path}[${i}]`, ctx));
  }
  if (!isJsonObject(x)) return x;
  const result: JsonObject = {};
  if (!node) {
    for (const k of Object.keys(x)) ctx.out.push(join(path, k));
    return result;
  }
  const { properties, additionalProperties: map } = schemaNodeInfo(node);
  for (const k in x) {
    if (!Object.hasOwn(x, k)) continue;
    const v = x[k] as JsonValue;
    const prop = properties.get(k);
    const schema = prop ?? map?.schema;
    if (isDroppedNull(v, schema, ctx)) continue;
    if (embedded && META_FIELDS.has(k)) result[k] = deepClone(v);
    else if (prop) result[k] = prune(v, prop, isEmbedded(prop), join(path, k), ctx);
    else if (map) result[k] = prune(v, schema, isEmbedded(schema), join(path, k), ctx);
    else if (!META_FIELDS.has(k) || path !== "") ctx.out.push(join(path, k));
  }
  return result;
}

/** pruning.skipPrune: under `x-kubernetes-preserve-unknown-fields`, only specified fields are pruned. */
function skipPrune(
  x: JsonValue,
  node: JsonObject,
  embedded: boolean,
  path: string,
  ctx: PruneContext,
): JsonValue {
  if (Array.isArray(x)) {
    const items = schemaNodeInfo(node).items;
    return x.map((v, i) =>
      items ? skipPrune(v, items, isEmbedded(items), `${path}[${i}]`, ctx) : deepClone(v),
    );
  }
  if (!isJsonObject(x)) return x;
  const { properties, additionalProperties: map } = schemaNodeInfo(node);
  const result: JsonObject = {};
  for (const [k, v] of Object.entries(x)) {
    const prop = properties.get(k);
    const schema = prop ?? map?.schema;
    if (isDroppedNull(v, schema, ctx)) continue;
    if (embedded && META_FIELDS.has(k)) result[k] = deepClone(v);
    else if (prop) result[k] = prune(v, prop, isEmbedded(prop), join(path, k), ctx);
    else if (map) result[k] = prune(v, schema, isEmbedded(schema), join(path, k), ctx);
    else result[k] = deepClone(v);
  }
  return result;
}

/** The unknown ObjectMeta fields of `obj.metadata`, removed in place; paths under `path`. */
function pruneObjectMeta(obj: JsonObject, path: string): string[] {
  const meta = obj["metadata"];
  if (!isJsonObject(meta)) return [];
  const unknown = findUnknownFields(meta, OBJECT_META);
  if (unknown.length > 0) obj["metadata"] = removeFieldPaths(meta, unknown);
  const prefix = join(path, "metadata");
  return unknown.map((p) => (p.startsWith("[") ? `${prefix}${p}` : `${prefix}.${p}`));
}

/** schemaobjectmeta.Coerce below the root: the ObjectMeta of every embedded resource. */
function coerceEmbeddedMeta(x: JsonValue, node: JsonObject, path: string, out: string[]): void {
  if (!hasEmbeddedResources(node)) return;
  const info = schemaNodeInfo(node);
  if (Array.isArray(x)) {
    const items = info.items;
    if (items) x.forEach((v, i) => coerceEmbeddedMeta(v, items, `${path}[${i}]`, out));
    return;
  }
  if (!isJsonObject(x)) return;
  if (info.embeddedResource) out.push(...pruneObjectMeta(x, path));
  for (const [k, v] of Object.entries(x)) {
    const prop = info.properties.get(k);
    if (prop) coerceEmbeddedMeta(v, prop, join(path, k), out);
    else if (info.additionalProperties?.schema) {
      coerceEmbeddedMeta(v, info.additionalProperties.schema, `${path}[${k}]`, out);
    }
  }
}

/** Go's sort.Strings: byte order of the UTF-8 encodings. */
function compareGoStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * kube's structural pruning of any JSON value (`pruning.PruneWithOptions`): a copy of `value`
 * without what `schema` does not specify, and the pruned paths sorted (relative to `value`).
 * With `isResourceRoot`, `apiVersion`, `kind` and `metadata` are kept at the top. What kube
 * applies to a schema's `default` values (with `isResourceRoot` set for embedded resources).
 */
export function pruneValue(
  value: JsonValue,
  schema: JsonObject | undefined,
  isResourceRoot: boolean,
): { value: JsonValue; unknownFields: string[] } {
  return pruneWith(value, schema, isResourceRoot, false);
}

function pruneWith(
  value: JsonValue,
  schema: JsonObject | undefined,
  isResourceRoot: boolean,
  dropNulls: boolean,
): { value: JsonValue; unknownFields: string[] } {
  const ctx: PruneContext = { out: [], dropNulls };
  const pruned = prune(value, schema, isResourceRoot || isEmbedded(schema), "", ctx);
  return { value: pruned, unknownFields: ctx.out.sort(compareGoStrings) };
}

/**
 * A copy of `obj` with the fields `schema` does not specify removed, as kube-apiserver
 * coerces a custom resource on every write, and the removed paths in kube's order: unknown
 * `metadata` fields first (with `isResourceRoot`), then the pruned fields sorted, then
 * unknown `metadata` fields of embedded resources — what `fieldValidation=Warn` prints as
 * `unknown field "<path>"` and `Strict` lists in its 400.
 *
 * `apiVersion`, `kind` and `metadata` are kept at the root (with `isResourceRoot`) and in
 * `x-kubernetes-embedded-resource` objects; `x-kubernetes-preserve-unknown-fields` keeps
 * unspecified fields (specified ones are still pruned below it); an `additionalProperties`
 * schema keeps every key. Non-nullable `null`s without a default are dropped as kube does
 * before defaulting (not reported). Never throws; time is linear in the object's size.
 *
 * Caveat: an unknown metadata key containing `.` or `[` is reported but not removed.
 */
export function pruneUnknownFields(
  obj: JsonObject,
  schema: JSONSchemaProps,
  options?: PruneOptions,
): PruneResult {
  const root = isJsonObject(schema as unknown as JsonValue)
    ? (schema as unknown as JsonObject)
    : undefined;
  const isResourceRoot = options?.isResourceRoot === true;
  const copy: JsonObject = { ...obj };
  const metaUnknown = isResourceRoot ? pruneObjectMeta(copy, "") : [];
  const pruned = pruneWith(copy, root, isResourceRoot, true);
  const value = pruned.value as JsonObject;
  const embeddedUnknown: string[] = [];
  if (root) coerceEmbeddedMeta(value, root, "", embeddedUnknown);
  return { value, unknownFields: [...metaUnknown, ...pruned.unknownFields, ...embeddedUnknown] };
}
