/**
 * Custom resources between their served versions and storage, with conversion strategy
 * None (`staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/conversion/nop_converter.go`
 * and the storage codec of `pkg/apiserver/customresource_handler.go`): an object is written
 * at the CRD's storage version and read at the version requested, only `apiVersion`
 * changing. Reading from storage prunes and defaults with the schema of the version the
 * object was stored at (kube decodes, prunes and defaults before converting), then prunes
 * with the requested version's schema when it differs.
 *
 * With conversion strategy Webhook (`pkg/apiserver/conversion/webhook_converter.go`) the
 * asynchronous functions below send every object not already at the target version to the
 * CRD's conversion webhook (one ConversionReview per call), then prune with the target
 * version's schema as kube's `schemaCoercingConverter` does after a conversion; with strategy
 * None they are the synchronous functions.
 */
import { formatApiVersion, type JsonObject } from "kubekit";
import type { ResourceEntry, ResourceRegistry } from "../registry/registry.js";
import type { CustomResourceInfo } from "../registry/served-resource.js";
import type { ServerContext } from "../server/server-context.js";
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

/**
 * Whether objects of `entry` cross versions through a conversion webhook (its CRD's
 * `spec.conversion.strategy` is `Webhook`): reads and writes of it then use the asynchronous
 * functions below.
 */
export function convertsThroughWebhook(entry: ResourceEntry): boolean {
  return entry.info.custom?.versions.webhook !== undefined;
}

/** `stored` decoded at its own version: pruned and defaulted with that version's schema. */
function decodeStored(custom: CustomResourceInfo, stored: JsonObject): JsonObject {
  const schema = custom.versions.schemaOf(versionOf(stored["apiVersion"])) ?? custom.compiled;
  return schema.applyDefaults(schema.prune(stored).value);
}

/**
 * Stored custom resources as served at `entry`'s version, in order (a list page, a watch event,
 * the old object of a write). Strategy None: {@link customResourceFromStorage} of each. Strategy
 * Webhook: each decoded at its stored version, then those at another version converted in one
 * ConversionReview and pruned with `entry`'s schema. Other resources are returned as they are.
 * `options.list` words a refused object as kube words one of a list (`at index N`).
 * @throws StatusError 500 `conversion webhook for … failed: …` when the webhook fails.
 */
export async function customResourcesFromStorageAsync(
  ctx: ServerContext,
  entry: ResourceEntry,
  stored: readonly JsonObject[],
  options: { readonly list?: boolean } = {},
): Promise<JsonObject[]> {
  const custom = entry.info.custom;
  if (!custom) return [...stored];
  const webhook = custom.versions.webhook;
  if (!webhook) return stored.map((obj) => customResourceFromStorage(entry, custom, obj));
  const desired = formatApiVersion(entry.info);
  const decoded = stored.map((obj) => decodeStored(custom, obj));
  const { convertThroughWebhook } =
    await import("../apiextensions/conversion/webhook-converter.js");
  const converted = await convertThroughWebhook(
    webhook,
    ctx,
    decoded,
    desired,
    options.list === true,
  );
  return converted.map((obj, i) => (obj === decoded[i] ? obj : custom.compiled.prune(obj).value));
}

/**
 * A custom resource of `entry`'s version as stored, at the CRD's storage version. Strategy
 * None: {@link customResourceToStorage}. Strategy Webhook: converted by the webhook unless
 * already at the storage version, then pruned with the storage version's schema.
 * @throws StatusError 500 `conversion webhook for … failed: …` when the webhook fails.
 */
export async function customResourceToStorageAsync(
  ctx: ServerContext,
  entry: ResourceEntry,
  obj: JsonObject,
): Promise<JsonObject> {
  const custom = entry.info.custom;
  if (!custom) return obj;
  const webhook = custom.versions.webhook;
  if (!webhook) return customResourceToStorage(entry, custom, obj);
  const version = custom.versions.storageVersion;
  const desired = formatApiVersion({ group: entry.info.group, version });
  const { convertThroughWebhook } =
    await import("../apiextensions/conversion/webhook-converter.js");
  const [converted] = await convertThroughWebhook(webhook, ctx, [obj], desired, false);
  if (!converted || converted === obj) return obj;
  const schema = custom.versions.schemaOf(version);
  return schema ? schema.prune(converted).value : converted;
}
