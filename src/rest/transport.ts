/**
 * The HTTP transport of a {@link RestConfig}: one keep-alive undici dispatcher with the
 * config's TLS and proxy settings, the credential source's headers and client
 * certificates, the user agent, impersonation headers and gzip decoding.
 */
import type { Readable } from "node:stream";
import { pipeline } from "node:stream";
import { createGunzip, createInflate } from "node:zlib";
import type { Dispatcher } from "undici";
import { Agent, ProxyAgent, request } from "undici";
import type { RequestCredentials, RestConfig } from "../config/rest-config.js";
import { impersonationHeaders } from "./impersonation-headers.js";
import { UnsupportedProxyError } from "./request-errors.js";
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
   * it: destroying it before its end closes the connection.
   */
  readonly body: Readable;
}

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
    const headers: BaseHeaders = { ...this.#baseHeaders };
    for (const [name, value] of Object.entries(credentials.headers)) {
      headers[name.toLowerCase()] = value;
    }
    for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = value;
    const response = await request(req.url, {
      method: req.method,
      headers,
      ...(req.body !== undefined ? { body: req.body } : {}),
      dispatcher,
      ...(req.signal !== undefined ? { signal: req.signal } : {}),
      ...(req.streaming ? { bodyTimeout: NO_TIMEOUT } : {}),
    });
    if (response.statusCode === 401) this.config.credentials.invalidate();
    const responseHeaders = normalizeHeaders(response.headers);
    return {
      statusCode: response.statusCode,
      headers: responseHeaders,
      body: decodeContent(response.body, responseHeaders["content-encoding"]),
    };
  }

  /** Closes the connection pool after in-flight requests finish; later sends fail. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#dispatcher.close();
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
    const tls = this.config.tls;
    const tlsOptions = {
      ...(tls.caPem !== undefined ? { ca: tls.caPem } : {}),
      ...(certificate !== undefined ? { cert: certificate.certPem, key: certificate.keyPem } : {}),
      rejectUnauthorized: tls.insecureSkipTlsVerify !== true,
      ...(tls.serverName ? { servername: tls.serverName } : {}),
    };
    const proxyUrl = this.config.proxyUrl;
    if (proxyUrl !== undefined && proxyUrl !== "") {
      return new ProxyAgent({ uri: proxyUrl, requestTls: tlsOptions });
    }
    return new Agent({ connect: tlsOptions });
  }
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
