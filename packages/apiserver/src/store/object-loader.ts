import { newBadRequest, parseApiVersion, type JsonObject } from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";
import type { ResourceEntry } from "../registry/registry.js";
import type { ServerContext } from "../server/server-context.js";
import { ResourceOperations, type CreateOptions } from "./resource-operations.js";

/** The field manager recorded in the managedFields of objects created by {@link loadObjects}. */
export const LOADER_FIELD_MANAGER = "kubekit-load";

/**
 * Creates every object through the store's in-process write path (kind defaults, validation,
 * Go zero-field fill, system metadata, managedFields, resourceVersion), without admission —
 * as the server's own controllers write — and synchronously, one commit per object, in
 * iteration order. Objects name their kind with `apiVersion` and `kind`; a namespaced object
 * without `metadata.namespace` goes to "default" (as kubectl sends it).
 *
 * Returns how many objects were created. Stops at the first object that fails, throwing the
 * StatusError a POST of it would answer (400 when `apiVersion`/`kind` name no resource served
 * with a create verb);
 * the objects before it stay created.
 */
export function loadObjects(ctx: ServerContext, objects: Iterable<JsonObject>): number {
  const ops = new ResourceOperations(ctx);
  const entries = new Map<string, ResourceEntry>();
  const opts: CreateOptions = {
    dryRun: false,
    fieldManager: LOADER_FIELD_MANAGER,
    fieldValidation: "Ignore",
    warnings: [],
  };
  let created = 0;
  for (const obj of objects) {
    if (!isJsonObject(obj)) throw newBadRequest("the object to load must be a JSON object");
    const entry = entryOf(ctx, entries, obj);
    const namespace = entry.info.namespaced
      ? stringOr(metadataOf(obj)?.["namespace"], "default")
      : "";
    ops.create(entry, namespace, obj, opts);
    opts.warnings.length = 0;
    created++;
  }
  return created;
}

/** The served resource of an object's `apiVersion` and `kind` (memoized in `entries`). */
function entryOf(
  ctx: ServerContext,
  entries: Map<string, ResourceEntry>,
  obj: JsonObject,
): ResourceEntry {
  const apiVersion = obj["apiVersion"];
  const kind = obj["kind"];
  if (typeof kind !== "string" || kind === "") throw newBadRequest("Object 'Kind' is missing");
  if (typeof apiVersion !== "string" || apiVersion === "")
    throw newBadRequest("Object 'apiVersion' is missing");
  const cacheKey = `${apiVersion}|${kind}`;
  const cached = entries.get(cacheKey);
  if (cached) return cached;
  let gv: { group: string; version: string };
  try {
    gv = parseApiVersion(apiVersion);
  } catch (err) {
    throw newBadRequest(err instanceof Error ? err.message : String(err));
  }
  const served = ctx.registry
    .servedGroups()
    .find((g) => g.name === gv.group)
    ?.versions.find((v) => v.version === gv.version)
    ?.resources.find((r) => r.kind === kind && r.verbs.includes("create"));
  const entry = served && ctx.registry.lookup(gv.group, gv.version, served.plural);
  if (!entry) throw newBadRequest(`no matches for kind "${kind}" in version "${apiVersion}"`);
  entries.set(cacheKey, entry);
  return entry;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" && value !== "" ? value : fallback;
}
