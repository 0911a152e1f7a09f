/**
 * One REST request from throttling to the final response: client-side rate limiting,
 * the attempt loop with client-go's retry rules, timeouts, aborts and warning headers.
 */
import type { Readable } from "node:stream";
import type { Clock } from "../core/clock.js";
import type { Logger } from "../core/logger.js";
import { StatusError } from "../core/status.js";
import type { TokenBucket } from "../core/token-bucket.js";
import {
  redactUrl,
  RequestTimeoutError,
  ResponseTooLargeError,
  TransportError,
} from "./request-errors.js";
import type { ErrorRequestInfo } from "./response-errors.js";
import { errorFromResponse } from "./response-errors.js";
import type { TransportRetryRule } from "./retry-policy.js";
import {
  CONNECTION_RESET_RETRY_SECONDS,
  isRetryableTransportError,
  retryDelaySeconds,
} from "./retry-policy.js";
import type { RequestMetrics } from "./request-metrics.js";
import { NO_RESPONSE_CODE } from "./request-metrics.js";
import type { HttpMethod, Transport, TransportResponse } from "./transport.js";
import type { Warning, WarningHandler } from "./warnings.js";
import { parseWarningHeaders } from "./warnings.js";

/** Throttling waits longer than this are logged at debug level (client-go: V(3)). */
export const LONG_THROTTLE_LATENCY_MS = 50;
/** Throttling waits longer than this are logged at info level. */
export const EXTRA_LONG_THROTTLE_LATENCY_MS = 1000;

/** What a request needs from its client. */
export interface RequestContext {
  readonly transport: Transport;
  /** The client-side rate limiter; undefined when limiting is off. */
  readonly rateLimiter: TokenBucket | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly warningHandler: WarningHandler;
  /** The longest buffered response body in bytes (after gzip decoding). */
  readonly maxResponseBodyBytes: number;
  /** Told of every attempt's outcome and duration; undefined: none. */
  readonly requestMetrics?: RequestMetrics | undefined;
}

/** A fully built request. */
export interface PreparedRequest {
  readonly method: HttpMethod;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array | undefined;
  /** What the request is about, for generic error messages. */
  readonly errorInfo: ErrorRequestInfo;
}

/** How to run a request. */
export interface ExecutionOptions {
  /** Wait for the rate limiter before each attempt (false for watches). */
  readonly throttle: boolean;
  /** A long-lived response body (no transport body timeout). */
  readonly streaming: boolean;
  /** Retries allowed after the first attempt. */
  readonly maxRetries: number;
  /** Which transport errors are retried (client-go's rule for `Do`, `Watch` or `Stream`). */
  readonly transportRetry: TransportRetryRule;
  readonly signal: AbortSignal | undefined;
  /** Deadline in ms for everything up to the end of `consume` (undefined or <= 0: none). */
  readonly timeoutMs: number | undefined;
}

/** The final response of a request, its warnings already handed to the warning handler. */
export interface ReceivedResponse extends TransportResponse {
  readonly warnings: readonly Warning[];
}

/**
 * Reads a body to its end.
 *
 * @throws {ResponseTooLargeError} (after destroying the body) once it passes `limitBytes`.
 */
export async function readBody(
  body: Readable,
  limitBytes: number,
  req: Pick<PreparedRequest, "method" | "url">,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    length += bytes.length;
    if (length > limitBytes) {
      const error = new ResponseTooLargeError(req.method, req.url.href, "body", limitBytes);
      body.destroy();
      throw error;
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

function combineSignals(signals: readonly (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}

function elapsedSeconds(ctx: RequestContext, sinceMs: number): number {
  return (ctx.clock.now() - sinceMs) / 1000;
}

async function throttle(
  ctx: RequestContext,
  req: PreparedRequest,
  signal: AbortSignal | undefined,
  reason: string,
): Promise<void> {
  if (ctx.rateLimiter === undefined) return;
  const waited = await ctx.rateLimiter.wait(signal);
  if (waited <= LONG_THROTTLE_LATENCY_MS) return;
  const url = redactUrl(req.url.href);
  const message = `Waited for ${Math.round(waited)}ms due to ${reason}, request: ${req.method}:${url}`;
  const fields = { waitedMs: waited, method: req.method, url };
  if (waited > EXTRA_LONG_THROTTLE_LATENCY_MS) ctx.logger.info(message, fields);
  else ctx.logger.debug(message, fields);
}

function handleWarnings(ctx: RequestContext, response: TransportResponse): Warning[] {
  const raw = response.headers["warning"];
  if (raw === undefined) return [];
  const warnings = parseWarningHeaders(typeof raw === "string" ? [raw] : raw);
  for (const warning of warnings) {
    try {
      ctx.warningHandler(warning);
    } catch (err) {
      ctx.logger.error("warning handler failed", { error: String(err) });
    }
  }
  return warnings;
}

/**
 * Runs a request and hands its final response to `consume`, whose result it returns.
 *
 * - Throttling: when `options.throttle`, waits for a rate limiter token before the first
 *   attempt and before each retry; waits over 50 ms are logged ("Waited for …ms due to
 *   client-side throttling, not priority and fairness, request: …").
 * - Retries (at most `options.maxRetries`, each logged at debug, as client-go logs them at
 *   V(4) in `rest/with_retry.go`: a retry is a healthy recovery): a 429 or 5xx response
 *   with a numeric `Retry-After` waits that many seconds on the clock; a transport error that
 *   `options.transportRetry` allows (a GET whose connection was reset before a response, for
 *   `do`) waits one second. Other failures are final.
 * - Errors: the user's abort rejects with `signal.reason`; the timeout with
 *   {@link RequestTimeoutError}; no response with {@link TransportError}; errors of
 *   `consume` pass through. When an earlier attempt failed, the final error carries it
 *   (`previousAttemptError`, or `cause` for a StatusError).
 * - Warning headers of the final response go to the context's warning handler.
 * - Metrics: each attempt is reported to the context's `requestMetrics`, if any.
 *
 * `consume` runs inside the timeout and owns the body (it must read or destroy it).
 */
export async function executeRequest<R>(
  ctx: RequestContext,
  req: PreparedRequest,
  options: ExecutionOptions,
  consume: (response: ReceivedResponse, signal: AbortSignal | undefined) => Promise<R>,
): Promise<R> {
  const userSignal = options.signal;
  const timeoutMs =
    options.timeoutMs !== undefined && options.timeoutMs > 0 ? options.timeoutMs : undefined;
  const timeout = timeoutMs !== undefined ? new AbortController() : undefined;
  const timer =
    timeout !== undefined
      ? ctx.clock.setTimer(timeoutMs ?? 0, () => timeout.abort(new Error("request timeout")))
      : undefined;
  const signal = combineSignals([userSignal, timeout?.signal]);
  const url = redactUrl(req.url.href);
  let previous: unknown;
  let throttleReason = "client-side throttling, not priority and fairness";
  try {
    for (let attempt = 0; ; attempt++) {
      if (options.throttle) await throttle(ctx, req, signal, throttleReason);
      let response: TransportResponse;
      const metrics = ctx.requestMetrics;
      const sentAt = metrics !== undefined ? ctx.clock.now() : 0;
      try {
        response = await ctx.transport.send({
          method: req.method,
          url: req.url,
          headers: req.headers,
          ...(req.body !== undefined ? { body: req.body } : {}),
          ...(signal !== undefined ? { signal } : {}),
          streaming: options.streaming,
        });
      } catch (err) {
        metrics?.observe(req.method, req.url.host, NO_RESPONSE_CODE, elapsedSeconds(ctx, sentAt));
        if (signal?.aborted) throw err;
        const retryable =
          isRetryableTransportError(options.transportRetry, req.method, err) &&
          attempt < options.maxRetries;
        if (!retryable) throw new TransportError(req.method, url, err, previous);
        previous = new TransportError(req.method, url, err);
        ctx.logger.debug(
          `Retrying ${req.method} ${url} in ${CONNECTION_RESET_RETRY_SECONDS}s after a transport error (attempt ${attempt + 1})`,
          { error: (previous as Error).message },
        );
        throttleReason = `retries: ${attempt + 1}, retry-after: ${CONNECTION_RESET_RETRY_SECONDS}s - retry-reason: due to retryable error`;
        await ctx.clock.sleep(CONNECTION_RESET_RETRY_SECONDS * 1000, signal);
        continue;
      }
      metrics?.observe(
        req.method,
        req.url.host,
        String(response.statusCode),
        elapsedSeconds(ctx, sentAt),
      );
      const delaySeconds = retryDelaySeconds(response.statusCode, response.headers);
      if (delaySeconds !== undefined && attempt < options.maxRetries) {
        const body = await readBody(response.body, ctx.maxResponseBodyBytes, req);
        previous = errorFromResponse(response.statusCode, response.headers, body, req.errorInfo);
        ctx.logger.debug(
          `Got a Retry-After ${delaySeconds}s response for attempt ${attempt + 1} to ${url}`,
          { statusCode: response.statusCode },
        );
        throttleReason = `retries: ${attempt + 1}, retry-after: ${delaySeconds}s - retry-reason: ${response.statusCode}`;
        await ctx.clock.sleep(delaySeconds * 1000, signal);
        continue;
      }
      const warnings = handleWarnings(ctx, response);
      return await consume({ ...response, warnings }, signal);
    }
  } catch (err) {
    if (userSignal?.aborted) throw userSignal.reason;
    if (timeout?.signal.aborted) {
      throw new RequestTimeoutError(req.method, url, timeoutMs ?? 0, previous);
    }
    if (err instanceof StatusError && previous !== undefined && err !== previous) {
      if (err.cause === undefined) err.cause = previous;
    }
    throw err;
  } finally {
    timer?.cancel();
  }
}
