/**
 * Opening an authenticated WebSocket to an API path: the connection under the streaming
 * subresources (pods/exec, pods/attach, pods/portforward), on the `ws` package.
 *
 * ```ts
 * const url = client.get().namespace(ns).resource("pods").name(pod).subresource("exec")
 *   .param("command", "date").param("stdout", true).url();
 * const { socket, protocol } = await openApiWebSocket(client, url, {
 *   protocols: ["v5.channel.k8s.io", "v4.channel.k8s.io"],
 *   signal,
 *   errorTarget: { resource: "pods", name: pod },
 * });
 * socket.on("message", onMessage); socket.on("close", onClose); socket.on("error", onError);
 * socket.resume();                       // the socket is handed over paused
 * ```
 *
 * `openApiWebSocket(client, url, options)` resolves once the server answered `101 Switching
 * Protocols` with one of `options.protocols`:
 * - The connection is made like every request of `client`: one token of its rate limiter
 *   first (the same bucket as its other requests), then the transport's
 *   {@link Transport.connectionSettings}: User-Agent, impersonation headers, credentials
 *   (bearer token, token file, exec plugin, basic; a 401 answer invalidates them as for
 *   other requests) and TLS (CA, client certificate, `insecureSkipTlsVerify`,
 *   `serverName`). The client's `timeoutMs` bounds everything up to the 101 answer, on its
 *   clock. No compression (permessage-deflate) is offered; kube-apiserver does not use it.
 * - A message (all of its fragments) may be at most {@link MAX_CHANNEL_MESSAGE_BYTES}
 *   (32 MiB, what kube-apiserver accepts): as soon as a frame header announces more, the
 *   socket reads no further, emits an `error` (a `RangeError`, code
 *   `WS_ERR_UNSUPPORTED_MESSAGE_LENGTH`) and closes (1009); nothing of that frame is
 *   buffered.
 * - The returned socket is paused (`socket.isPaused`): nothing it received is dispatched
 *   until the caller attached its listeners and called `socket.resume()`, so frames that
 *   arrived with the 101 answer are not lost. From then on the caller owns the socket: it
 *   must listen to `error` and `close`, and close or terminate it when done.
 * - Failures: an answer other than 101 rejects with a `StatusError` of the server's Status
 *   (a body that is not a Status gives apimachinery's generic error for the code, named
 *   after `options.errorTarget`), e.g. 400 for a pod that is not running or a container that
 *   does not exist, 404 for a missing pod, 403 when the user may not create `pods/exec`; a
 *   101 with none of the offered protocols (or a malformed handshake) rejects with
 *   {@link StreamUpgradeError}; no answer at all (connection refused, TLS failure) with
 *   `TransportError`; the timeout with `RequestTimeoutError`; the signal with its reason.
 *   Nothing is retried: a streaming request is not idempotent.
 *
 * - With `config.proxyUrl` (http or https), the connection is tunnelled through the proxy
 *   with `CONNECT`, as client-go dials WebSockets through its proxy; a proxy that refuses
 *   fails the call with a `TransportError` whose cause is a `ProxyTunnelError`.
 *
 * Server warnings on the 101 answer are not handed to the client's warning handler.
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { isIP } from "node:net";
import { connect as connectTls } from "node:tls";
import WebSocket from "ws";
import type { ApiWebSocketTarget } from "./api-websocket-target.js";
import { readBody } from "../rest/request-executor.js";
import { RequestTimeoutError, TransportError } from "../rest/request-errors.js";
import { NO_RESPONSE_CODE } from "../rest/request-metrics.js";
import { errorFromResponse, headerValue } from "../rest/response-errors.js";
import type { RESTClient } from "../rest/rest-client.js";
import type { ResponseHeaders } from "../rest/rest-response.js";
import type { ConnectionSettings } from "../rest/transport.js";
import { openConnectTunnel } from "./connect-tunnel.js";
import { StreamUpgradeError } from "./stream-errors.js";
import { MAX_CHANNEL_MESSAGE_BYTES } from "../core/websocket-channels.js";

/** Options of {@link openApiWebSocket}. */
export interface ApiWebSocketOptions {
  /** The subprotocols offered (`Sec-WebSocket-Protocol`), most preferred first; at least one. */
  readonly protocols: readonly string[];
  /** Aborting it before the upgrade completes closes the connection and rejects with its reason. */
  readonly signal?: AbortSignal | undefined;
  /** What the request is about (see {@link ApiWebSocketTarget}). */
  readonly errorTarget?: ApiWebSocketTarget;
}

/** An upgraded connection: the paused socket and the protocol the server chose. */
export interface ApiWebSocket {
  /** The open socket, paused until the caller calls `socket.resume()`. */
  readonly socket: WebSocket;
  /** The subprotocol the server chose: one of the offered ones. */
  readonly protocol: string;
}

/** The method of every upgrade request. */
const UPGRADE_METHOD = "GET";

/**
 * Opens a WebSocket to `url` (an `http:`/`https:` URL under the client's host, e.g. from a
 * request builder's `url()`) authenticated, throttled and timed like the client's other
 * requests; see the module documentation for the guarantees and errors.
 *
 * @throws {TypeError} when `options.protocols` is empty.
 */
export async function openApiWebSocket(
  client: RESTClient,
  url: URL,
  options: ApiWebSocketOptions,
): Promise<ApiWebSocket> {
  if (options.protocols.length === 0) throw new TypeError("at least one protocol must be offered");
  const userSignal = options.signal;
  userSignal?.throwIfAborted();
  const timeoutMs = client.timeoutMs;
  const timeout = timeoutMs !== undefined ? new AbortController() : undefined;
  const timer =
    timeout !== undefined
      ? client.clock.setTimer(timeoutMs ?? 0, () => timeout.abort(new Error("request timeout")))
      : undefined;
  const signals = [userSignal, timeout?.signal].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  try {
    await client.rateLimiter?.wait(signal);
    const settings = await client.transport.connectionSettings(signal);
    const tunnel = await proxyTunnel(client, url, signal);
    return await upgrade(client, url, options, settings, tunnel, signal);
  } catch (err) {
    if (userSignal?.aborted) throw userSignal.reason;
    if (timeout?.signal.aborted) {
      throw new RequestTimeoutError(UPGRADE_METHOD, url.href, timeoutMs ?? 0);
    }
    throw err;
  } finally {
    timer?.cancel();
  }
}

/** The WebSocket handshake itself, after throttling and credentials. */
function upgrade(
  client: RESTClient,
  url: URL,
  options: ApiWebSocketOptions,
  settings: ConnectionSettings,
  tunnel: Socket | undefined,
  signal: AbortSignal | undefined,
): Promise<ApiWebSocket> {
  return new Promise((resolve, reject) => {
    const startedAt = client.clock.now();
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(settings.headers)) {
      headers[name] = typeof value === "string" ? value : [...value];
    }
    const socket = new WebSocket(url, [...options.protocols], {
      ...settings.tls,
      // Node's http client sends an array as repeated header lines (Impersonate-Group).
      headers: headers as Record<string, string>,
      perMessageDeflate: false,
      maxPayload: MAX_CHANNEL_MESSAGE_BYTES,
      followRedirects: false,
      ...(tunnel !== undefined ? { createConnection: overTunnel(url, settings, tunnel) } : {}),
    });
    let answered = false;
    let negotiated = "";
    let settled = false;

    const observe = (code: string): void => {
      const seconds = (client.clock.now() - startedAt) / 1000;
      client.requestMetrics?.observe(UPGRADE_METHOD, url.host, code, seconds);
    };
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      socket.off("upgrade", onUpgrade);
      socket.off("unexpected-response", onUnexpectedResponse);
      socket.off("open", onOpen);
      return true;
    };
    const fail = (error: unknown): void => {
      if (!settle()) return;
      // Later handshake errors (the terminate below) have nobody to go to.
      socket.on("error", () => undefined);
      socket.off("error", onError);
      socket.terminate();
      reject(error);
    };
    const onAbort = (): void => fail(signal?.reason);
    const onUpgrade = (response: IncomingMessage): void => {
      answered = true;
      observe("101");
      negotiated = headerValue(responseHeaders(response), "sec-websocket-protocol") ?? "";
    };
    const onUnexpectedResponse = (_request: unknown, response: IncomingMessage): void => {
      answered = true;
      const code = response.statusCode ?? 0;
      observe(String(code));
      if (code === 401) client.config.credentials.invalidate();
      readBody(response, client.maxResponseBodyBytes, { method: UPGRADE_METHOD, url }).then(
        (body) =>
          fail(
            errorFromResponse(code, responseHeaders(response), body, {
              method: UPGRADE_METHOD,
              ...options.errorTarget,
            }),
          ),
        (err: unknown) => fail(new TransportError(UPGRADE_METHOD, url.href, err)),
      );
    };
    const onError = (err: Error): void => {
      if (!answered) {
        observe(NO_RESPONSE_CODE);
        fail(new TransportError(UPGRADE_METHOD, url.href, err));
      } else if (!options.protocols.includes(negotiated)) {
        fail(new StreamUpgradeError(url.href, options.protocols, negotiated));
      } else {
        fail(new StreamUpgradeError(url.href, options.protocols, negotiated, err));
      }
    };
    const onOpen = (): void => {
      socket.pause();
      if (!settle()) return;
      socket.off("error", onError);
      resolve({ socket, protocol: socket.protocol });
    };

    socket.on("upgrade", onUpgrade);
    socket.on("unexpected-response", onUnexpectedResponse);
    socket.on("error", onError);
    socket.on("open", onOpen);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The tunnel through `config.proxyUrl` to the server of `url`, or undefined without a
 * proxy.
 *
 * @throws {TransportError} when the proxy cannot be reached or refuses the tunnel.
 */
async function proxyTunnel(
  client: RESTClient,
  url: URL,
  signal: AbortSignal | undefined,
): Promise<Socket | undefined> {
  const proxyUrl = client.config.proxyUrl;
  if (proxyUrl === undefined || proxyUrl === "") return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80);
  try {
    return await openConnectTunnel(new URL(proxyUrl), host, port, signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new TransportError(UPGRADE_METHOD, url.href, err);
  }
}

/**
 * The `createConnection` of a WebSocket through a proxy tunnel: the tunnel itself for
 * `http:`, TLS over it for `https:`, the certificate checked against the URL's host (or the
 * config's `serverName`, which is also the SNI; else the host unless it is an IP address),
 * as a direct connection does.
 */
function overTunnel(url: URL, settings: ConnectionSettings, tunnel: Socket): () => Socket {
  if (url.protocol !== "https:") return () => tunnel;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const servername = settings.tls.servername ?? (isIP(host) === 0 ? host : undefined);
  return () =>
    connectTls({ ...settings.tls, socket: tunnel, host, ...(servername ? { servername } : {}) });
}

/** A Node response's headers without absent values. */
function responseHeaders(response: IncomingMessage): ResponseHeaders {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) out[name] = value;
  }
  return out;
}
