/**
 * The HTTP transport of a {@link RestConfig}: one keep-alive undici dispatcher with the
 * config's TLS and proxy settings, the credential source's headers and client
 * certificates, the user agent, impersonation headers and gzip decoding.
 */
import type { Readable } from "node:stream";
import { pipeline } from "node:stream";
import type { ConnectionOptions } from "node:tls";
import { createGunzip, createInflate } from "node:zlib";
import type { Dispatcher } from "undici";
import { Agent, ProxyAgent, request } from "undici";
import type { RequestCredentials, RestConfig } from "../config/rest-config.js";
import { impersonationHeaders } from "./impersonation-headers.js";
import { UnsupportedProxyError } from "./request-errors.js";
import { isConnectionResetError } from "./retry-policy.js";
import type { ResponseHeaders } from "./rest-response.js";
import { defaultUserAgent } from "./user-agent.js";

/** The HTTP methods the REST client sends. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One HTTP exchange to perform. */
export interface TransportRequest {
  readonly method: HttpMethod;
  readonly url: URL;
  /** Request headers (names case-insensitive); they override the transport's own. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  /** Aborting it aborts the request and, after the response arrived, closes the body. */
  readonly signal?: AbortSignal;
  /** A long-lived response (watch, log follow): the transport applies no body timeout. */
  readonly streaming: boolean;
}

/** A response whose headers arrived; the body is still to be read. */
export interface TransportResponse {
  readonly statusCode: number;
  readonly headers: ResponseHeaders;
  /**
   * The body, already gunzipped/inflated when the server compressed it. Consume or destroy
   * it: destroying it before its end closes the connection. Its size is not limited here:
   * the REST layer bounds what it buffers (whole bodies, watch frames, stream lines).
   */
  readonly body: Readable;
}

/**
 * What a connection opened outside the transport's pool (a WebSocket upgrade for exec,
 * attach or port-forward) needs to look like the transport's own requests.
 */
export interface ConnectionSettings {
  /**
   * The headers every request carries: `User-Agent`, impersonation headers and the
   * credential source's headers (no `Accept-Encoding`). Names are lower-case; headers with
   * several values are arrays (sent as repeated header lines).
   */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /**
   * Options for `tls.connect` (https hosts): the config's CA, the client certificate (the
   * credential source's, else the static one), `rejectUnauthorized` (false only with
   * `insecureSkipTlsVerify`) and `servername` when the config sets `serverName`.
   */
  readonly tls: TlsConnectionOptions;
}

/** The `tls.connect` options a {@link Transport} derives from its config and credentials. */
export type TlsConnectionOptions = Pick<
  ConnectionOptions,
  "ca" | "cert" | "key" | "rejectUnauthorized" | "servername"
>;

/** A client certificate (PEM) and its key. */
type ClientCertificate = NonNullable<RequestCredentials["clientCertificate"]>;

/** Headers the transport adds to every request. */
type BaseHeaders = Record<string, string | string[]>;

const transports = new WeakMap<RestConfig, Transport>();

/** undici's default timeouts apply to non-streaming requests; streams rely on their own idle handling. */
const NO_TIMEOUT = 0;

/**
 * Sends requests for one {@link RestConfig}.
 *
 * - Connections: one undici `Agent` (keep-alive) per transport, or a `ProxyAgent` for an
 *   `http:`/`https:` `proxyUrl`; any other proxy scheme (socks5, ...) throws
 *   {@link UnsupportedProxyError} from the constructor.
 * - TLS: the config's CA (else the system roots), static client certificate,
 *   `insecureSkipTlsVerify` and `serverName` (SNI and certificate name check). A client
 *   certificate returned by the credential source (exec plugins) replaces the static one;
 *   when it changes, a new dispatcher is created and the old one closed once its requests
 *   finish.
 * - Headers: `User-Agent` (`config.userAgent` or `kubekit/<version> (<os>/<arch>)`),
 *   impersonation headers, `Accept-Encoding: gzip` unless `disableCompression`, then the
 *   credential source's headers, then the request's own (which win).
 * - A 401 response calls `config.credentials.invalidate()` so the next request fetches
 *   fresh credentials; the request itself is not retried.
 * - Non-streaming requests keep undici's default header and body timeouts (300 s) as a
 *   guard against half-open connections; streaming ones have no body timeout.
 * - Stale pooled connections (Go's `net/http` transport rules, `shouldRetryRequest` in
 *   `src/net/http/transport.go`): before each request the transport lets the event loop poll
 *   for I/O once, so a close the server sent on an idle keep-alive connection (a restart, an
 *   idle timeout) is seen and that connection dropped before the request could be written to
 *   it (Go's per-connection read loop sees such an EOF as it arrives; undici's own idle-socket
 *   check runs once per idle period and goes stale). A request that undici never handed to a
 *   connection because that connection was closed or reset (Go's `nothingWrittenError`) is
 *   sent again at once, one time, whatever its method: the server cannot have seen any of
 *   it. A request that was handed to a connection is never resent here (the REST layer
 *   applies client-go's rules to it).
 *
 * Proxy settings from the environment (`HTTPS_PROXY`, ...) are not consulted: only
 * `config.proxyUrl`.
 */
export class Transport {
  readonly config: RestConfig;
  /** The User-Agent sent with every request. */
  readonly userAgent: string;
  readonly #baseHeaders: BaseHeaders;
  #dispatcher: Dispatcher;
  /** Identity of the client certificate the current dispatcher presents. */
  #certificateKey: string;
  #closed = false;

  /** @throws {UnsupportedProxyError} when `config.proxyUrl` is not an http(s) URL. */
  constructor(config: RestConfig) {
    if (config.proxyUrl !== undefined && config.proxyUrl !== "") {
      assertSupportedProxy(config.proxyUrl);
    }
    this.config = config;
    this.userAgent = config.userAgent ?? defaultUserAgent();
    this.#baseHeaders = {
      "user-agent": this.userAgent,
      ...impersonationHeaders(config.impersonate),
      ...(config.disableCompression ? {} : { "accept-encoding": "gzip" }),
    };
    const staticCertificate = this.#staticCertificate();
    this.#certificateKey = certificateKey(staticCertificate);
    this.#dispatcher = this.#createDispatcher(staticCertificate);
  }

  /**
   * The shared transport of a config object: every client built from the same `RestConfig`
   * object uses one connection pool.
   */
  static forConfig(config: RestConfig): Transport {
    let transport = transports.get(config);
    if (transport === undefined || transport.#closed) {
      transport = new Transport(config);
      transports.set(config, transport);
    }
    return transport;
  }

  /**
   * Performs one HTTP exchange and resolves once the response headers arrived. Rejects with
   * the credential source's error, or with undici's error when no response arrived (the
   * caller classifies it); rejects with `request.signal.reason` when it aborts first.
   */
  async send(req: TransportRequest): Promise<TransportResponse> {
    if (this.#closed) throw new Error("Transport is closed");
    const credentials = await this.config.credentials.get(req.signal);
    const dispatcher = this.#dispatcherFor(credentials.clientCertificate);
    const headers = this.#headersWith(credentials);
    for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = value;
    const attempt = async (): Promise<Dispatcher.ResponseData<DispatchRecord>> => {
      await afterIoPoll();
      const record: DispatchRecord = { dispatched: false };
      try {
        return await request(req.url, {
          method: req.method,
          headers,
          ...(req.body !== undefined ? { body: req.body } : {}),
          dispatcher,
          ...(req.signal !== undefined ? { signal: req.signal } : {}),
          ...(req.streaming ? { bodyTimeout: NO_TIMEOUT } : {}),
          opaque: record,
        });
      } catch (err) {
        if (!record.dispatched && !req.signal?.aborted && isConnectionResetError(err)) {
          throw new UnsentAttemptError(err);
        }
        throw err;
      }
    };
    let response: Dispatcher.ResponseData<DispatchRecord>;
    try {
      response = await attempt();
    } catch (err) {
      if (!(err instanceof UnsentAttemptError)) throw err;
      try {
        response = await attempt();
      } catch (again) {
        throw again instanceof UnsentAttemptError ? again.cause : again;
      }
    }
    if (response.statusCode === 401) this.config.credentials.invalidate();
    const responseHeaders = normalizeHeaders(response.headers);
    return {
      statusCode: response.statusCode,
      headers: responseHeaders,
      body: decodeContent(response.body, responseHeaders["content-encoding"]),
    };
  }

  /**
   * The headers and TLS options of a connection that bypasses the pool (WebSocket upgrades):
   * the same credentials (fetched from the credential source now), certificates, User-Agent
   * and impersonation as {@link send} uses. A 401 answer on such a connection should be
   * reported with `config.credentials.invalidate()`, as `send` does for its own. The proxy
   * (`config.proxyUrl`) is not part of it.
   *
   * @throws the credential source's error; `signal.reason` when it aborts first.
   */
  async connectionSettings(signal?: AbortSignal): Promise<ConnectionSettings> {
    const credentials = await this.config.credentials.get(signal);
    const headers = this.#headersWith(credentials);
    delete headers["accept-encoding"];
    const certificate = credentials.clientCertificate ?? this.#staticCertificate();
    return { headers, tls: tlsConnectionOptions(this.config, certificate) };
  }

  /** Closes the connection pool after in-flight requests finish; later sends fail. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#dispatcher.close();
  }

  /** The base headers, then the credential source's (names lower-cased). */
  #headersWith(credentials: RequestCredentials): BaseHeaders {
    const headers: BaseHeaders = { ...this.#baseHeaders };
    for (const [name, value] of Object.entries(credentials.headers)) {
      headers[name.toLowerCase()] = value;
    }
    return headers;
  }

  #staticCertificate(): ClientCertificate | undefined {
    const { certPem, keyPem } = this.config.tls;
    return certPem !== undefined && keyPem !== undefined ? { certPem, keyPem } : undefined;
  }

  #dispatcherFor(fromCredentials: ClientCertificate | undefined): Dispatcher {
    const certificate = fromCredentials ?? this.#staticCertificate();
    const key = certificateKey(certificate);
    if (key !== this.#certificateKey) {
      const previous = this.#dispatcher;
      this.#dispatcher = this.#createDispatcher(certificate);
      this.#certificateKey = key;
      previous.close().catch(() => undefined);
    }
    return this.#dispatcher;
  }

  #createDispatcher(certificate: ClientCertificate | undefined): Dispatcher {
    const tlsOptions = tlsConnectionOptions(this.config, certificate);
    const proxyUrl = this.config.proxyUrl;
    if (proxyUrl !== undefined && proxyUrl !== "") {
      return new ProxyAgent({ uri: proxyUrl, requestTls: tlsOptions }).compose(recordDispatch);
    }
    return new Agent({ connect: tlsOptions }).compose(recordDispatch);
  }
}

/** Whether undici handed one request attempt to a connection (it then writes it at once). */
interface DispatchRecord {
  dispatched: boolean;
}

function isDispatchRecord(value: unknown): value is DispatchRecord {
  return typeof value === "object" && value !== null && "dispatched" in value;
}

/**
 * An undici interceptor that marks a request's {@link DispatchRecord} (passed as `opaque`)
 * when undici dispatches it on a connection: its handler's `onConnect` (legacy handlers, as
 * `request()` uses) or `onRequestStart` runs right before the request is written.
 */
const recordDispatch: Dispatcher.DispatcherComposeInterceptor =
  (dispatch) => (options, handler) => {
    const record = (options as { readonly opaque?: unknown }).opaque;
    if (!isDispatchRecord(record)) return dispatch(options, handler);
    // Methods are called on the original handler (its private state stays reachable).
    const bound = new Map<PropertyKey, unknown>();
    const observed = new Proxy(handler, {
      get(target, property): unknown {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        let method = bound.get(property);
        if (method === undefined) {
          const call = value as (...args: unknown[]) => unknown;
          method =
            property === "onConnect" || property === "onRequestStart"
              ? (...args: unknown[]): unknown => {
                  record.dispatched = true;
                  return call.apply(target, args);
                }
              : call.bind(target);
          bound.set(property, method);
        }
        return method;
      },
    });
    return dispatch(options, observed);
  };

/**
 * Internal to {@link Transport.send}: an attempt failed before undici handed it to a
 * connection, because the connection was closed or reset; `cause` is undici's error.
 */
class UnsentAttemptError extends Error {
  constructor(cause: unknown) {
    super("the request was not sent", { cause });
  }
}

/**
 * Resolves once the event loop has polled for I/O at least once: an immediate queued from
 * inside a check phase runs in the next loop iteration, after its poll phase.
 */
function afterIoPoll(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** Throws {@link UnsupportedProxyError} unless the proxy URL is an http(s) URL. */
function assertSupportedProxy(proxyUrl: string): void {
  let protocol: string;
  try {
    protocol = new URL(proxyUrl).protocol;
  } catch {
    throw new UnsupportedProxyError(proxyUrl);
  }
  if (protocol !== "http:" && protocol !== "https:") throw new UnsupportedProxyError(proxyUrl);
}

/** The TLS options of a connection for `config` presenting `certificate`. */
function tlsConnectionOptions(
  config: RestConfig,
  certificate: ClientCertificate | undefined,
): TlsConnectionOptions {
  const tls = config.tls;
  return {
    ...(tls.caPem !== undefined ? { ca: tls.caPem } : {}),
    ...(certificate !== undefined ? { cert: certificate.certPem, key: certificate.keyPem } : {}),
    rejectUnauthorized: tls.insecureSkipTlsVerify !== true,
    ...(tls.serverName ? { servername: tls.serverName } : {}),
  };
}

function certificateKey(certificate: ClientCertificate | undefined): string {
  return certificate === undefined ? "" : `${certificate.certPem}\u0000${certificate.keyPem}`;
}

function normalizeHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = value;
  }
  return out;
}

/** Wraps a body in a decompressor for `Content-Encoding: gzip` / `deflate`. */
function decodeContent(body: Readable, encoding: string | readonly string[] | undefined): Readable {
  const value = (typeof encoding === "string" ? encoding : encoding?.[0])?.trim().toLowerCase();
  if (value !== "gzip" && value !== "x-gzip" && value !== "deflate") return body;
  const decoder = value === "deflate" ? createInflate() : createGunzip();
  // pipeline destroys every stream when one fails or the consumer destroys the decoder.
  return pipeline(body, decoder, () => undefined);
}
