/**
 * The `Status` wire type (metav1.Status), the typed `StatusError` that carries it, and
 * client-go's reason predicates (`staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go`).
 *
 * The builders that produce kube-apiserver's error bodies are in `status-builders.ts`; field
 * errors in `field-errors.ts`.
 */
import { isJsonObject } from "./json.js";

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

/**
 * Whether `value` has the shape of a {@link Status}: `kind: "Status"`, `apiVersion: "v1"`,
 * an object `metadata`, `status` `"Success"` or `"Failure"`, and a numeric `code`. Wire
 * Statuses may omit `metadata`, `status` or `code` (a Success Status usually has no code);
 * kubekit's REST layer decodes those too (`decodeStatus`, internal).
 */
export function isStatus(value: unknown): value is Status {
  return (
    isJsonObject(value) &&
    value["kind"] === "Status" &&
    value["apiVersion"] === "v1" &&
    isJsonObject(value["metadata"]) &&
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
  if (!isJsonObject(value) || value["kind"] !== "Status") return undefined;
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
    ...(isJsonObject(details) ? { details: decodeDetails(details) } : {}),
    code,
  };
}

function decodeMetadata(value: unknown): StatusMetadata {
  const out: StatusMetadata = {};
  if (!isJsonObject(value)) return out;
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
    out.causes = causes.filter(isJsonObject).map((c) => {
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
 * The first {@link StatusError} in `err`, looking through `Error.cause` chains and the
 * `errors` of an `AggregateError` depth first (as apimachinery's `pkg/api/errors/errors.go`
 * finds the `APIStatus` with `errors.As`, which follows `Unwrap`): a `TerminalError` or any
 * wrapper built with `{ cause }` answers the predicates as the error it wraps. Cycles end
 * the search.
 */
function statusErrorIn(err: unknown, seen = new Set<unknown>()): StatusError | undefined {
  if (err instanceof StatusError) return err;
  if (!(err instanceof Error) || seen.has(err)) return undefined;
  seen.add(err);
  if (err instanceof AggregateError) {
    for (const inner of err.errors as unknown[]) {
      const found = statusErrorIn(inner, seen);
      if (found !== undefined) return found;
    }
  }
  return statusErrorIn(err.cause, seen);
}

/**
 * The reason of the {@link StatusError} in `err` (itself, or one found through its `cause`
 * chain and `AggregateError` members, as `errors.As` finds it in Go; every predicate below
 * looks the same way): its `status.reason` when that is a known reason, otherwise the one
 * client-go infers from the code (400 BadRequest, 401 Unauthorized, 403 Forbidden,
 * 404 NotFound, 405 MethodNotAllowed, 406 NotAcceptable, 409 Conflict, 410 Gone,
 * 413 RequestEntityTooLarge, 415 UnsupportedMediaType, 422 Invalid, 429 TooManyRequests,
 * 500 InternalError, 503 ServiceUnavailable, 504 Timeout), or `""`. Any other value gives `""`.
 */
export function reasonOf(err: unknown): StatusReason {
  const status = statusErrorIn(err)?.status;
  if (status === undefined) return "";
  const reason = status.reason ?? "";
  if (KNOWN_REASONS.has(reason)) return reason;
  return REASON_FOR_CODE.get(status.code) ?? "";
}

/** The HTTP code of the {@link StatusError} in `err` (see {@link reasonOf}), or `undefined`. */
function codeOf(err: unknown): number | undefined {
  return statusErrorIn(err)?.status.code;
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
  const reason = reasonOf(err);
  return reason === "Expired" || reason === "Gone" || codeOf(err) === 410;
}

/** 429: reason TooManyRequests, or code 429 whatever the reason (client-go's historical behaviour). */
export function isTooManyRequests(err: unknown): boolean {
  return reasonOf(err) === "TooManyRequests" || codeOf(err) === 429;
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
  return reasonOf(err) === "RequestEntityTooLarge" || codeOf(err) === 413;
}

/**
 * The text kube-apiserver puts in the message and cause of a "resourceVersion too large"
 * Timeout (`staging/src/k8s.io/apiserver/pkg/storage/errors.go`); {@link isTooLargeResourceVersion}
 * matches it for servers that send no cause type.
 */
export const TOO_LARGE_RESOURCE_VERSION_MESSAGE = "Too large resource version";

/**
 * A watch or list asked for a resourceVersion newer than the server has seen (504 with
 * cause ResourceVersionTooLarge). Like client-go's reflector it also recognizes servers
 * that lack the cause type: a Timeout whose cause message or status message contains
 * "Too large resource version". Reflectors treat this like 410 and relist.
 */
export function isTooLargeResourceVersion(err: unknown): boolean {
  const status = statusErrorIn(err)?.status;
  if (status === undefined) return false;
  const causes = status.details?.causes ?? [];
  if (causes.some((c) => c.reason === "ResourceVersionTooLarge")) return true;
  if (!isTimeout(err)) return false;
  if (causes.some((c) => c.message === TOO_LARGE_RESOURCE_VERSION_MESSAGE)) return true;
  return (status.message ?? "").includes(TOO_LARGE_RESOURCE_VERSION_MESSAGE);
}

/**
 * The delay in seconds the server asks the client to wait, as client-go's
 * SuggestsClientDelay: for reason ServerTimeout, `details.retryAfterSeconds` (0 when
 * absent); for any other StatusError, `details.retryAfterSeconds` when positive (429,
 * Timeout, generateName conflicts, ...). `undefined` when there is no suggestion. This
 * looks at the Status only; a `Retry-After` header is the HTTP layer's business.
 */
export function suggestsClientDelay(err: unknown): number | undefined {
  const status = statusErrorIn(err)?.status;
  const details = status?.details;
  if (details === undefined) return undefined;
  if (status?.reason === "ServerTimeout") return details.retryAfterSeconds ?? 0;
  const s = details.retryAfterSeconds;
  return s !== undefined && s > 0 ? s : undefined;
}
