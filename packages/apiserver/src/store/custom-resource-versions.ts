/**
 * Custom resources between their served versions and storage, with conversion strategy
 * None (`staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/conversion/nop_converter.go`
 * and the storage codec of `pkg/apiserver/customresource_handler.go`): an object is written
 * at the CRD's storage version and read at the version requested, only `apiVersion`
 * changing. Reading from storage prunes and defaults with the schema of the version the
 * object was stored at (kube decodes, prunes and defaults before converting), then prunes
 * with the requested version's schema when it differs.
 */
import { formatApiVersion, type JsonObject } from "kubekit";
import type { ResourceEntry, ResourceRegistry } from "../registry/registry.js";
import type { CustomResourceInfo } from "../registry/served-resource.js";
import { storageConversionOf } from "../storage/event-conversion.js";

/** `obj` with `apiVersion` replaced in place (key order kept). */
function withApiVersion(obj: JsonObject, apiVersion: string): JsonObject {
  if (obj["apiVersion"] === apiVersion) return obj;
  if (!("apiVersion" in obj)) return { apiVersion, ...obj };
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) out[k] = k === "apiVersion" ? apiVersion : v;
  return out;
}

function versionOf(apiVersion: unknown): string {
  if (typeof apiVersion !== "string") return "";
  return apiVersion.slice(apiVersion.indexOf("/") + 1);
}

/** A stored custom resource as served at `entry`'s version (see the module comment). */
export function customResourceFromStorage(
  entry: ResourceEntry,
  custom: CustomResourceInfo,
  stored: JsonObject,
): JsonObject {
  const storedSchema = custom.versions.schemaOf(versionOf(stored["apiVersion"])) ?? custom.compiled;
  let obj = storedSchema.applyDefaults(storedSchema.prune(stored).value);
  obj = withApiVersion(obj, formatApiVersion(entry.info));
  if (storedSchema !== custom.compiled) obj = custom.compiled.prune(obj).value;
  return obj;
}

/** A custom resource of `entry`'s version as stored: at the CRD's storage version. */
export function customResourceToStorage(
  entry: ResourceEntry,
  custom: CustomResourceInfo,
  obj: JsonObject,
): JsonObject {
  const version = custom.versions.storageVersion;
  return withApiVersion(obj, formatApiVersion({ group: entry.info.group, version }));
}

/**
 * How objects of `entry` are read from its storage: the events.k8s.io/v1 view of core
 * Events, a custom resource at the requested version, or undefined when stored as served.
 */
export function readConversionOf(
  registry: ResourceRegistry,
  entry: ResourceEntry,
): ((stored: JsonObject) => JsonObject) | undefined {
  const conversion = storageConversionOf(registry, entry);
  if (conversion) return (stored) => conversion.fromStorage(stored);
  const custom = entry.info.custom;
  if (custom) return (stored) => customResourceFromStorage(entry, custom, stored);
  return undefined;
}
