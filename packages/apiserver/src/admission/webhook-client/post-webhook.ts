/**
 * One HTTPS POST of a webhook call (client-go's REST client as kube's webhook `ClientManager`
 * configures it, `staging/src/k8s.io/apiserver/pkg/util/webhook/client.go`): JSON body, the
 * `caBundle` as the only trust anchor when given (system roots otherwise), HTTP/1.1, a deadline
 * that aborts the request wherever it is, the answer read up to a bound and parsed. Statuses
 * 200–206 succeed as client-go's do; any other is refused with client-go's generic message.
 */
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { JsonObject, JsonValue } from "kubekit";
import { parseJsonBounded } from "kubekit/apimachinery";
import type { ServerContext } from "../../server/server-context.js";
import { boundedText } from "./bounded-text.js";
import { callTargetOf, type CallTarget } from "./call-target.js";
import { transportFailure } from "./transport-errors.js";
import { WebhookCallError, type WebhookCallFailure } from "./webhook-call-error.js";
import type { WebhookClientConfig } from "./webhook-client-config.js";

/**
 * The largest answer read by default: 3 MiB, kube-apiserver's `MaxRequestBodyBytes` (the
 * largest object it accepts). kube's webhook client itself reads answers unbounded.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

/** client-go's bound on the text of a non-success answer quoted in its error. */
const MAX_UNSTRUCTURED_RESPONSE_TEXT = 2048;

/** Options of {@link postWebhook}. */
export interface PostWebhookOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** The largest answer accepted, in bytes; default {@link DEFAULT_MAX_RESPONSE_BYTES}. */
  readonly maxResponseBytes?: number;
}

/** client-go's message for a status outside 200–206 (`NewGenericServerResponse`, verb POST). */
function statusMessage(code: number, text: string): string {
  const messages: Record<number, string> = {
    400: "the server rejected our request for an unknown reason",
    401: "the server has asked for the client to provide credentials",
    403: text,
    404: "the server could not find the requested resource",
    405: "the server does not allow this method on the requested resource",
    406:
      text === "" || text === "unknown"
        ? "the server was unable to respond with a content type that the client supports"
        : text,
    409: "the server reported a conflict",
    415: text,
    422: "the server rejected our request due to an error in our request",
    429: "the server has received too many requests and has asked us to try again later",
    503: "the server is currently unable to handle the request",
    504: "the server was unable to return a response in the time allotted, but may still be processing the request",
  };
  const known = messages[code];
  if (known !== undefined) return known;
  if (code >= 500) {
    return `an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding`;
  }
  return `the server responded with the status code ${code} but did not return more information`;
}

/** The answer's body as client-go quotes it: trimmed text for `text/*`, else `unknown`. */
function unstructuredText(response: IncomingMessage, body: Buffer): string {
  const type = String(response.headers["content-type"] ?? "").toLowerCase();
  if (!type.startsWith("text/")) return "unknown";
  return body.subarray(0, MAX_UNSTRUCTURED_RESPONSE_TEXT).toString("utf8").trim();
}

/** The parsed answer of a successful status. */
function parseAnswer(response: IncomingMessage, body: Buffer): JsonValue {
  const code = response.statusCode ?? 0;
  if (code < 200 || code > 206) {
    const error = new WebhookCallError(
      "status",
      statusMessage(code, unstructuredText(response, body)),
      code,
    );
    throw error;
  }
  if (body.length === 0) {
    const type = String(response.headers["content-type"] ?? "");
    throw new WebhookCallError(
      "malformed",
      `0-length response with status code: ${code} and content type: ${type}`,
    );
  }
  try {
    return parseJsonBounded(body.toString("utf8"), { maxBytes: body.length });
  } catch (err) {
    throw new WebhookCallError(
      "malformed",
      `couldn't get version/kind; json parse error: ${boundedText((err as Error).message, 512)}`,
    );
  }
}

/** The trust anchor of `caBundle` (base64 PEM as the API carries it); undefined for system roots. */
function caOf(caBundle: string | undefined): string | undefined {
  if (caBundle === undefined || caBundle === "") return undefined;
  return Buffer.from(caBundle, "base64").toString("utf8");
}

/**
 * Settles a call as failed. A `transport` failure (dial, TLS, deadline) reads as Go's
 * `url.Error`, `Post "<url>": <text>`; an answer refused for its status or body reads as
 * client-go's error alone, without the URL.
 */
type Fail = (failure: WebhookCallFailure, text: string, transport?: boolean, code?: number) => void;

interface Exchange {
  readonly target: CallTarget;
  readonly payload: Buffer;
  readonly ca: string | undefined;
  readonly maxBytes: number;
}

/**
 * Sends the request; `fail` settles the call (see {@link Fail}). A kept-alive
 * connection the server closed meanwhile is redialed once (as Go's transport retries a request
 * it could not write on a reused connection). Returns how to abort the request in flight.
 */
function send(
  exchange: Exchange,
  done: (answer: JsonValue) => void,
  fail: Fail,
  retried = false,
): () => void {
  const { target } = exchange;
  let dialed: { host: string; port: number };
  try {
    dialed = target.dial();
  } catch (err) {
    const e = err as WebhookCallError;
    fail(e.failure, e.message);
    return () => undefined;
  }
  const req = httpsRequest({
    host: dialed.host,
    port: dialed.port,
    path: target.path,
    method: "POST",
    ...(target.serverName !== undefined ? { servername: target.serverName } : {}),
    ...(exchange.ca !== undefined ? { ca: exchange.ca } : {}),
    headers: {
      Host: target.hostHeader,
      "Content-Type": "application/json",
      Accept: "application/json, */*",
      "Content-Length": exchange.payload.length,
    },
  });
  let abort = (): void => void req.destroy();
  req.on("error", (err: NodeJS.ErrnoException) => {
    if (!retried && req.reusedSocket && err.code === "ECONNRESET") {
      abort = send(exchange, done, fail, true);
      return;
    }
    const classified = transportFailure(
      err,
      `${dialed.host}:${dialed.port}`,
      target.serverName ?? dialed.host,
    );
    fail(classified.failure, classified.text);
  });
  req.on("response", (response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > exchange.maxBytes) {
        fail("malformed", `the response body is larger than ${exchange.maxBytes} bytes`, false);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    response.on("end", () => {
      try {
        done(parseAnswer(response, Buffer.concat(chunks)));
      } catch (err) {
        const e = err as WebhookCallError;
        fail(e.failure, e.message, false, e.statusCode);
      }
    });
    response.on("error", (err) => fail("refused", boundedText(err.message, 512)));
  });
  req.end(exchange.payload);
  return () => abort();
}

/** The HTTPS POST of {@link callWebhook} (loaded on first use). */
export function postWebhook(
  ctx: ServerContext,
  config: WebhookClientConfig,
  body: JsonObject,
  options: PostWebhookOptions,
): Promise<JsonValue> {
  let target: CallTarget;
  try {
    target = callTargetOf(ctx, config, options.timeoutMs);
  } catch (err) {
    return Promise.reject(err as Error);
  }
  const exchange: Exchange = {
    target,
    payload: Buffer.from(JSON.stringify(body)),
    ca: caOf(config.caBundle),
    maxBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
  };
  return new Promise<JsonValue>((resolve, reject) => {
    let settled = false;
    const finish = (): void => {
      settled = true;
      timer.cancel();
      options.signal?.removeEventListener("abort", onAbort);
      abortRequest();
    };
    const fail: Fail = (failure, text, transport = true, code) => {
      if (settled) return;
      finish();
      const message = transport ? `Post "${target.url}": ${text}` : text;
      reject(new WebhookCallError(failure, message, code));
    };
    const onAbort = (): void => fail("timeout", "context canceled");
    const timer = ctx.clock.setTimer(options.timeoutMs, () =>
      fail("timeout", "context deadline exceeded"),
    );
    options.signal?.addEventListener("abort", onAbort, { once: true });
    let abortRequest: () => void = () => undefined;
    if (options.signal?.aborted) return onAbort();
    abortRequest = send(
      exchange,
      (answer) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        options.signal?.removeEventListener("abort", onAbort);
        resolve(answer);
      },
      fail,
    );
    if (settled) abortRequest();
  });
}
