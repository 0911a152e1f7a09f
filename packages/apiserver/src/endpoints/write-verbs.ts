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
  StatusError,
} from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";
import { sendList } from "../encoding/list-encoding.js";
import { encodeObject } from "../encoding/object-encoding.js";
import { parseContentType } from "../encoding/media-type.js";
import { negotiateOutput } from "../encoding/output-format.js";
import { checkFieldSelector, parseListOptions } from "./list-options.js";
import { listObjects, objectOf } from "./read-verbs.js";
import type { ResourceEntry } from "../registry/registry.js";
import {
  decodeObjectBody,
  parseJsonBody,
  parseYamlBody,
  readBody,
} from "../encoding/request-body.js";
import { messageNameOf } from "../registry/served-entry.js";
import { admissionChainOf } from "../admission/admission-chain.js";
import type { AdmissionOperation } from "../admission/admission-attributes.js";
import { deleteOptionsFor, writeOptionsFor } from "../admission/request-options.js";
import type { AdmissionRequest } from "../store/admission-steps.js";
import { ResourceOperations, type AdmissionView } from "../store/resource-operations.js";
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

/** The admission of a request: the server's chain, the requester, the options sent to webhooks. */
function admissionOf(
  request: VerbRequest,
  warnings: string[],
  optionsFor: (operation: AdmissionOperation) => JsonObject,
): AdmissionRequest {
  return { chain: admissionChainOf(request.ctx), userInfo: request.user, optionsFor, warnings };
}

/**
 * Runs a write, sending the warnings gathered so far (admission's included) with its error
 * when it fails: kube answers a denied request with the webhooks' `Warning` headers too.
 */
async function withWarnings<T>(
  res: ServerResponse,
  warnings: readonly string[],
  write: () => T | Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    setWarnings(res, warnings);
    throw err;
  }
}

/** POST on a collection. */
export async function handleCreate(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, req, res, query } = request;
  const body = await readBody(req, ctx);
  const opts = parseWriteOptions(query, req, "CreateOptions", false);
  const obj = requireObject(decodeObjectBody(req.headers["content-type"], body));
  const admission = admissionOf(request, opts.warnings, writeOptionsFor(query));
  const created = await withWarnings(res, opts.warnings, () =>
    new ResourceOperations(ctx).createAdmitted(entry, namespace, obj, opts, admission),
  );
  respond(ctx, entry, req, res, query, 201, created, opts.warnings);
}

/** What admission sees of a scale write: the autoscaling/v1 Scale (kube admits the Scale object). */
function scaleView(entry: ResourceEntry): AdmissionView {
  return {
    subresource: "scale",
    toView: (obj) => toScale(entry, obj),
    fromView: (view, obj) => fromScale(entry, obj, view),
  };
}

/** PUT on an object or its status. */
export async function handleUpdate(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, name, subresource, req, res, query } = request;
  const body = await readBody(req, ctx);
  const opts = parseWriteOptions(query, req, "UpdateOptions", false);
  const obj = requireObject(decodeObjectBody(req.headers["content-type"], body));
  const ops = new ResourceOperations(ctx);
  const admission = admissionOf(request, opts.warnings, writeOptionsFor(query));
  if (subresource === "scale") {
    const { object } = await withWarnings(res, opts.warnings, () =>
      ops.updateAdmitted(
        entry,
        namespace,
        name,
        (parent) => fromScale(entry, parent, obj),
        {
          ...opts,
          subresource: "",
          managedSubresource: "scale",
          isPatch: false,
          admissionView: scaleView(entry),
        },
        admission,
      ),
    );
    respondRaw(res, 200, toScale(entry, object), opts.warnings);
    return;
  }
  const result = await withWarnings(res, opts.warnings, () =>
    ops.updateAdmitted(
      entry,
      namespace,
      name,
      obj,
      { ...opts, subresource: subresource === "finalize" ? "" : subresource, isPatch: false },
      admission,
    ),
  );
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

/** PATCH on the scale subresource: the Scale view is patched, then written to its parent. */
async function patchScale(
  request: VerbRequest,
  patchType: string,
  raw: Buffer,
  opts: ReturnType<typeof parseWriteOptions>,
): Promise<void> {
  const { ctx, entry, namespace, name, res, query } = request;
  const isApply = patchType === "application/apply-patch+yaml";
  const patch = (parent: JsonObject): JsonObject => {
    const scale = toScale(entry, parent);
    const patched = isApply
      ? { ...scale, ...parseApplyBody(raw) }
      : applyPatchDocument(entry, patchType, scale, raw, "k8s.io.api.autoscaling.v1.Scale");
    return fromScale(entry, parent, patched);
  };
  const admission = admissionOf(request, opts.warnings, writeOptionsFor(query));
  const { object } = await withWarnings(res, opts.warnings, () =>
    new ResourceOperations(ctx).updateAdmitted(
      entry,
      namespace,
      name,
      patch,
      {
        ...opts,
        subresource: "",
        managedSubresource: "scale",
        isPatch: true,
        admissionView: scaleView(entry),
      },
      admission,
    ),
  );
  respondRaw(res, 200, toScale(entry, object), opts.warnings);
}

/** PATCH on an object, its status, or its scale. */
export async function handlePatch(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, name, subresource, req, res, query } = request;
  const raw = await readBody(req, ctx);
  const patchType = patchTypeOf(entry, req);
  const isApply = patchType === "application/apply-patch+yaml";
  const opts = parseWriteOptions(query, req, "PatchOptions", isApply);
  if (subresource === "scale") return patchScale(request, patchType, raw, opts);
  const ops = new ResourceOperations(ctx);
  const admission = admissionOf(request, opts.warnings, writeOptionsFor(query));
  if (isApply) {
    const applied = parseApplyBody(raw);
    const result = await withWarnings(res, opts.warnings, () =>
      ops.applyAdmitted(entry, namespace, name, applied, { ...opts, subresource }, admission),
    );
    respond(ctx, entry, req, res, query, result.created ? 201 : 200, result.object, opts.warnings);
    return;
  }
  const patch = (current: JsonObject): JsonObject =>
    applyPatchDocument(entry, patchType, current, raw, messageNameOf(entry));
  const { object } = await withWarnings(res, opts.warnings, () =>
    ops.updateAdmitted(
      entry,
      namespace,
      name,
      patch,
      { ...opts, subresource, isPatch: true },
      admission,
    ),
  );
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
  const warnings: string[] = [];
  const admission = admissionOf(request, warnings, deleteOptionsFor(opts));
  const result = await withWarnings(res, warnings, () =>
    new ResourceOperations(ctx).deleteAdmitted(entry, namespace, name, opts, admission),
  );
  if (result.removed && !entry.policy.deleteReturnsObject) {
    respondRaw(res, 200, deleteSuccessStatus(entry, result.object), warnings);
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
    warnings,
  );
}

/** DELETE on a collection: each matching object is deleted individually; the answer lists them as they were. */
export async function handleDeleteCollection(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, req, res, query } = request;
  const body = await readBody(req, ctx);
  const opts = parseDeleteOptions(query, body);
  const listOpts = parseListOptions(query, false, ctx.behaviour.watchList);
  checkFieldSelector(entry, listOpts.fieldSelector);
  const parse = (json: Buffer): JsonObject => ctx.storage.parse(json, false);
  const items = listObjects(ctx, entry, namespace, {
    ...listOpts,
    limit: 0,
    continueToken: undefined,
  }).items.map(objectOf(parse));
  const ops = new ResourceOperations(ctx);
  const warnings: string[] = [];
  const admission = admissionOf(request, warnings, deleteOptionsFor(opts));
  await withWarnings(res, warnings, async () => {
    for (const item of items) {
      const meta = metadataOf(item) ?? {};
      const itemNamespace = String(meta["namespace"] ?? "");
      // An item deleted meanwhile (while another was admitted) is skipped, as kube's store does.
      try {
        await ops.deleteAdmitted(entry, itemNamespace, String(meta["name"]), opts, admission);
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
  });
  setWarnings(res, warnings);
  const format = negotiateOutput(req.headers.accept, query.get("includeObject"), true);
  const listMeta = { resourceVersion: String(ctx.storage.currentRevision) };
  await sendList(res, entry, items, listMeta, format, ctx.clock.now(), parse);
}
