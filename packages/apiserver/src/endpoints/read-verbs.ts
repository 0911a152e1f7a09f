import {
  type JsonObject,
  newBadRequest,
  newNotFound,
  newResourceExpired,
  newTooLargeResourceVersion,
} from "kubekit";
import { sendList, type ListItem } from "../encoding/list-encoding.js";
import { encodeObject, type ListMeta } from "../encoding/object-encoding.js";
import {
  checkFieldSelector,
  decodeContinue,
  encodeContinue,
  objectFilter,
  parseListOptions,
  type ListOptions,
} from "./list-options.js";
import {
  convertsThroughWebhook,
  customResourcesFromStorageAsync,
  readConversionOf,
} from "../store/custom-resource-versions.js";
import { negotiateOutput } from "../encoding/output-format.js";
import type { ResourceEntry } from "../registry/registry.js";
import { groupResource, storageKey } from "../registry/served-entry.js";
import { ResourceOperations } from "../store/resource-operations.js";
import type { ServerContext } from "../server/server-context.js";
import { RevisionCompactedError, type StorageRange } from "../storage/storage.js";
import type { VerbRequest } from "./verb-request.js";
import { sendBody } from "./responses.js";

/**
 * Waits until the server's revision reaches `rv`, like kube-apiserver's watch cache does for
 * a resourceVersion newer than it has seen, then answers 504 with ResourceVersionTooLarge.
 */
export async function awaitRevision(ctx: ServerContext, rv: number): Promise<void> {
  if (rv <= ctx.storage.currentRevision) return;
  await new Promise<void>((resolve, reject) => {
    const timer = ctx.clock.setTimer(ctx.behaviour.tooLargeResourceVersionWaitMs, () => {
      unsubscribe();
      reject(newTooLargeResourceVersion(String(rv), String(ctx.storage.currentRevision), 1));
    });
    const unsubscribe = ctx.storage.subscribe((event) => {
      if (event.rv >= rv) {
        timer.cancel();
        unsubscribe();
        resolve();
      }
    });
  });
}

/** GET on an object. */
export async function handleGet(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, name, req, res, query } = request;
  const format = negotiateOutput(req.headers.accept, query.get("includeObject"), false);
  const rv = query.get("resourceVersion");
  if (rv && !/^\d+$/.test(rv)) throw newBadRequest(`invalid resource version: ${rv}`);
  if (rv && rv !== "0") await awaitRevision(ctx, Number(rv));
  if (format.kind === "json" && !readConversionOf(ctx.registry, entry)) {
    // Served as stored: the stored bytes themselves.
    const json = ctx.storage.getJson(entry.storageId, storageKey(entry, namespace, name));
    if (!json) throw newNotFound(groupResource(entry), name);
    sendStored(res, json);
    return;
  }
  const obj = convertsThroughWebhook(entry)
    ? await getThroughWebhook(ctx, entry, namespace, name)
    : new ResourceOperations(ctx).getExisting(entry, namespace, name);
  const { body, contentType } = encodeObject(entry, obj, format, ctx.clock.now());
  sendBody(res, 200, body, contentType);
}

/** Sends an object's stored JSON as a 200 response (with the newline kube's serializer ends it with). */
function sendStored(res: VerbRequest["res"], json: Buffer): void {
  res.writeHead(200, { "Content-Type": "application/json", "Content-Length": json.length + 1 });
  res.write(json);
  res.end("\n");
}

/** A stored custom resource converted by its CRD's conversion webhook, or a 404 NotFound. */
async function getThroughWebhook(
  ctx: ServerContext,
  entry: ResourceEntry,
  namespace: string,
  name: string,
): Promise<JsonObject> {
  const stored = ctx.storage.get(entry.storageId, storageKey(entry, namespace, name));
  if (!stored) throw newNotFound(groupResource(entry), name);
  const [obj] = await customResourcesFromStorageAsync(ctx, entry, [stored]);
  return obj ?? stored;
}

/**
 * Objects of a list request, paginated, with the list metadata to return. Items are the
 * stored bytes when they are served as stored (parsed only to match selectors), objects when
 * they are converted for the request. `asStored` keeps every item as stored (to convert them
 * afterwards through a conversion webhook). Collects only the page (`limit`), however old
 * the snapshot revision (see `Storage.rangeJson`).
 */
export function listObjects(
  ctx: ServerContext,
  entry: ResourceEntry,
  namespace: string,
  opts: ListOptions,
  asStored = false,
): { items: ListItem[]; listMeta: ListMeta } {
  const storage = ctx.storage;
  let snapshotRv = storage.currentRevision;
  let startAfter: string | undefined;
  let expiredMessage = "The resourceVersion for the provided list is too old.";
  if (opts.continueToken) {
    const token = decodeContinue(opts.continueToken);
    startAfter = token.startAfter;
    snapshotRv = token.rv;
    expiredMessage =
      "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.";
  } else if (
    opts.resourceVersion !== undefined &&
    opts.resourceVersion !== "0" &&
    (opts.resourceVersionMatch === "Exact" ||
      (opts.resourceVersionMatch === undefined && opts.limit > 0))
  ) {
    snapshotRv = Number(opts.resourceVersion);
  }
  let range: StorageRange<Buffer>;
  try {
    // A namespaced list reads only that namespace's key range.
    range = storage.rangeJson(
      entry.storageId,
      snapshotRv,
      namespace === "" ? "" : `${namespace}/`,
      startAfter,
    );
  } catch (err) {
    if (err instanceof RevisionCompactedError) throw newResourceExpired(expiredMessage);
    throw err;
  }
  const fromStorage = asStored ? undefined : readConversionOf(ctx.registry, entry);
  const unfiltered = opts.labelSelector.isEmpty() && opts.fieldSelector.isEmpty();
  // The key range holds only the namespace's objects: without selectors nothing is parsed.
  const filter = unfiltered ? undefined : objectFilter(entry, namespace, opts);
  const items: ListItem[] = [];
  let lastKey: string | undefined;
  let more = false;
  for (const [key, json] of range.entries) {
    const parsed = filter || fromStorage || asStored ? storage.parse(json, false) : undefined;
    if (filter && !filter(parsed as JsonObject)) continue;
    if (opts.limit > 0 && items.length >= opts.limit) {
      more = true;
      break;
    }
    items.push(
      fromStorage ? fromStorage(parsed as JsonObject) : asStored ? (parsed as JsonObject) : json,
    );
    lastKey = key;
  }
  const listMeta: ListMeta = {
    resourceVersion: String(snapshotRv),
    ...(more && lastKey !== undefined ? { continue: encodeContinue(snapshotRv, lastKey) } : {}),
    ...(more && unfiltered && lastKey !== undefined
      ? { remainingItemCount: range.countAfter(lastKey) }
      : {}),
  };
  return { items, listMeta };
}

/** GET on a collection. */
export async function handleList(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, req, res, query } = request;
  const opts = parseListOptions(query, false, ctx.behaviour.watchList);
  checkFieldSelector(entry, opts.fieldSelector);
  const format = negotiateOutput(req.headers.accept, query.get("includeObject"), true);
  if (opts.resourceVersion !== undefined && opts.resourceVersion !== "0" && !opts.continueToken) {
    await awaitRevision(ctx, Number(opts.resourceVersion));
  }
  const throughWebhook = convertsThroughWebhook(entry);
  const listed = listObjects(ctx, entry, namespace, opts, throughWebhook);
  const { listMeta } = listed;
  const parse = (json: Buffer): JsonObject => ctx.storage.parse(json, false);
  // One ConversionReview for the whole page.
  const items = throughWebhook
    ? await customResourcesFromStorageAsync(ctx, entry, listed.items.map(objectOf(parse)), {
        list: true,
      })
    : listed.items;
  await sendList(res, entry, items, listMeta, format, ctx.clock.now(), parse);
}

/** The object of a list item: stored bytes are parsed with `parse`. */
export function objectOf(parse: (json: Buffer) => JsonObject): (item: ListItem) => JsonObject {
  return (item) => (Buffer.isBuffer(item) ? parse(item) : item);
}
