import type { IncomingMessage, ServerResponse } from "node:http";
import {
  applyJsonPatch,
  JsonPatchError,
  JsonPatchTooLargeError,
  type JsonObject,
  type JsonValue,
  applyMergePatch,
  newBadRequest,
  newInvalid,
  newRequestEntityTooLarge,
  newStatusError,
  newUnsupportedMediaType,
  applyStrategicMergePatch,
  StrategicMergePatchError,
} from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";
import { encodeList, encodeObject } from "../encoding/object-encoding.js";
import { parseContentType } from "../encoding/media-type.js";
import { negotiateOutput } from "../encoding/output-format.js";
import { checkFieldSelector, parseListOptions } from "./list-options.js";
import { listObjects } from "./read-verbs.js";
import type { ResourceEntry } from "../registry/registry.js";
import {
  decodeObjectBody,
  parseJsonBody,
  parseYamlBody,
  readBody,
} from "../encoding/request-body.js";
import { messageNameOf } from "../registry/served-entry.js";
import { ResourceOperations } from "../store/resource-operations.js";
import { sendBody, sendJson, setWarnings } from "./responses.js";
import { fromScale, toScale } from "./scale-subresource.js";
import type { ServerContext } from "../server/server-context.js";
import { parseDeleteOptions, parseWriteOptions } from "./write-options.js";
import type { VerbRequest } from "./verb-request.js";

/** kube-apiserver's limit on JSON Patch operations. */
const MAX_JSON_PATCH_OPERATIONS = 10_000;

const PATCH_TYPES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
];

/** The body as an object, or kube-apiserver's 400 for any other JSON value. */
export function requireObject(value: JsonValue): JsonObject {
  if (!isJsonObject(value)) throw newBadRequest("the body of the request must be a JSON object");
  return value;
}

function respond(
  ctx: ServerContext,
  entry: ResourceEntry,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
  code: number,
  obj: JsonObject,
  warnings: readonly string[],
): void {
  setWarnings(res, warnings);
  const format = negotiateOutput(req.headers.accept, query.get("includeObject"), false);
  const { body, contentType } = encodeObject(entry, obj, format, ctx.clock.now());
  sendBody(res, code, body, contentType);
}

function respondRaw(
  res: ServerResponse,
  code: number,
  value: unknown,
  warnings: readonly string[] = [],
): void {
  setWarnings(res, warnings);
  sendJson(res, code, value);
}

/** POST on a collection. */
export async function handleCreate(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, req, res, query } = request;
  const body = await readBody(req, ctx);
  const opts = parseWriteOptions(query, req, "CreateOptions", false);
  const obj = requireObject(decodeObjectBody(req.headers["content-type"], body));
  const created = new ResourceOperations(ctx).create(entry, namespace, obj, opts);
  respond(ctx, entry, req, res, query, 201, created, opts.warnings);
}

/** PUT on an object or its status. */
export async function handleUpdate(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, name, subresource, req, res, query } = request;
  const body = await readBody(req, ctx);
  const opts = parseWriteOptions(query, req, "UpdateOptions", false);
  const obj = requireObject(decodeObjectBody(req.headers["content-type"], body));
  const ops = new ResourceOperations(ctx);
  if (subresource === "scale") {
    const parent = ops.getExisting(entry, namespace, name);
    const { object } = ops.update(entry, namespace, name, fromScale(entry, parent, obj), {
      ...opts,
      subresource: "",
      managedSubresource: "scale",
      isPatch: false,
    });
    respondRaw(res, 200, toScale(entry, object), opts.warnings);
    return;
  }
  const result = ops.update(entry, namespace, name, obj, {
    ...opts,
    subresource: subresource === "finalize" ? "" : subresource,
    isPatch: false,
  });
  respond(ctx, entry, req, res, query, result.created ? 201 : 200, result.object, opts.warnings);
}

function applyPatchDocument(
  entry: ResourceEntry,
  patchType: string,
  current: JsonObject,
  raw: Buffer,
  messageName: string | undefined,
): JsonObject {
  try {
    switch (patchType) {
      case "application/json-patch+json":
        return requireObject(
          applyJsonPatch(current, parseJsonBody(raw), { maxOperations: MAX_JSON_PATCH_OPERATIONS }),
        );
      case "application/merge-patch+json":
        return requireObject(applyMergePatch(current, parseJsonBody(raw)));
      default:
        return applyStrategicMergePatch(current, requireObject(parseJsonBody(raw)), messageName);
    }
  } catch (err) {
    if (err instanceof JsonPatchTooLargeError) {
      throw newRequestEntityTooLarge(
        `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${err.operationCount}`,
      );
    }
    if (err instanceof JsonPatchError) {
      if (err.kind === "malformed") throw newBadRequest(err.message);
      // applyJSPatch's generic 422: no name/group/kind, one UnexpectedServerResponse cause.
      throw newStatusError(
        422,
        "Invalid",
        "the server rejected our request due to an error in our request",
        {
          causes: [{ reason: "UnexpectedServerResponse", message: err.detail }],
        },
      );
    }
    if (err instanceof StrategicMergePatchError) {
      if (err.kind === "malformed") throw newBadRequest(err.message);
      throw newInvalid(
        { group: entry.info.group, kind: entry.info.kind },
        String(metadataOf(current)?.["name"] ?? ""),
        [{ type: "FieldValueInvalid", field: err.path, detail: err.detail }],
      );
    }
    throw err;
  }
}

function parseApplyBody(raw: Buffer): JsonObject {
  const value = parseYamlBody(raw);
  if (!isJsonObject(value))
    throw newBadRequest("error decoding YAML: the apply configuration is not an object");
  return value;
}

/** The patch type of a PATCH (415 unless one the resource accepts: no strategic merge for custom resources). */
function patchTypeOf(entry: ResourceEntry, req: IncomingMessage): string {
  const patchType = req.headers["content-type"]
    ? parseContentType(req.headers["content-type"]).mediaType
    : "";
  if (
    !PATCH_TYPES.includes(patchType) ||
    (patchType === "application/strategic-merge-patch+json" && entry.info.custom)
  ) {
    const accepted = entry.info.custom
      ? PATCH_TYPES.filter((t) => !t.startsWith("application/strategic"))
      : PATCH_TYPES;
    throw newUnsupportedMediaType(
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
    );
  }
  return patchType;
}

/** PATCH on an object, its status, or its scale. */
export async function handlePatch(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, name, subresource, req, res, query } = request;
  const raw = await readBody(req, ctx);
  const patchType = patchTypeOf(entry, req);
  const isApply = patchType === "application/apply-patch+yaml";
  const opts = parseWriteOptions(query, req, "PatchOptions", isApply);
  const ops = new ResourceOperations(ctx);
  if (subresource === "scale") {
    // The Scale view is patched, then written to its parent as the parent's own update.
    const parent = ops.getExisting(entry, namespace, name);
    const scale = toScale(entry, parent);
    const patched = isApply
      ? { ...scale, ...parseApplyBody(raw) }
      : applyPatchDocument(entry, patchType, scale, raw, "k8s.io.api.autoscaling.v1.Scale");
    const { object } = ops.update(entry, namespace, name, fromScale(entry, parent, patched), {
      ...opts,
      subresource: "",
      managedSubresource: "scale",
      isPatch: true,
    });
    respondRaw(res, 200, toScale(entry, object), opts.warnings);
    return;
  }
  if (isApply) {
    const applied = parseApplyBody(raw);
    const result = ops.apply(entry, namespace, name, applied, { ...opts, subresource });
    respond(ctx, entry, req, res, query, result.created ? 201 : 200, result.object, opts.warnings);
    return;
  }
  const current = ops.getExisting(entry, namespace, name);
  const patched = applyPatchDocument(entry, patchType, current, raw, messageNameOf(entry));
  const { object } = ops.update(entry, namespace, name, patched, {
    ...opts,
    subresource,
    isPatch: true,
  });
  respond(ctx, entry, req, res, query, 200, object, opts.warnings);
}

function deleteSuccessStatus(entry: ResourceEntry, obj: JsonObject): JsonObject {
  const meta = metadataOf(obj) ?? {};
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Success",
    details: {
      name: meta["name"] ?? "",
      ...(entry.info.group ? { group: entry.info.group } : {}),
      kind: entry.info.plural,
      uid: meta["uid"] ?? "",
    },
  };
}

/** DELETE on an object. */
export async function handleDelete(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, name, req, res, query } = request;
  const body = await readBody(req, ctx);
  const opts = parseDeleteOptions(query, body);
  const result = new ResourceOperations(ctx).delete(entry, namespace, name, opts);
  if (result.removed && !entry.policy.deleteReturnsObject) {
    respondRaw(res, 200, deleteSuccessStatus(entry, result.object));
    return;
  }
  respond(
    ctx,
    entry,
    req,
    res,
    query,
    !result.removed && opts.orphanDependents === false ? 202 : 200,
    result.object,
    [],
  );
}

/** DELETE on a collection: each matching object is deleted individually; the answer lists them as they were. */
export async function handleDeleteCollection(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, req, res, query } = request;
  const body = await readBody(req, ctx);
  const opts = parseDeleteOptions(query, body);
  const listOpts = parseListOptions(query, false, ctx.behaviour.watchList);
  checkFieldSelector(entry, listOpts.fieldSelector);
  const { items } = listObjects(ctx, entry, namespace, {
    ...listOpts,
    limit: 0,
    continueToken: undefined,
  });
  const ops = new ResourceOperations(ctx);
  for (const item of items) {
    const meta = metadataOf(item) ?? {};
    ops.delete(entry, String(meta["namespace"] ?? ""), String(meta["name"]), opts);
  }
  const format = negotiateOutput(req.headers.accept, query.get("includeObject"), true);
  const { body: text, contentType } = encodeList(
    entry,
    items,
    { resourceVersion: String(ctx.storage.currentRevision) },
    format,
    ctx.clock.now(),
  );
  sendBody(res, 200, text, contentType);
}
