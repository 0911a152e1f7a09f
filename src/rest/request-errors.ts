/**
 * Typed errors of the REST layer for failures that are not a server `Status` (those are
 * {@link StatusError}s): no HTTP response, a timeout, an unsupported proxy, an undecodable
 * success body.
 */

/** The message of an unknown thrown value. */
function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

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
  const text = messageOf(previous);
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
  /** The request URL (it never carries credentials). */
  readonly url: string;
  /** The underlying error code, when known. */
  readonly code: string | undefined;
  /** The error of the attempt before the final one, when the request was retried. */
  readonly previousAttemptError: unknown;

  constructor(method: string, url: string, cause: unknown, previousAttemptError?: unknown) {
    const base = `${method} ${url}: ${messageOf(cause)}`;
    super(base + previousAttemptSuffix(base, previousAttemptError), { cause });
    this.name = "TransportError";
    this.method = method;
    this.url = url;
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
  readonly url: string;
  /** The timeout that expired, in ms. */
  readonly timeoutMs: number;
  /** The error of the last failed attempt before the timeout, when the request was retried. */
  readonly previousAttemptError: unknown;

  constructor(method: string, url: string, timeoutMs: number, previousAttemptError?: unknown) {
    const base = `${method} ${url}: request did not complete within ${timeoutMs}ms`;
    super(base + previousAttemptSuffix(base, previousAttemptError));
    this.name = "RequestTimeoutError";
    this.method = method;
    this.url = url;
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

/** A URL with any user name and password removed; unparsable input is replaced by a placeholder. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString();
  } catch {
    return "<unparsable URL>";
  }
}

/** A 2xx response whose body is not the JSON `do()` expected (use `doRaw()` for other bodies). */
export class ResponseDecodeError extends Error {
  readonly statusCode: number;
  /** The response's Content-Type, when it had one. */
  readonly contentType: string | undefined;

  constructor(statusCode: number, contentType: string | undefined, cause: unknown) {
    super(
      `could not decode the ${statusCode} response body${contentType ? ` (${contentType})` : ""} as JSON: ${messageOf(cause)}`,
      { cause },
    );
    this.name = "ResponseDecodeError";
    this.statusCode = statusCode;
    this.contentType = contentType;
  }
}
