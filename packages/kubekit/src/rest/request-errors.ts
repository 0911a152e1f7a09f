/**
 * Typed errors of the REST layer for failures that are not a server `Status` (those are
 * {@link StatusError}s): no HTTP response, a timeout, an unsupported proxy, an undecodable
 * success body.
 */

import { errorMessage } from "../core/error-message.js";

/** The first `code` string found on an error or along its `cause` chain. */
export function errorCodeOf(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The suffix client-go appends when an earlier attempt of the same request failed differently. */
function previousAttemptSuffix(message: string, previous: unknown): string {
  if (previous === undefined) return "";
  const text = errorMessage(previous);
  return text === message ? "" : ` - error from a previous attempt: ${text}`;
}

/**
 * A request that got no HTTP response, or whose response body broke off: connection
 * refused or reset, TLS failure, DNS failure, socket closed mid-stream. `cause` is the
 * underlying error; `code` its error code when it has one (`ECONNREFUSED`, `ECONNRESET`,
 * `UND_ERR_SOCKET`, ...). When an earlier attempt of the same request failed (and was
 * retried), it is `previousAttemptError` and the message mentions it, as client-go does.
 */
export class TransportError extends Error {
  /** The HTTP method of the request. */
  readonly method: string;
  /** The request URL, without any user name or password it had. */
  readonly url: string;
  /** The underlying error code, when known. */
  readonly code: string | undefined;
  /** The error of the attempt before the final one, when the request was retried. */
  readonly previousAttemptError: unknown;

  constructor(method: string, url: string, cause: unknown, previousAttemptError?: unknown) {
    const shown = redactUrl(url);
    const base = `${method} ${shown}: ${redactText(errorMessage(cause), url)}`;
    super(base + previousAttemptSuffix(base, previousAttemptError), { cause });
    this.name = "TransportError";
    this.method = method;
    this.url = shown;
    this.code = errorCodeOf(cause);
    this.previousAttemptError = previousAttemptError;
  }
}

/**
 * A request that did not complete within its timeout (the builder's `.timeout(ms)` or the
 * config's `timeoutMs`). For `do`/`doRaw` the timeout covers throttling, every attempt,
 * retry waits and reading the body; for `watch`/`stream` it ends once response headers
 * arrive.
 */
export class RequestTimeoutError extends Error {
  readonly method: string;
  /** The request URL, without any user name or password it had. */
  readonly url: string;
  /** The timeout that expired, in ms. */
  readonly timeoutMs: number;
  /** The error of the last failed attempt before the timeout, when the request was retried. */
  readonly previousAttemptError: unknown;

  constructor(method: string, url: string, timeoutMs: number, previousAttemptError?: unknown) {
    const shown = redactUrl(url);
    const base = `${method} ${shown}: request did not complete within ${timeoutMs}ms`;
    super(base + previousAttemptSuffix(base, previousAttemptError));
    this.name = "RequestTimeoutError";
    this.method = method;
    this.url = shown;
    this.timeoutMs = timeoutMs;
    this.previousAttemptError = previousAttemptError;
  }
}

/**
 * The config names a proxy whose scheme the transport cannot use: only `http:` and
 * `https:` proxies are supported (SOCKS proxies, which kubeconfig allows, are not).
 * Thrown when the client is created. The URL in the message has its credentials removed.
 */
export class UnsupportedProxyError extends Error {
  /** The proxy URL without user name or password. */
  readonly proxyUrl: string;

  constructor(proxyUrl: string) {
    const shown = redactUrl(proxyUrl);
    super(
      `proxy ${shown} is not supported: only http:// and https:// proxies are (SOCKS proxies are not)`,
    );
    this.name = "UnsupportedProxyError";
    this.proxyUrl = shown;
  }
}

/**
 * A URL with any user name and password removed (a server URL such as
 * `https://admin:pw@host` must never reach an error or a log); unparsable input is replaced
 * by a placeholder.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString();
  } catch {
    return "<unparsable URL>";
  }
}

/** `text` with the user information of `url` (`user:password@`, if any) removed. */
function redactText(text: string, url: string): string {
  let userinfo: string;
  try {
    const parsed = new URL(url);
    if (parsed.username === "" && parsed.password === "") return text;
    userinfo = parsed.password === "" ? parsed.username : `${parsed.username}:${parsed.password}`;
  } catch {
    return text;
  }
  return text.split(`${userinfo}@`).join("").split(userinfo).join("<redacted>");
}

/**
 * A response body (after gzip decoding) longer than the client accepts: a buffered body of
 * `do()`/`doRaw()` over the client's `maxResponseBodyBytes`, or one line of `stream()` over
 * its limit. Reading stops at the limit and the connection is closed, so a decompression bomb
 * or a never-ending body cannot grow memory without bound.
 */
export class ResponseTooLargeError extends Error {
  readonly method: string;
  /** The request URL, without any user name or password it had. */
  readonly url: string;
  /** The limit that was exceeded, in bytes. */
  readonly limitBytes: number;

  constructor(method: string, url: string, what: "body" | "line", limitBytes: number) {
    const shown = redactUrl(url);
    super(`${method} ${shown}: response ${what} longer than ${limitBytes} bytes`);
    this.name = "ResponseTooLargeError";
    this.method = method;
    this.url = shown;
    this.limitBytes = limitBytes;
  }
}

/** A 2xx response whose body is not the JSON `do()` expected (use `doRaw()` for other bodies). */
export class ResponseDecodeError extends Error {
  readonly statusCode: number;
  /** The response's Content-Type, when it had one. */
  readonly contentType: string | undefined;

  constructor(statusCode: number, contentType: string | undefined, cause: unknown) {
    super(
      `could not decode the ${statusCode} response body${contentType ? ` (${contentType})` : ""} as JSON: ${errorMessage(cause)}`,
      { cause },
    );
    this.name = "ResponseDecodeError";
    this.statusCode = statusCode;
    this.contentType = contentType;
  }
}
