/**
 * The `Status` wire type, the typed `StatusError`, client-go's reason predicates, builders
 * that produce kube-apiserver's exact error bodies, and apimachinery's field errors.
 *
 * Builders emit objects whose JSON serialization matches kube-apiserver's byte for byte
 * (same key order, empty fields omitted) for the same inputs.
 */
import type { GroupKind, GroupResource } from "./gvk.js";
import { qualifiedKind, qualifiedResource } from "./gvk.js";

/**
 * The machine-readable reason of a failed request (metav1.StatusReason). `""` is
 * "unknown". A server may send a reason outside this list; {@link reasonOf} then falls back
 * to the HTTP code, as client-go does.
 */
export type StatusReason =
  | ""
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Invalid"
  | "ServerTimeout"
  | "StorageReadError"
  | "Timeout"
  | "TooManyRequests"
  | "BadRequest"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "InternalError"
  | "Expired"
  | "ServiceUnavailable";

/**
 * One cause of a failure. `reason` is the cause type (serialized as `reason`): a field
 * error type such as `FieldValueInvalid`, or `FieldManagerConflict`,
 * `ResourceVersionTooLarge`, `UnexpectedServerResponse`, `NamespaceTerminating`.
 */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** Extra data of a Status. `kind` holds the *resource* name (`pods`) except for Invalid, where it is the Kind. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** ListMeta of a Status; `continue` carries a fresh token on some 410 Expired list responses. */
export interface StatusMetadata {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** The `Status` object of the API (metav1.Status) as it appears on the wire. */
export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: StatusMetadata;
  status: "Success" | "Failure";
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

const KNOWN_REASONS: ReadonlySet<string> = new Set<StatusReason>([
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "AlreadyExists",
  "Conflict",
  "Gone",
  "Invalid",
  "ServerTimeout",
  "StorageReadError",
  "Timeout",
  "TooManyRequests",
  "BadRequest",
  "MethodNotAllowed",
  "NotAcceptable",
  "RequestEntityTooLarge",
  "UnsupportedMediaType",
  "InternalError",
  "Expired",
  "ServiceUnavailable",
]);

const REASON_FOR_CODE: ReadonlyMap<number, StatusReason> = new Map<number, StatusReason>([
  [400, "BadRequest"],
  [401, "Unauthorized"],
  [403, "Forbidden"],
  [404, "NotFound"],
  [405, "MethodNotAllowed"],
  [406, "NotAcceptable"],
  [409, "Conflict"],
  [410, "Gone"],
  [413, "RequestEntityTooLarge"],
  [415, "UnsupportedMediaType"],
  [422, "Invalid"],
  [429, "TooManyRequests"],
  [500, "InternalError"],
  [503, "ServiceUnavailable"],
  [504, "Timeout"],
]);

/**
 * An error carrying the server's `Status`. Its `message` is `status.message`. Every
 * predicate in this module is true only for instances of this class (wrapped errors are
 * not unwrapped).
 */
export class StatusError extends Error {
  /** The Status as received or built; treat it as read-only. */
  readonly status: Status;

  constructor(status: Status) {
    super(status.message ?? "");
    this.name = "StatusError";
    this.status = status;
  }

  /** The HTTP status code. */
  get code(): number {
    return this.status.code;
  }

  /** The reason, inferred from the code when the server sent none or an unrecognized one (see {@link reasonOf}). */
  get reason(): StatusReason {
    return reasonOf(this);
  }

  /** `details.retryAfterSeconds` when positive, else `undefined`. */
  get retryAfterSeconds(): number | undefined {
    const s = this.status.details?.retryAfterSeconds;
    return s !== undefined && s > 0 ? s : undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether `value` has the shape of a {@link Status}: `kind: "Status"`, `apiVersion: "v1"`,
 * an object `metadata`, `status` `"Success"` or `"Failure"`, and a numeric `code`. Wire
 * Statuses may omit `metadata`, `status` or `code` (a Success Status usually has no code);
 * use {@link decodeStatus} for those.
 */
export function isStatus(value: unknown): value is Status {
  return (
    isPlainObject(value) &&
    value["kind"] === "Status" &&
    value["apiVersion"] === "v1" &&
    isPlainObject(value["metadata"]) &&
    (value["status"] === "Success" || value["status"] === "Failure") &&
    typeof value["code"] === "number"
  );
}

/**
 * Reads a Status from decoded wire JSON, or returns `undefined` when `value` is not one
 * (`kind` must be `"Status"`, `apiVersion` `"v1"` or `"meta.k8s.io/v1"`, returned as `"v1"`). Fields the server
 * omitted are filled in: `code` 0, `metadata` `{}`, and `status` `"Success"` when the code
 * is 0 or 2xx, `"Failure"` otherwise. Fields of the wrong JSON type are dropped. A
 * `reason` outside {@link StatusReason} is kept as sent.
 */
export function decodeStatus(value: unknown): Status | undefined {
  if (!isPlainObject(value) || value["kind"] !== "Status") return undefined;
  const apiVersion = value["apiVersion"];
  if (apiVersion !== "v1" && apiVersion !== "meta.k8s.io/v1") return undefined;
  const code = typeof value["code"] === "number" ? value["code"] : 0;
  const sent = value["status"];
  const status: Status["status"] =
    sent === "Success" || sent === "Failure"
      ? sent
      : code === 0 || (code >= 200 && code < 300)
        ? "Success"
        : "Failure";
  const message = value["message"];
  const reason = value["reason"];
  const details = value["details"];
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: decodeMetadata(value["metadata"]),
    status,
    ...(typeof message === "string" ? { message } : {}),
    ...(typeof reason === "string" ? { reason: reason as StatusReason } : {}),
    ...(isPlainObject(details) ? { details: decodeDetails(details) } : {}),
    code,
  };
}

function decodeMetadata(value: unknown): StatusMetadata {
  const out: StatusMetadata = {};
  if (!isPlainObject(value)) return out;
  if (typeof value["resourceVersion"] === "string") out.resourceVersion = value["resourceVersion"];
  if (typeof value["continue"] === "string") out.continue = value["continue"];
  if (typeof value["remainingItemCount"] === "number") {
    out.remainingItemCount = value["remainingItemCount"];
  }
  return out;
}

function decodeDetails(value: Record<string, unknown>): StatusDetails {
  const out: StatusDetails = {};
  for (const key of ["name", "group", "kind", "uid"] as const) {
    const v = value[key];
    if (typeof v === "string") out[key] = v;
  }
  const causes = value["causes"];
  if (Array.isArray(causes)) {
    out.causes = causes.filter(isPlainObject).map((c) => {
      const cause: StatusCause = {};
      for (const key of ["reason", "message", "field"] as const) {
        const v = c[key];
        if (typeof v === "string") cause[key] = v;
      }
      return cause;
    });
  }
  if (typeof value["retryAfterSeconds"] === "number") {
    out.retryAfterSeconds = value["retryAfterSeconds"];
  }
  return out;
}

/**
 * The reason of a {@link StatusError}: its `status.reason` when that is a known reason,
 * otherwise the one client-go infers from the code (400 BadRequest, 401 Unauthorized,
 * 403 Forbidden, 404 NotFound, 405 MethodNotAllowed, 406 NotAcceptable, 409 Conflict,
 * 410 Gone, 413 RequestEntityTooLarge, 415 UnsupportedMediaType, 422 Invalid,
 * 429 TooManyRequests, 500 InternalError, 503 ServiceUnavailable, 504 Timeout), or `""`.
 * Any other value gives `""`.
 */
export function reasonOf(err: unknown): StatusReason {
  if (!(err instanceof StatusError)) return "";
  const reason = err.status.reason ?? "";
  if (KNOWN_REASONS.has(reason)) return reason;
  return REASON_FOR_CODE.get(err.status.code) ?? "";
}

/** 404: reason NotFound, or code 404 with an unknown reason. */
export function isNotFound(err: unknown): boolean {
  return reasonOf(err) === "NotFound";
}

/** 409 AlreadyExists. Like client-go this checks the reason only (a bare 409 is a Conflict). */
export function isAlreadyExists(err: unknown): boolean {
  return reasonOf(err) === "AlreadyExists";
}

/** 409: reason Conflict, or code 409 with an unknown reason. */
export function isConflict(err: unknown): boolean {
  return reasonOf(err) === "Conflict";
}

/** 422: reason Invalid, or code 422 with an unknown reason. */
export function isInvalid(err: unknown): boolean {
  return reasonOf(err) === "Invalid";
}

/** 400: reason BadRequest, or code 400 with an unknown reason. */
export function isBadRequest(err: unknown): boolean {
  return reasonOf(err) === "BadRequest";
}

/** 401: reason Unauthorized, or code 401 with an unknown reason. */
export function isUnauthorized(err: unknown): boolean {
  return reasonOf(err) === "Unauthorized";
}

/** 403: reason Forbidden, or code 403 with an unknown reason. */
export function isForbidden(err: unknown): boolean {
  return reasonOf(err) === "Forbidden";
}

/** 410 Gone (the legacy reason): reason Gone, or code 410 with an unknown reason. False for reason Expired. */
export function isGone(err: unknown): boolean {
  return reasonOf(err) === "Gone";
}

/**
 * "The resourceVersion or continue token is too old": reason Expired or Gone, or code 410
 * whatever the reason. Broader than client-go's IsResourceExpired (Expired only), because
 * clients must treat all three alike (client-go's `IsResourceExpired` and `IsGone` callers do).
 */
export function isResourceExpired(err: unknown): boolean {
  if (!(err instanceof StatusError)) return false;
  const reason = reasonOf(err);
  return reason === "Expired" || reason === "Gone" || err.status.code === 410;
}

/** 429: reason TooManyRequests, or code 429 whatever the reason (client-go's historical behaviour). */
export function isTooManyRequests(err: unknown): boolean {
  return (
    reasonOf(err) === "TooManyRequests" || (err instanceof StatusError && err.status.code === 429)
  );
}

/** 500: reason InternalError, or code 500 with an unknown reason. */
export function isInternalError(err: unknown): boolean {
  return reasonOf(err) === "InternalError";
}

/** Reason ServerTimeout (code 500). The code alone is not enough, as in client-go. */
export function isServerTimeout(err: unknown): boolean {
  return reasonOf(err) === "ServerTimeout";
}

/** 504: reason Timeout, or code 504 with an unknown reason. */
export function isTimeout(err: unknown): boolean {
  return reasonOf(err) === "Timeout";
}

/** 503: reason ServiceUnavailable, or code 503 with an unknown reason. */
export function isServiceUnavailable(err: unknown): boolean {
  return reasonOf(err) === "ServiceUnavailable";
}

/** 405: reason MethodNotAllowed, or code 405 with an unknown reason. */
export function isMethodNotSupported(err: unknown): boolean {
  return reasonOf(err) === "MethodNotAllowed";
}

/** 406: reason NotAcceptable, or code 406 with an unknown reason. */
export function isNotAcceptable(err: unknown): boolean {
  return reasonOf(err) === "NotAcceptable";
}

/** 415: reason UnsupportedMediaType, or code 415 with an unknown reason. */
export function isUnsupportedMediaType(err: unknown): boolean {
  return reasonOf(err) === "UnsupportedMediaType";
}

/** 413: reason RequestEntityTooLarge, or code 413 whatever the reason (as client-go). */
export function isRequestEntityTooLarge(err: unknown): boolean {
  return (
    reasonOf(err) === "RequestEntityTooLarge" ||
    (err instanceof StatusError && err.status.code === 413)
  );
}

const TOO_LARGE_RV_MESSAGE = "Too large resource version";

/**
 * A watch or list asked for a resourceVersion newer than the server has seen (504 with
 * cause ResourceVersionTooLarge). Like client-go's reflector it also recognizes servers
 * that lack the cause type: a Timeout whose cause message or status message contains
 * "Too large resource version". Reflectors treat this like 410 and relist.
 */
export function isTooLargeResourceVersion(err: unknown): boolean {
  if (!(err instanceof StatusError)) return false;
  const causes = err.status.details?.causes ?? [];
  if (causes.some((c) => c.reason === "ResourceVersionTooLarge")) return true;
  if (!isTimeout(err)) return false;
  if (causes.some((c) => c.message === TOO_LARGE_RV_MESSAGE)) return true;
  return (err.status.message ?? "").includes(TOO_LARGE_RV_MESSAGE);
}

/**
 * The delay in seconds the server asks the client to wait, as client-go's
 * SuggestsClientDelay: for reason ServerTimeout, `details.retryAfterSeconds` (0 when
 * absent); for any other StatusError, `details.retryAfterSeconds` when positive (429,
 * Timeout, generateName conflicts, ...). `undefined` when there is no suggestion. This
 * looks at the Status only; a `Retry-After` header is the HTTP layer's business.
 */
export function suggestsClientDelay(err: unknown): number | undefined {
  if (!(err instanceof StatusError)) return undefined;
  const details = err.status.details;
  if (details === undefined) return undefined;
  if (err.status.reason === "ServerTimeout") return details.retryAfterSeconds ?? 0;
  const s = details.retryAfterSeconds;
  return s !== undefined && s > 0 ? s : undefined;
}

// ---------------------------------------------------------------------------------------
// Builders

/**
 * A Failure `Status` error with exactly these fields, for answers no named builder covers
 * (e.g. go-restful's route misses, or reason `""` for raw storage errors). An empty message
 * or reason is omitted (Go's omitempty); details appear only when given.
 */
export function newStatusError(
  code: number,
  reason: StatusReason,
  message: string,
  statusDetails?: StatusDetails,
): StatusError {
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    ...(message !== "" ? { message } : {}),
    ...(reason !== "" ? { reason } : {}),
    ...(statusDetails !== undefined ? { details: statusDetails } : {}),
    code,
  });
}

/** Builds details in the wire key order, omitting empty strings, zero and empty lists as Go's omitempty does. */
function details(d: {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}): StatusDetails {
  const out: StatusDetails = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.causes !== undefined && d.causes.length > 0) out.causes = d.causes;
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  return out;
}

function cause(reason: string, message: string, field: string): StatusCause {
  const out: StatusCause = {};
  if (reason !== "") out.reason = reason;
  if (message !== "") out.message = message;
  if (field !== "") out.field = field;
  return out;
}

/** 404 NotFound: `pods "x" not found`, `deployments.apps "web" not found`; details {name, group, kind: resource}. */
export function newNotFound(gr: GroupResource, name: string): StatusError {
  return newStatusError(
    404,
    "NotFound",
    `${qualifiedResource(gr)} ${quoteGo(name)} not found`,
    details({ name, group: gr.group, kind: gr.resource }),
  );
}

/** 409 AlreadyExists: `pods "x" already exists`; details {name, group, kind: resource}. */
export function newAlreadyExists(gr: GroupResource, name: string): StatusError {
  return newStatusError(
    409,
    "AlreadyExists",
    `${qualifiedResource(gr)} ${quoteGo(name)} already exists`,
    details({ name, group: gr.group, kind: gr.resource }),
  );
}

/**
 * 409 AlreadyExists for a generateName collision: `pods "web-x7k2p" already exists, the
 * server was not able to generate a unique name for the object`, with
 * `details.retryAfterSeconds` (kube-apiserver uses 1 and also sends `Retry-After`).
 */
export function newGenerateNameConflict(
  gr: GroupResource,
  name: string,
  retryAfterSeconds: number,
): StatusError {
  return newStatusError(
    409,
    "AlreadyExists",
    `${qualifiedResource(gr)} ${quoteGo(name)} already exists, the server was not able to generate a unique name for the object`,
    details({ name, group: gr.group, kind: gr.resource, retryAfterSeconds }),
  );
}

/**
 * 409 Conflict: `Operation cannot be fulfilled on pods "x": <cause>`. The optimistic
 * concurrency cause is `the object has been modified; please apply your changes to the
 * latest version and try again`.
 */
export function newConflict(gr: GroupResource, name: string, cause: string): StatusError {
  return newStatusError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(gr)} ${quoteGo(name)}: ${cause}`,
    details({ name, group: gr.group, kind: gr.resource }),
  );
}

/** One field owned by another manager whose value a server-side apply would change. */
export interface ApplyConflict {
  /** The other manager's name, e.g. `kubectl`. */
  readonly manager: string;
  /** The field path as structured-merge-diff prints it, e.g. `.spec.replicas`. */
  readonly field: string;
  /** The other manager's operation; `Update` managers are printed with ` using <apiVersion>`. */
  readonly operation?: "Apply" | "Update";
  /** The API version the `Update` manager wrote with, e.g. `apps/v1`. */
  readonly apiVersion?: string;
  /** The subresource the manager wrote through, e.g. `status`. */
  readonly subresource?: string;
  /** RFC 3339 time of an `Update` manager's write, printed as ` at <time>` when given. */
  readonly time?: string;
}

/** The manager identifier structured-merge-diff groups and sorts by (a JSON ManagedFieldsEntry without fields). */
function managerIdentifier(c: ApplyConflict): string {
  const entry: Record<string, string> = { manager: c.manager };
  if (c.operation !== undefined) entry["operation"] = c.operation;
  if (c.operation === "Update" && c.apiVersion) entry["apiVersion"] = c.apiVersion;
  if (c.time) entry["time"] = c.time;
  if (c.subresource) entry["subresource"] = c.subresource;
  return JSON.stringify(entry);
}

function printManager(c: ApplyConflict): string {
  let s = quoteGo(c.manager);
  if (c.subresource) s += ` with subresource ${quoteGo(c.subresource)}`;
  if (c.operation === "Update") {
    s += ` using ${c.apiVersion ?? ""}`;
    if (c.time) s += ` at ${c.time}`;
  }
  return s;
}

/**
 * 409 Conflict from server-side apply. One conflict:
 * `Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas`.
 * Several: `Apply failed with N conflicts: conflicts with "m1":\n- .a\n- .b\nconflicts with
 * "m2":\n- .c`, managers sorted by their identifier, fields in the given order. Each
 * conflict becomes a cause `{reason: "FieldManagerConflict", message: "conflict with
 * <manager>", field}`; details carry nothing else.
 */
export function newApplyConflict(conflicts: readonly ApplyConflict[]): StatusError {
  const causes = conflicts.map((c) =>
    cause("FieldManagerConflict", `conflict with ${printManager(c)}`, c.field),
  );
  let message: string;
  const first = conflicts[0];
  if (conflicts.length === 1 && first !== undefined) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(first)}: ${first.field}`;
  } else {
    const groups = new Map<string, { printed: string; fields: string[] }>();
    for (const c of conflicts) {
      const id = managerIdentifier(c);
      const group = groups.get(id);
      if (group === undefined) groups.set(id, { printed: printManager(c), fields: [c.field] });
      else group.fields.push(c.field);
    }
    const lines: string[] = [];
    for (const id of [...groups.keys()].sort()) {
      const group = groups.get(id);
      if (group === undefined) continue;
      lines.push(`conflicts with ${group.printed}:`);
      for (const f of group.fields) lines.push(`- ${f}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
  }
  return newStatusError(409, "Conflict", message, causes.length > 0 ? { causes } : {});
}

/**
 * 422 Invalid: `Pod "x" is invalid: <error>`, `Deployment.apps "web" is invalid: [e1, e2]`
 * (duplicate messages collapse, as Go's aggregate does), or `... is invalid` with no
 * errors. Details {name, group, kind: the Kind, causes: one per error `{reason: type,
 * message: body, field}`}.
 */
export function newInvalid(
  gk: GroupKind,
  name: string,
  errors: readonly FieldError[],
): StatusError {
  const causes = errors.map((e) => cause(e.type, fieldErrorBody(e), e.field));
  const head = `${qualifiedKind(gk)} ${quoteGo(name)} is invalid`;
  const message = errors.length === 0 ? head : `${head}: ${formatFieldErrors(errors)}`;
  return newStatusError(
    422,
    "Invalid",
    message,
    details({ name, group: gk.group, kind: gk.kind, causes }),
  );
}

/** 400 BadRequest with the message verbatim. */
export function newBadRequest(message: string): StatusError {
  return newStatusError(400, "BadRequest", message);
}

/** 401 Unauthorized with the message verbatim (`not authorized` when empty; kube-apiserver sends `Unauthorized`). */
export function newUnauthorized(message: string): StatusError {
  return newStatusError(401, "Unauthorized", message === "" ? "not authorized" : message);
}

/**
 * 403 Forbidden: `pods "x" is forbidden: <cause>`; `pods is forbidden: <cause>` when the
 * name is empty (RBAC list denials); `forbidden: <cause>` when the resource is empty.
 * Details {name, group, kind: resource}.
 */
export function newForbidden(gr: GroupResource, name: string, cause: string): StatusError {
  let message: string;
  if (gr.group === "" && gr.resource === "") message = `forbidden: ${cause}`;
  else if (name === "") message = `${qualifiedResource(gr)} is forbidden: ${cause}`;
  else message = `${qualifiedResource(gr)} ${quoteGo(name)} is forbidden: ${cause}`;
  return newStatusError(
    403,
    "Forbidden",
    message,
    details({ name, group: gr.group, kind: gr.resource }),
  );
}

/** 405 MethodNotAllowed: `<action> is not supported on resources of kind "pods"`; details {group, kind: resource}. */
export function newMethodNotSupported(gr: GroupResource, action: string): StatusError {
  return newStatusError(
    405,
    "MethodNotAllowed",
    `${action} is not supported on resources of kind ${quoteGo(qualifiedResource(gr))}`,
    details({ group: gr.group, kind: gr.resource }),
  );
}

/** 410 with the legacy reason Gone (servers up to 1.17); prefer {@link newResourceExpired}. */
export function newGone(message: string): StatusError {
  return newStatusError(410, "Gone", message);
}

/**
 * 410 Expired, e.g. `The resourceVersion for the provided list is too old.` or
 * `too old resource version: 123 (456)`. Set `status.metadata.continue` on the result for
 * the inconsistent-continuation variant.
 */
export function newResourceExpired(message: string): StatusError {
  return newStatusError(410, "Expired", message);
}

/** 429 TooManyRequests with the message verbatim and `details.retryAfterSeconds` (omitted when 0). */
export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return newStatusError(429, "TooManyRequests", message, details({ retryAfterSeconds }));
}

/** 500 InternalError: `Internal error occurred: <message>`, causes `[{message}]`. */
export function newInternalError(message: string): StatusError {
  return newStatusError(
    500,
    "InternalError",
    `Internal error occurred: ${message}`,
    details({ causes: [cause("", message, "")] }),
  );
}

/** 503 ServiceUnavailable with the message verbatim, e.g. `apiserver is shutting down`. */
export function newServiceUnavailable(message: string): StatusError {
  return newStatusError(503, "ServiceUnavailable", message);
}

/**
 * 504 Timeout: `Timeout: <message>` (e.g. `request did not complete within the allotted
 * timeout`), `details.retryAfterSeconds` omitted when 0.
 */
export function newTimeout(message: string, retryAfterSeconds: number): StatusError {
  return newStatusError(504, "Timeout", `Timeout: ${message}`, details({ retryAfterSeconds }));
}

/**
 * 504 Timeout for a resourceVersion newer than the server's:
 * `Timeout: Too large resource version: 500, current: 400`, cause
 * `{reason: "ResourceVersionTooLarge", message: "Too large resource version"}`, and
 * `details.retryAfterSeconds` (kube-apiserver uses 1).
 */
export function newTooLargeResourceVersion(
  requested: string | number,
  current: string | number,
  retryAfterSeconds: number,
): StatusError {
  return newStatusError(
    504,
    "Timeout",
    `Timeout: ${TOO_LARGE_RV_MESSAGE}: ${requested}, current: ${current}`,
    details({
      causes: [cause("ResourceVersionTooLarge", TOO_LARGE_RV_MESSAGE, "")],
      retryAfterSeconds,
    }),
  );
}

/**
 * 415 UnsupportedMediaType with the message verbatim. kube-apiserver's text for patches is
 * `the body of the request was in an unknown format - accepted media types include: <types joined by ", ">`.
 */
export function newUnsupportedMediaType(message: string): StatusError {
  return newStatusError(415, "UnsupportedMediaType", message);
}

/** 413 RequestEntityTooLarge: `Request entity too large: <message>` (e.g. `limit is 3145728`). */
export function newRequestEntityTooLarge(message: string): StatusError {
  return newStatusError(413, "RequestEntityTooLarge", `Request entity too large: ${message}`);
}

/**
 * 406 NotAcceptable with the message verbatim. kube-apiserver's text is
 * `only the following media types are accepted: <types joined by ", ">`.
 */
export function newNotAcceptable(message: string): StatusError {
  return newStatusError(406, "NotAcceptable", message);
}

/**
 * 500 ServerTimeout: `The <operation> operation against pods could not be completed at this
 * time, please try again.`; details {name: operation, group, kind: resource,
 * retryAfterSeconds}.
 */
export function newServerTimeout(
  gr: GroupResource,
  operation: string,
  retryAfterSeconds: number,
): StatusError {
  return newStatusError(
    500,
    "ServerTimeout",
    `The ${operation} operation against ${qualifiedResource(gr)} could not be completed at this time, please try again.`,
    details({ name: operation, group: gr.group, kind: gr.resource, retryAfterSeconds }),
  );
}

// ---------------------------------------------------------------------------------------
// Field errors

/** The type of a field error (apimachinery field.ErrorType); it becomes the cause `reason`. */
export type FieldErrorType =
  | "FieldValueNotFound"
  | "FieldValueRequired"
  | "FieldValueDuplicate"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "InternalError"
  | "FieldValueTypeInvalid";

/**
 * A validation error on one field (apimachinery field.Error). `badValue` is printed for the
 * value-carrying types (Invalid, TypeInvalid, NotSupported, NotFound, Duplicate, TooMany);
 * leave it `undefined` to omit it (Go's omitValue). JSON `null` prints as `null`.
 */
export interface FieldError {
  readonly type: FieldErrorType;
  /** The field path, e.g. `metadata.name`, `spec.containers[0].image`, `metadata.labels[app]`. */
  readonly field: string;
  readonly badValue?: unknown;
  readonly detail?: string;
}

const FIELD_ERROR_TEXT: Readonly<Record<FieldErrorType, string>> = {
  FieldValueNotFound: "Not found",
  FieldValueRequired: "Required value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  InternalError: "Internal error",
  FieldValueTypeInvalid: "Invalid value",
};

function fieldError(
  type: FieldErrorType,
  field: string,
  badValue: unknown,
  detail: string,
): FieldError {
  const e: { type: FieldErrorType; field: string; badValue?: unknown; detail?: string } = {
    type,
    field,
  };
  if (badValue !== undefined) e.badValue = badValue;
  if (detail !== "") e.detail = detail;
  return e;
}

/** `field: Invalid value: <value>: <detail>` (field.Invalid). */
export function fieldInvalid(field: string, value: unknown, detail: string): FieldError {
  return fieldError("FieldValueInvalid", field, value, detail);
}

/** `field: Required value[: <detail>]` (field.Required). */
export function fieldRequired(field: string, detail = ""): FieldError {
  return fieldError("FieldValueRequired", field, undefined, detail);
}

/** `field: Forbidden: <detail>` (field.Forbidden). */
export function fieldForbidden(field: string, detail: string): FieldError {
  return fieldError("FieldValueForbidden", field, undefined, detail);
}

/** `field: Unsupported value: <value>: supported values: "a", "b"` (field.NotSupported); no detail when `validValues` is empty. */
export function fieldNotSupported(
  field: string,
  value: unknown,
  validValues: readonly string[],
): FieldError {
  const detail =
    validValues.length > 0 ? `supported values: ${validValues.map(quoteGo).join(", ")}` : "";
  return fieldError("FieldValueNotSupported", field, value, detail);
}

/** `field: Duplicate value: <value>` (field.Duplicate). */
export function fieldDuplicate(field: string, value: unknown): FieldError {
  return fieldError("FieldValueDuplicate", field, value, "");
}

/**
 * `field: Too long: may not be more than <n> bytes` (field.TooLong; `1 byte`; `value is too
 * long` when `maxLength` is negative). The value is never printed.
 */
export function fieldTooLong(field: string, _value: unknown, maxLength: number): FieldError {
  const detail =
    maxLength >= 0
      ? `may not be more than ${maxLength} ${maxLength === 1 ? "byte" : "bytes"}`
      : "value is too long";
  return fieldError("FieldValueTooLong", field, undefined, detail);
}

/** `field: Not found: <value>` (field.NotFound). */
export function fieldNotFound(field: string, value: unknown): FieldError {
  return fieldError("FieldValueNotFound", field, value, "");
}

/**
 * `field: Too many: <actual>: must have at most <max> items` (field.TooMany; `1 item`; the
 * actual count is omitted when negative; `has too many items` when `maxQuantity` is negative).
 */
export function fieldTooMany(
  field: string,
  actualQuantity: number,
  maxQuantity: number,
): FieldError {
  const detail =
    maxQuantity >= 0
      ? `must have at most ${maxQuantity} ${maxQuantity === 1 ? "item" : "items"}`
      : "has too many items";
  return fieldError(
    "FieldValueTooMany",
    field,
    actualQuantity >= 0 ? actualQuantity : undefined,
    detail,
  );
}

/** `field: Invalid value: <value>: <detail>` with type FieldValueTypeInvalid (field.TypeInvalid). */
export function fieldTypeInvalid(field: string, value: unknown, detail: string): FieldError {
  return fieldError("FieldValueTypeInvalid", field, value, detail);
}

/** `field: Internal error: <detail>` (field.InternalError). */
export function fieldInternalError(field: string, detail: string): FieldError {
  return fieldError("InternalError", field, undefined, detail);
}

/**
 * The error text without the field (field.Error.ErrorBody), e.g. `Invalid value: -1: must
 * be greater than or equal to 0`. Values print as Go does: strings Go-quoted (`"Foo"`),
 * numbers and booleans plain (integers without exponent; other numbers in Go's `%v` float
 * form), anything else as Go's `json.Marshal` (sorted object keys, HTML-escaped).
 */
export function fieldErrorBody(e: FieldError): string {
  let s = FIELD_ERROR_TEXT[e.type];
  switch (e.type) {
    case "FieldValueRequired":
    case "FieldValueForbidden":
    case "FieldValueTooLong":
    case "InternalError":
      break;
    default:
      if (e.badValue !== undefined) s += `: ${formatGoValue(e.badValue)}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** The full text of a field error (field.Error.Error): `<field>: <body>`. */
export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/**
 * Several field errors as Go's aggregate prints them: `""` for none, the message for one,
 * `[m1, m2]` for more; repeated messages appear once.
 */
export function formatFieldErrors(errors: readonly FieldError[]): string {
  const messages = [...new Set(errors.map(formatFieldError))];
  if (messages.length === 0) return "";
  if (messages.length === 1) return messages[0] ?? "";
  return `[${messages.join(", ")}]`;
}

// ---------------------------------------------------------------------------------------
// Go value formatting

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const NAMED_ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x07, "\\a"],
  [0x08, "\\b"],
  [0x0c, "\\f"],
  [0x0a, "\\n"],
  [0x0d, "\\r"],
  [0x09, "\\t"],
  [0x0b, "\\v"],
]);

/**
 * Quotes a string as Go's `%q` / strconv.Quote does: `"` and `\` escaped, printable
 * characters kept, `\n`-style escapes for control characters, `\xNN` for other ASCII
 * controls, `\uNNNN` / `\UNNNNNNNN` for other non-printable characters. Lone surrogates
 * print as U+FFFD (Go strings cannot hold them).
 */
export function quoteGo(value: string): string {
  let out = '"';
  for (const ch of value) {
    let cp = ch.codePointAt(0) ?? 0xfffd;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    const c = String.fromCodePoint(cp);
    if (c === '"' || c === "\\") {
      out += `\\${c}`;
    } else if (PRINTABLE.test(c)) {
      out += c;
    } else {
      const named = NAMED_ESCAPES.get(cp);
      if (named !== undefined) out += named;
      else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
      else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
      else out += `\\U${cp.toString(16).padStart(8, "0")}`;
    }
  }
  return `${out}"`;
}

/** Go's `%v` of a float64: shortest digits, exponent form when the decimal exponent is < -4 or >= 6 (strconv 'g', shortest). */
function formatGoFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "+Inf" : "-Inf";
  const [mantissa = "0", expText = "0"] = n.toExponential().split("e");
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return String(n);
}

/** Formats a bad value as field.Error.ErrorBody does. */
function formatGoValue(value: unknown): string {
  if (typeof value === "string") return quoteGo(value);
  if (typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (typeof value === "number") {
    return Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : formatGoFloat(value);
  }
  return marshalGoJson(value);
}

/** JSON as Go's encoding/json writes it: HTML-safe string escapes, map keys sorted. */
function marshalGoJson(value: unknown): string {
  if (value === null || value === undefined || typeof value === "function") return "null";
  if (typeof value === "string") {
    return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => {
      return `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`;
    });
  }
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
  if (typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (Array.isArray(value)) return `[${value.map(marshalGoJson).join(",")}]`;
  if (typeof value === "object") {
    const withJson = value as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === "function") return marshalGoJson(withJson.toJSON());
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${marshalGoJson(k)}:${marshalGoJson(record[k])}`).join(",")}}`;
  }
  return "null";
}
