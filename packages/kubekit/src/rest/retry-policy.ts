/**
 * When client-go retries a request (`rest/with_retry.go`, `rest/request.go`): a 429 or 5xx
 * response that carries a numeric `Retry-After` header, waiting that many seconds; and a
 * transport error the request kind allows (see {@link TransportRetryRule}), waiting one
 * second. Bodies here are always buffers, so every request is replayable.
 */
import { errorCodeOf } from "./request-errors.js";
import type { ResponseHeaders } from "./rest-response.js";

/** client-go's retry limit per request. */
export const DEFAULT_MAX_RETRIES = 10;

/** The wait client-go applies after a retryable connection error (an artificial `Retry-After: 1`). */
export const CONNECTION_RESET_RETRY_SECONDS = 1;

/**
 * The `Retry-After` header as a whole number of seconds, or undefined when it is absent or
 * not a decimal integer (an HTTP-date is not honoured, as in client-go).
 */
export function retryAfterHeaderSeconds(headers: ResponseHeaders): number | undefined {
  const raw = headers["retry-after"];
  const value = typeof raw === "string" ? raw : raw?.[0];
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value.trim());
}

/**
 * The seconds to wait before retrying a response, or undefined when it must not be retried:
 * only 429 and codes >= 500 with a numeric `Retry-After` are retried (a 503 without one is
 * not).
 */
export function retryDelaySeconds(
  statusCode: number,
  headers: ResponseHeaders,
): number | undefined {
  if (statusCode !== 429 && statusCode < 500) return undefined;
  return retryAfterHeaderSeconds(headers);
}

/** Error codes of a connection that broke before a response arrived. */
const CONNECTION_RESET_CODES: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "EPIPE",
  "UND_ERR_SOCKET",
]);

/**
 * Whether a transport error is a connection reset or a socket closed before the response
 * (client-go's IsConnectionReset / IsProbableEOF), which client-go retries for GET.
 */
export function isConnectionResetError(err: unknown): boolean {
  const code = errorCodeOf(err);
  return code !== undefined && CONNECTION_RESET_CODES.has(code);
}

/** Error codes of a connection or response header wait that timed out (Go's `net.Error.Timeout()`). */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
]);

/** Whether a transport error is a timeout (client-go's `net.IsTimeout`). */
export function isTimeoutError(err: unknown): boolean {
  const code = errorCodeOf(err);
  return code !== undefined && TIMEOUT_CODES.has(code);
}

/**
 * Which transport errors (no response) a request kind retries, as client-go's
 * `rest/request.go` decides:
 * - `"request"` (`Do`, `DoRaw`): GET only, after a connection reset or a probable EOF;
 * - `"watch"` (`Watch`): any method, after a probable EOF or a timeout;
 * - `"none"` (`Stream`): never; only `Retry-After` responses are retried.
 */
export type TransportRetryRule = "request" | "watch" | "none";

/** Whether `rule` retries a request with `method` that failed with the transport error `err`. */
export function isRetryableTransportError(
  rule: TransportRetryRule,
  method: string,
  err: unknown,
): boolean {
  switch (rule) {
    case "request":
      return method === "GET" && isConnectionResetError(err);
    case "watch":
      return isConnectionResetError(err) || isTimeoutError(err);
    case "none":
      return false;
  }
}
