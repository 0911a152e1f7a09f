/**
 * The {@link LazyObjectMeta} of an object that is already parsed: what the metadata
 * scanner reads from the bytes, picked from the decoded JSON instead.
 */
import type { OwnerReference } from "kubernetes-types/meta/v1.js";
import { isJsonObject, type JsonObject } from "../../core/json.js";
import { metadataOf } from "../../core/object-metadata.js";
import type { LazyObjectMeta } from "../lazy-object.js";

const STRING_FIELDS = [
  "namespace",
  "name",
  "generateName",
  "uid",
  "resourceVersion",
  "creationTimestamp",
  "deletionTimestamp",
] as const;

/** A map's string values (others left out), or undefined when it is not an object. */
function stringMap(value: unknown): Record<string, string> | undefined {
  if (!isJsonObject(value)) return undefined;
  const out: Record<string, string> = {};
  for (const key of Object.keys(value)) {
    const entry = value[key];
    if (typeof entry === "string") out[key] = entry;
  }
  return out;
}

/**
 * The fields of {@link LazyObjectMeta} in `obj.metadata`, each kept only when it has its
 * JSON type (strings, a number `generation`, string maps of labels and annotations with
 * non-string values left out, arrays of owner references and of string finalizers); an
 * object without a `metadata` object has empty metadata. The maps and arrays are fresh
 * copies (the owner references in them are shared with `obj`).
 */
export function lazyObjectMetaOf(obj: unknown): LazyObjectMeta {
  const meta: JsonObject | undefined = metadataOf(obj);
  if (meta === undefined) return {};
  const out: Record<string, unknown> = {};
  for (const field of STRING_FIELDS) {
    const value = meta[field];
    if (typeof value === "string") out[field] = value;
  }
  const generation = meta["generation"];
  if (typeof generation === "number") out["generation"] = generation;
  const labels = stringMap(meta["labels"]);
  if (labels !== undefined) out["labels"] = labels;
  const annotations = stringMap(meta["annotations"]);
  if (annotations !== undefined) out["annotations"] = annotations;
  const owners = meta["ownerReferences"];
  if (Array.isArray(owners)) {
    out["ownerReferences"] = owners.filter(isJsonObject) as unknown as OwnerReference[];
  }
  const finalizers = meta["finalizers"];
  if (Array.isArray(finalizers)) {
    out["finalizers"] = finalizers.filter((f): f is string => typeof f === "string");
  }
  return out as LazyObjectMeta;
}
