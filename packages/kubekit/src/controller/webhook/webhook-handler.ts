/**
 * What a {@link WebhookServer} serves on a path: a handler of POSTed JSON review bodies
 * (controller-runtime registers an `http.Handler`; kubekit's server does the HTTP part once,
 * reading and parsing the body within bounds, and hands the handler the parsed value).
 */
import type { JsonValue } from "../../core/json.js";
import type { Logger } from "../../core/logger.js";

/** One request to a webhook handler. */
export interface WebhookRequest {
  /** The parsed JSON body. */
  readonly body: JsonValue;
  /**
   * Aborts shortly before the caller's `?timeout=` runs out (the API server's
   * `timeoutSeconds`), or when the caller hangs up. A handler answers at once when it aborts.
   */
  readonly signal: AbortSignal;
  /** The caller's timeout (`?timeout=`) in milliseconds, when it sent one. */
  readonly timeoutMs: number | undefined;
  /** The server's logger. */
  readonly logger: Logger;
}

/** A handler's answer: an HTTP status and a JSON body. */
export interface WebhookAnswer {
  /** The HTTP status. */
  readonly status: number;
  /** The JSON body. */
  readonly body: JsonValue;
}

/**
 * A handler of one webhook path. Made by {@link admissionHandler},
 * {@link validatingWebhookFor}, {@link mutatingWebhookFor} or {@link conversionWebhook};
 * implement it for a review type of your own.
 */
export interface WebhookHandler {
  /**
   * Answers one request. Expected never to reject: a rejection is logged and answered with a
   * 500 and the error's message.
   */
  handle(request: WebhookRequest): Promise<WebhookAnswer>;
  /**
   * The answer to a body the server could not read: too large, not JSON, or of another
   * content type than `application/json`. The server sends it with status 400.
   */
  badRequest(message: string): JsonValue;
}

/**
 * Settles as `work` does, or resolves with `onAbort()` once `signal` aborts first: a handler
 * that outlives the request's deadline is answered for, and its late result dropped.
 */
export async function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
  onAbort: () => T,
): Promise<T> {
  if (signal.aborted) return onAbort();
  let stop: (() => void) | undefined;
  const aborted = new Promise<T>((resolve) => {
    const listener = (): void => resolve(onAbort());
    signal.addEventListener("abort", listener, { once: true });
    stop = () => signal.removeEventListener("abort", listener);
  });
  // A late rejection of `work` after the abort answered must not become an unhandled rejection.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, aborted]);
  } finally {
    stop?.();
  }
}
