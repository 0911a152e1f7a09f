/**
 * Builders of kube-apiserver's error answers: each returns a `StatusError` whose `Status`
 * serializes to JSON byte for byte as kube-apiserver's does for the same inputs (same key
 * order, empty fields omitted as Go's omitempty does), with the messages of
 * `staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go`.
 */
import type { GroupKind, GroupResource } from "./gvk.js";
import { qualifiedKind, qualifiedResource } from "./gvk.js";
import { fieldErrorBody, formatFieldErrors, type FieldError } from "./field-errors.js";
import { quoteGo } from "./go-format.js";
import {
  StatusError,
  TOO_LARGE_RESOURCE_VERSION_MESSAGE,
  type StatusCause,
  type StatusDetails,
  type StatusReason,
} from "./status.js";

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
    `Timeout: ${TOO_LARGE_RESOURCE_VERSION_MESSAGE}: ${requested}, current: ${current}`,
    details({
      causes: [cause("ResourceVersionTooLarge", TOO_LARGE_RESOURCE_VERSION_MESSAGE, "")],
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
