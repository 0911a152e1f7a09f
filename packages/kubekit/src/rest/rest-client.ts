/**
 * `RESTClient`: the entry point of the REST layer (client-go's `rest.RESTClient`).
 */
import { constants } from "node:buffer";
import type { Clock } from "../core/clock.js";
import { realClock } from "../core/clock.js";
import type { Logger } from "../core/logger.js";
import { consoleLogger } from "../core/logger.js";
import { TokenBucket } from "../core/token-bucket.js";
import { DEFAULT_BURST, DEFAULT_QPS, type RestConfig } from "../config/rest-config.js";
import type { PatchType } from "./patch-type.js";
import type { RequestClient } from "./request-builder.js";
import type { RequestMetrics } from "./request-metrics.js";
import { RequestBuilder } from "./request-builder.js";
import { DEFAULT_MAX_RETRIES } from "./retry-policy.js";
import type { HttpMethod } from "./transport.js";
import { Transport } from "./transport.js";
import type { WarningHandler } from "./warnings.js";
import { createWarningLogger } from "./warnings.js";

/** Options of a {@link RESTClient} beyond its {@link RestConfig}. */
export interface RESTClientOptions {
  /** Time source for throttling, Retry-After waits, timeouts and watch idle deadlines (default: real). */
  readonly clock?: Clock;
  /** Where throttling, retries and (by default) warnings are logged (default: {@link consoleLogger}). */
  readonly logger?: Logger;
  /** Receives server warnings (default: log each distinct warning once through `logger`). */
  readonly warningHandler?: WarningHandler;
  /**
   * The client-side rate limiter, e.g. one shared by several clients. Default: a bucket of
   * `config.qps` (0 → 5) and `config.burst` (<= 0 → 10) on `clock`; none when qps < 0.
   * Pass `new TokenBucket(-1, 0)` to disable limiting regardless of the config.
   */
  readonly rateLimiter?: TokenBucket;
  /** Retries per request (default 10, client-go's). */
  readonly maxRetries?: number;
  /** The transport (default: the one shared by every client of the same config object). */
  readonly transport?: Transport;
  /**
   * The longest buffered response body (`do()`, `doRaw()`, error bodies) in bytes after gzip
   * decoding (default {@link DEFAULT_MAX_RESPONSE_BODY_BYTES}); a longer one fails with
   * `ResponseTooLargeError`.
   */
  readonly maxResponseBodyBytes?: number;
  /** Told of every request attempt's method, host, status code and duration (default: none). */
  readonly metrics?: RequestMetrics;
}

/**
 * The default longest buffered response body: V8's longest string
 * (`buffer.constants.MAX_STRING_LENGTH`, 2^29 - 24 characters on 64-bit Node), beyond which
 * a body could not be decoded as text or JSON anyway. client-go sets no limit; this one bounds
 * what a decompression bomb or a never-ending body can make the client buffer.
 */
export const DEFAULT_MAX_RESPONSE_BODY_BYTES = constants.MAX_STRING_LENGTH;

/**
 * The default rate limiter of a config, as client-go's RESTClientFor: qps 0 means
 * {@link DEFAULT_QPS}, burst <= 0 means {@link DEFAULT_BURST}, a negative qps means no
 * limiter (undefined).
 */
export function defaultRateLimiter(config: RestConfig, clock: Clock): TokenBucket | undefined {
  const qps = config.qps === 0 ? DEFAULT_QPS : config.qps;
  if (qps < 0) return undefined;
  const burst = config.burst > 0 ? config.burst : DEFAULT_BURST;
  return new TokenBucket(qps, burst, clock);
}

/**
 * Sends API requests for one {@link RestConfig} with client-go's semantics: client-side
 * token-bucket throttling (QPS 5 / burst 10 by default; watches exempt), `Retry-After`
 * retries (429/5xx, at most 10) and GET retries after connection resets, `Status` error
 * decoding into `StatusError`, warning headers, and watch / line streams.
 *
 * ```ts
 * const client = new RESTClient(config);
 * const { body } = await client.get().version("v1").namespace("default").resource("pods").do<PodList>();
 * for await (const ev of client.get().version("v1").resource("pods").listOptions({ timeoutSeconds: 300 }).watch<Pod>()) { … }
 * ```
 *
 * Every method is safe to call concurrently. A client holds no resources of its own; its
 * transport's connections are shared per config (close them with `transport.close()`).
 */
export class RESTClient implements RequestClient {
  readonly config: RestConfig;
  readonly transport: Transport;
  readonly rateLimiter: TokenBucket | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly warningHandler: WarningHandler;
  readonly maxRetries: number;
  readonly timeoutMs: number | undefined;
  readonly maxResponseBodyBytes: number;
  readonly requestMetrics: RequestMetrics | undefined;
  /** The parsed `config.host`; do not mutate. */
  readonly baseUrl: URL;

  /**
   * @throws {TypeError} when `config.host` is not an absolute URL.
   * @throws {UnsupportedProxyError} when `config.proxyUrl` is not an http(s) URL.
   * @throws {RangeError} for an invalid qps/burst, `maxRetries` or `maxResponseBodyBytes`.
   */
  constructor(config: RestConfig, options: RESTClientOptions = {}) {
    this.baseUrl = new URL(config.host);
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) {
      throw new RangeError(`maxRetries must be an integer >= 0, got ${maxRetries}`);
    }
    const maxBodyBytes = options.maxResponseBodyBytes ?? DEFAULT_MAX_RESPONSE_BODY_BYTES;
    if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) {
      throw new RangeError(`maxResponseBodyBytes must be a positive integer, got ${maxBodyBytes}`);
    }
    this.maxResponseBodyBytes = maxBodyBytes;
    this.config = config;
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? consoleLogger;
    this.warningHandler = options.warningHandler ?? createWarningLogger(this.logger);
    const limiter = options.rateLimiter ?? defaultRateLimiter(config, this.clock);
    this.rateLimiter = limiter?.limited ? limiter : undefined;
    this.maxRetries = maxRetries;
    this.timeoutMs =
      config.timeoutMs !== undefined && config.timeoutMs > 0 ? config.timeoutMs : undefined;
    this.transport = options.transport ?? Transport.forConfig(config);
    this.requestMetrics = options.metrics;
  }

  /** A GET request. */
  get(): RequestBuilder {
    return this.verb("GET");
  }

  /** A POST request (create). */
  post(): RequestBuilder {
    return this.verb("POST");
  }

  /** A PUT request (update / replace). */
  put(): RequestBuilder {
    return this.verb("PUT");
  }

  /** A PATCH request; the patch type is the body's Content-Type. */
  patch(patchType: PatchType): RequestBuilder {
    return new RequestBuilder(this, "PATCH", patchType);
  }

  /** A DELETE request. */
  delete(): RequestBuilder {
    return this.verb("DELETE");
  }

  /** A request with any of the supported methods. */
  verb(method: HttpMethod): RequestBuilder {
    return new RequestBuilder(this, method);
  }
}
