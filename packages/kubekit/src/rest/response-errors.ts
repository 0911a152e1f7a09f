/**
 * Turning an HTTP error response into a {@link StatusError}, as client-go does: a `Status`
 * body is used as sent; any other body becomes apimachinery's generic server response
 * error for the code (`NewGenericServerResponse`).
 */
import { qualifiedResource } from "../core/gvk.js";
import { isJsonObject } from "../core/json.js";
import type { Status, StatusReason } from "../core/status.js";
import { decodeStatus, StatusError } from "../core/status.js";
import { quoteGo } from "../core/go-format.js";
import type { ResponseHeaders } from "./rest-response.js";
import { retryAfterHeaderSeconds } from "./retry-policy.js";

/** client-go caps the text of a non-Status error body it keeps. */
const MAX_UNSTRUCTURED_TEXT_BYTES = 2048;

/** What the request was about, for the generic message's `(verb resource name)` suffix. */
export interface ErrorRequestInfo {
  /** The HTTP method (`GET`, `POST`, ...). */
  readonly method: string;
  /** The API group of the resource (`""` for core). */
  readonly group?: string;
  /** The resource (plural), when the request named one. */
  readonly resource?: string;
  /** The object name, when the request named one. */
  readonly name?: string;
}

/** The first value of a header. */
export function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return typeof value === "string" ? value : value?.[0];
}

/** Whether a Content-Type is a text/* media type. */
function isTextContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*text\//i.test(contentType);
}

/**
 * A response body's decoded JSON read as a Status, or undefined when it is not one. A body
 * of kind `Status` without `apiVersion` counts as `v1`, as client-go decodes response bodies
 * with a default version of v1 for old servers that omit it (`rest/request.go`,
 * `Result.Error` and `transformResponse`).
 */
export function decodeResponseStatus(value: unknown): Status | undefined {
  const unversioned =
    isJsonObject(value) && value["kind"] === "Status" && (value["apiVersion"] ?? "") === "";
  return decodeStatus(unversioned ? { ...value, apiVersion: "v1" } : value);
}

/** A decoded Status body, or undefined when the body is empty or not a Status. */
export function statusFromBody(body: Uint8Array): Status | undefined {
  if (body.length === 0) return undefined;
  try {
    return decodeResponseStatus(JSON.parse(new TextDecoder().decode(body)));
  } catch {
    return undefined;
  }
}

/**
 * apimachinery's error for a response that carries no Status (`NewGenericServerResponse`):
 * reason and message from the code (e.g. 404 NotFound "the server could not find the
 * requested resource", 429 TooManyRequests "the server has received too many requests and
 * has asked us to try again later", 409 AlreadyExists for POST / Conflict otherwise, other
 * 5xx InternalError `an error on the server ("<text>") has prevented the request from
 * succeeding`; 403 and 415 keep the server's text), a `(verb resource[ name])` suffix when
 * the request named a resource, `details` {group, kind: resource, name, retryAfterSeconds},
 * and one cause `{reason: "UnexpectedServerResponse", message: serverMessage}`.
 */
export function genericServerResponseError(
  code: number,
  request: ErrorRequestInfo,
  serverMessage: string,
  retryAfterSeconds: number | undefined,
): StatusError {
  let reason: StatusReason = "";
  let message = `the server responded with the status code ${code} but did not return more information`;
  switch (code) {
    case 409:
      reason = request.method.toUpperCase() === "POST" ? "AlreadyExists" : "Conflict";
      message = "the server reported a conflict";
      break;
    case 404:
      reason = "NotFound";
      message = "the server could not find the requested resource";
      break;
    case 400:
      reason = "BadRequest";
      message = "the server rejected our request for an unknown reason";
      break;
    case 401:
      reason = "Unauthorized";
      message = "the server has asked for the client to provide credentials";
      break;
    case 403:
      reason = "Forbidden";
      message = serverMessage;
      break;
    case 405:
      reason = "MethodNotAllowed";
      message = "the server does not allow this method on the requested resource";
      break;
    case 406:
      reason = "NotAcceptable";
      message =
        serverMessage === "" || serverMessage === "unknown"
          ? "the server was unable to respond with a content type that the client supports"
          : serverMessage;
      break;
    case 415:
      reason = "UnsupportedMediaType";
      message = serverMessage;
      break;
    case 422:
      reason = "Invalid";
      message = "the server rejected our request due to an error in our request";
      break;
    case 429:
      reason = "TooManyRequests";
      message = "the server has received too many requests and has asked us to try again later";
      break;
    case 503:
      reason = "ServiceUnavailable";
      message = "the server is currently unable to handle the request";
      break;
    case 504:
      reason = "Timeout";
      message =
        "the server was unable to return a response in the time allotted, but may still be processing the request";
      break;
    default:
      if (code >= 500) {
        reason = "InternalError";
        message = `an error on the server (${quoteGo(serverMessage)}) has prevented the request from succeeding`;
      }
  }
  const resource = request.resource ?? "";
  const group = request.group ?? "";
  const name = request.name ?? "";
  if (resource !== "") {
    const qualified = qualifiedResource({ group, resource });
    message += ` (${request.method.toLowerCase()} ${qualified}${name === "" ? "" : ` ${name}`})`;
  }
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    details: {
      ...(name !== "" ? { name } : {}),
      ...(group !== "" ? { group } : {}),
      ...(resource !== "" ? { kind: resource } : {}),
      causes: [{ reason: "UnexpectedServerResponse", message: serverMessage }],
      ...(retryAfterSeconds !== undefined && retryAfterSeconds > 0 ? { retryAfterSeconds } : {}),
    },
    code,
  });
}

/**
 * The error of a response with code outside 2xx (or a 2xx whose body is a Failure Status).
 *
 * - A body that decodes to a `Status` whose status is not Success becomes a StatusError of
 *   that Status; a missing `code` is taken from the response, and a missing
 *   `details.retryAfterSeconds` from a numeric `Retry-After` header.
 * - Any other body gives {@link genericServerResponseError}, with the body text (trimmed,
 *   at most 2 KiB) as the server message for `text/*` responses and `"unknown"` otherwise,
 *   as client-go.
 */
export function errorFromResponse(
  code: number,
  headers: ResponseHeaders,
  body: Uint8Array,
  request: ErrorRequestInfo,
): StatusError {
  const retryAfter = retryAfterHeaderSeconds(headers);
  const status = statusFromBody(body);
  if (status !== undefined && status.status !== "Success") {
    const withCode: Status = { ...status, code: status.code !== 0 ? status.code : code };
    if (retryAfter !== undefined && retryAfter > 0 && !(withCode.details?.retryAfterSeconds ?? 0)) {
      withCode.details = { ...withCode.details, retryAfterSeconds: retryAfter };
    }
    return new StatusError(withCode);
  }
  const contentType = headerValue(headers, "content-type");
  const serverMessage = isTextContentType(contentType)
    ? new TextDecoder().decode(body.subarray(0, MAX_UNSTRUCTURED_TEXT_BYTES)).trim()
    : "unknown";
  return genericServerResponseError(code, request, serverMessage, retryAfter);
}
