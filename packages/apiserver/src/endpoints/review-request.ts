/**
 * The request and response of the create-only virtual resources (the access reviews and
 * SelfSubjectReview): kube-apiserver serves them with `rest.Creater`s that store nothing
 * (`pkg/registry/authorization/*review/rest.go`, `pkg/registry/authentication/selfsubjectreview/rest.go`)
 * behind the generic create handler (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go`),
 * which decodes and type-checks the body, records managedFields and answers 201 Created.
 */
import type { JsonObject, JsonValue } from "kubekit";
import { formatTime, metadataOf } from "kubekit/apimachinery";
import { managedFieldsAfterUpdate } from "../apply/field-manager.js";
import { encodeObject } from "../encoding/object-encoding.js";
import { negotiateOutput } from "../encoding/output-format.js";
import { decodeObjectBody, readBody } from "../encoding/request-body.js";
import { withTypeMeta } from "../registry/served-entry.js";
import { checkNamespace, checkTypeMeta, checkTypes } from "../store/write-phases.js";
import { sendBody, setWarnings } from "./responses.js";
import type { VerbRequest } from "./verb-request.js";
import { parseWriteOptions } from "./write-options.js";
import { requireObject } from "./write-verbs.js";

/** A decoded review body and what the response needs from the request. */
export interface ReviewRequest {
  /**
   * The body with its namespace set as the create handler sets it: the request's namespace
   * for a namespaced resource, none for a cluster-scoped one.
   */
  readonly review: JsonObject;
  /** The field manager the create handler records (`fieldManager`, or the User-Agent). */
  readonly fieldManager: string;
  /** `Warning` header texts collected while reading the options. */
  readonly warnings: readonly string[];
}

/**
 * Reads a review body as the create handler does: CreateOptions (422 for bad values), the
 * body decoded by Content-Type (400 when malformed or not an object), apiVersion/kind
 * matching the endpoint and typed decoding (400), and a namespace in the body that differs
 * from the request's (400, namespaced resources only).
 */
export async function readReview(request: VerbRequest): Promise<ReviewRequest> {
  const { ctx, entry, namespace, req, query } = request;
  const raw = await readBody(req, ctx);
  const options = parseWriteOptions(query, req, "CreateOptions", false);
  const body = requireObject(decodeObjectBody(req.headers["content-type"], raw));
  checkTypeMeta(entry, body);
  checkTypes(entry, body);
  checkNamespace(entry, namespace, body);
  // `rest.EnsureObjectNamespaceMatchesRequestNamespace`: an empty namespace takes the
  // request's; a cluster-scoped object's namespace is cleared.
  const { namespace: _ignored, ...meta } = metadataOf(body) ?? {};
  const review: JsonObject = {
    ...body,
    metadata: entry.info.namespaced ? { ...meta, namespace } : meta,
  };
  return { review, fieldManager: options.fieldManager, warnings: options.warnings };
}

/**
 * The managedFields the create handler's field manager gives the echoed review: one Update
 * entry of the request's manager owning every field the body set.
 */
export function reviewManagedFields(request: VerbRequest, read: ReviewRequest): JsonValue {
  const { ctx, entry } = request;
  return managedFieldsAfterUpdate(entry, undefined, read.review, [], {
    manager: read.fieldManager,
    subresource: "",
    time: formatTime(ctx.clock.now()),
  }) as unknown as JsonValue;
}

/**
 * Answers 201 Created with the review (apiVersion and kind first), in the format the
 * request's Accept negotiates, with the collected warnings.
 */
export function sendReview(request: VerbRequest, read: ReviewRequest, response: JsonObject): void {
  const { ctx, entry, req, res, query } = request;
  setWarnings(res, read.warnings);
  const format = negotiateOutput(req.headers.accept, query.get("includeObject"), false);
  const { body, contentType } = encodeObject(
    entry,
    withTypeMeta(entry, response),
    format,
    ctx.clock.now(),
  );
  sendBody(res, 201, body, contentType);
}
