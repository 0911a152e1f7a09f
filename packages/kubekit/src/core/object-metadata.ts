/**
 * Read accessors of an object's `metadata` (ObjectMeta) for code that holds objects as
 * `unknown` wire JSON (caches, reflectors, listers): the counterpart of apimachinery's
 * `meta.Accessor` (`staging/src/k8s.io/apimachinery/pkg/api/meta/meta.go`). They never throw
 * and never copy: a value of the wrong JSON type reads as absent.
 */
import { isJsonObject, type JsonObject } from "./json.js";

/**
 * The object's `metadata` when `obj` is a JSON object whose `metadata` is a JSON object,
 * else `undefined` (meta.Accessor's error case: not an object, tombstones, lists of raw
 * values). The result is the object's own `metadata`, not a copy: do not mutate it.
 */
export function metadataOf(obj: unknown): JsonObject | undefined {
  if (!isJsonObject(obj)) return undefined;
  const metadata = obj["metadata"];
  return isJsonObject(metadata) ? metadata : undefined;
}

/**
 * The object's non-empty `metadata.resourceVersion`, else `undefined` (no metadata, unset,
 * empty or not a string). Compare two objects' versions with {@link hasMetadata} when "both
 * unset" must count as equal, as client-go's accessor (which returns `""`) does.
 */
export function resourceVersionOf(obj: unknown): string | undefined {
  const rv = metadataOf(obj)?.["resourceVersion"];
  return typeof rv === "string" && rv !== "" ? rv : undefined;
}

/** Whether `obj` is a JSON object with an object `metadata` (meta.Accessor succeeds on it). */
export function hasMetadata(obj: unknown): boolean {
  return metadataOf(obj) !== undefined;
}

/** The object's `metadata.name`, or `""` when it has none (as ObjectMeta.GetName). */
export function nameOf(obj: unknown): string {
  const name = metadataOf(obj)?.["name"];
  return typeof name === "string" ? name : "";
}

/** The object's `metadata.namespace`, or `""` when it has none (cluster-scoped objects; as ObjectMeta.GetNamespace). */
export function namespaceOf(obj: unknown): string {
  const namespace = metadataOf(obj)?.["namespace"];
  return typeof namespace === "string" ? namespace : "";
}

/**
 * The object's string-valued `metadata.labels` (other values are left out), or `undefined`
 * when it has no label map. The result is a fresh object.
 */
export function labelsOf(obj: unknown): Record<string, string> | undefined {
  const labels = metadataOf(obj)?.["labels"];
  if (!isJsonObject(labels)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(labels)) {
    if (typeof value === "string") out[key] = value;
  }
  return out;
}

/** The value of the annotation `key` in the object's `metadata.annotations` when it is a string, else `undefined`. */
export function annotationOf(obj: unknown, key: string): string | undefined {
  const annotations = metadataOf(obj)?.["annotations"];
  const value = isJsonObject(annotations) ? annotations[key] : undefined;
  return typeof value === "string" ? value : undefined;
}
