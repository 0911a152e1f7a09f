/**
 * The fluent request builder of {@link RESTClient} (client-go's `rest.Request`).
 */
import { posix } from "node:path";
import type { Readable } from "node:stream";
import { formatGoDuration } from "../core/go-duration.js";
import { StatusError } from "../core/status.js";
import { LineStream } from "./line-stream.js";
import type { PatchType } from "./patch-type.js";
import { ResponseDecodeError } from "./request-errors.js";
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  QueryParams,
  UpdateOptions,
} from "./request-options.js";
import {
  deleteOptionsBody,
  encodeGetOptions,
  encodeListOptions,
  encodePatchOptions,
  encodeWriteOptions,
} from "./request-options.js";
import type {
  ExecutionOptions,
  PreparedRequest,
  ReceivedResponse,
  RequestContext,
} from "./request-executor.js";
import { executeRequest, readBody } from "./request-executor.js";
import type { ErrorRequestInfo } from "./response-errors.js";
import { decodeResponseStatus, errorFromResponse, headerValue } from "./response-errors.js";
import type { WatchChunkDecoder } from "./decoded-watch.js";
import { DecodedWatch } from "./decoded-watch.js";
import type { OpenResponseBody, ResponseStreamOptions } from "./response-stream.js";
import type { RestResponse } from "./rest-response.js";
import type { TransportRetryRule } from "./retry-policy.js";
import type { HttpMethod } from "./transport.js";
import type { WatchOptions } from "./watch.js";
import { WatchIdleTimeoutError } from "./watch-errors.js";
import { Watch, watchIdleTimeoutMs } from "./watch.js";

/** What a builder needs from its client besides the request context. */
export interface RequestClient extends RequestContext {
  /** The parsed `config.host`. */
  readonly baseUrl: URL;
  /** Default retry limit per request. */
  readonly maxRetries: number;
  /** Default timeout per request in ms (undefined: none). */
  readonly timeoutMs: number | undefined;
}

/** The Accept header client-go sends for JSON clients. */
const DEFAULT_ACCEPT = "application/json, */*";

const JSON_CONTENT_TYPE = "application/json";

/**
 * Whether a path segment is acceptable as a namespace, resource, name or subresource
 * (apimachinery's IsValidPathSegmentName: not `.` or `..`, no `/` or `%`).
 */
function checkSegment(kind: string, value: string): void {
  if (value === "." || value === ".." || value.includes("/") || value.includes("%")) {
    throw new TypeError(
      `invalid ${kind} ${JSON.stringify(value)}: may not be '.', '..', or contain '/' or '%'`,
    );
  }
}

/** Escapes a path segment as Go's URL.EscapedPath does (keeps `$&+,:;=@`). */
function escapePathSegment(segment: string): string {
  return encodeURIComponent(segment)
    .replace(/%(24|26|2B|2C|3A|3B|3D|40)/g, (escaped) => decodeURIComponent(escaped))
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Escapes a query key or value as Go's url.QueryEscape (space → `+`). */
function escapeQuery(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

function isSuccess(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300;
}

/**
 * Builds and sends one API request. Obtain it from `RESTClient.get()/post()/put()/
 * patch(type)/delete()`, chain the setters (each returns the builder), then call one
 * executor. The path is `<host path><prefix>/namespaces/<ns>/<resource>/<name>/<subresource>`
 * where the prefix is `.absPath(...)`, or `/api/<version>` for the core group and
 * `/apis/<group>/<version>` otherwise; parts not set are left out.
 *
 * Setters validate eagerly and throw `TypeError` on an invalid namespace, resource, name or
 * subresource (apimachinery's path segment rules) or an empty name. Executors may be called
 * more than once; each call sends a new request built from the current settings.
 */
export class RequestBuilder {
  readonly #client: RequestClient;
  readonly #method: HttpMethod;
  readonly #patchType: PatchType | undefined;
  #absPath: string | undefined;
  #group = "";
  #version: string | undefined;
  #namespace = "";
  #resource = "";
  #name = "";
  #subresource: string[] = [];
  readonly #params: QueryParams = new Map();
  readonly #headers: Record<string, string> = {};
  #accept = DEFAULT_ACCEPT;
  #body: Uint8Array | undefined;
  #contentType: string | undefined;
  #timeoutMs: number | undefined;
  #signal: AbortSignal | undefined;
  #maxRetries: number | undefined;

  /** Use the `RESTClient` verb methods instead. */
  constructor(client: RequestClient, method: HttpMethod, patchType?: PatchType) {
    this.#client = client;
    this.#method = method;
    this.#patchType = patchType;
  }

  /**
   * Sets the path prefix to the joined segments (relative to the host's path), replacing
   * `.group()/.version()`; e.g. `.absPath("/version")`, `.absPath("/apis", "apps", "v1")`.
   * Namespace, resource, name and subresource are appended after it.
   */
  absPath(...segments: string[]): this {
    this.#absPath = segments.join("/");
    return this;
  }

  /** The API group; `""` (the default) is the core group, served under `/api`. */
  group(group: string): this {
    this.#group = group;
    return this;
  }

  /** The API version, e.g. `v1`; with the group it forms the `/api/v1` or `/apis/G/V` prefix. */
  version(version: string): this {
    this.#version = version;
    return this;
  }

  /** The namespace; `""` means none (cluster-scoped, or all namespaces). */
  namespace(namespace: string): this {
    if (namespace !== "") checkSegment("namespace", namespace);
    this.#namespace = namespace;
    return this;
  }

  /** The resource (plural, lower-cased as client-go does), e.g. `pods`. */
  resource(resource: string): this {
    checkSegment("resource", resource);
    this.#resource = resource.toLowerCase();
    return this;
  }

  /** The object name. @throws {TypeError} when empty or not a valid path segment. */
  name(name: string): this {
    if (name === "") throw new TypeError("resource name may not be empty");
    checkSegment("name", name);
    this.#name = name;
    return this;
  }

  /** The subresource, e.g. `status`, `scale`, `log` (several segments are joined). */
  subresource(...segments: string[]): this {
    for (const segment of segments) checkSegment("subresource", segment);
    this.#subresource = segments;
    return this;
  }

  /** Adds a query parameter value (repeated calls with one name add values). */
  param(name: string, value: string | number | boolean): this {
    const values = this.#params.get(name) ?? [];
    values.push(String(value));
    this.#params.set(name, values);
    return this;
  }

  /** Sets list/watch options as query parameters (replacing the same parameters). */
  listOptions(options: ListOptions): this {
    encodeListOptions(this.#params, options);
    return this;
  }

  /** Sets get options as query parameters. */
  getOptions(options: GetOptions): this {
    encodeGetOptions(this.#params, options);
    return this;
  }

  /** Sets create options as query parameters. */
  createOptions(options: CreateOptions): this {
    encodeWriteOptions(this.#params, options);
    return this;
  }

  /** Sets update options as query parameters. */
  updateOptions(options: UpdateOptions): this {
    encodeWriteOptions(this.#params, options);
    return this;
  }

  /** Sets patch options as query parameters. */
  patchOptions(options: PatchOptions): this {
    encodePatchOptions(this.#params, options);
    return this;
  }

  /** Sends delete options as the JSON body (as client-go and kubectl), when any is set. */
  deleteOptions(options: DeleteOptions): this {
    const body = deleteOptionsBody(options);
    if (body !== undefined) this.body(body);
    return this;
  }

  /** Sets a request header (replacing an earlier value; names are case-insensitive). */
  header(name: string, value: string): this {
    this.#headers[name.toLowerCase()] = value;
    return this;
  }

  /** The Accept header (default: `application/json`, then any media type, as client-go). */
  accept(mediaType: string): this {
    this.#accept = mediaType;
    return this;
  }

  /**
   * The request body: an object is sent as JSON, a string as UTF-8, bytes as they are. The
   * Content-Type is `contentType`, else the patch type for PATCH, else `application/json`.
   */
  body(value: object | string | Uint8Array, contentType?: string): this {
    if (value instanceof Uint8Array) this.#body = value;
    else if (typeof value === "string") this.#body = Buffer.from(value, "utf8");
    else this.#body = Buffer.from(JSON.stringify(value), "utf8");
    this.#contentType = contentType;
    return this;
  }

  /**
   * A deadline for the request in ms, also sent to the server as `?timeout=` (Go duration,
   * e.g. `32s`), as client-go's `Timeout`. Overrides the config's `timeoutMs`. Covers
   * throttling, retries and reading the body for `do`/`doRaw`; only the wait for response
   * headers for `watch`/`stream`. Rejects with RequestTimeoutError when it expires.
   */
  timeout(ms: number): this {
    if (!(ms > 0) || !Number.isFinite(ms)) {
      throw new RangeError(`timeout must be a positive number of ms, got ${ms}`);
    }
    this.#timeoutMs = ms;
    this.#params.set("timeout", [formatGoDuration(ms)]);
    return this;
  }

  /** Aborting the signal aborts the request (executors reject with `signal.reason`). */
  signal(signal: AbortSignal): this {
    this.#signal = signal;
    return this;
  }

  /** The retry limit of this request (default: the client's, 10); 0 disables retries. */
  maxRetries(count: number): this {
    if (!Number.isInteger(count) || count < 0) {
      throw new RangeError(`maxRetries must be an integer >= 0, got ${count}`);
    }
    this.#maxRetries = count;
    return this;
  }

  /** The URL the request is sent to (query parameters sorted by name, as Go encodes them). */
  url(): URL {
    return this.#buildUrl(this.#params);
  }

  #buildUrl(params: QueryParams): URL {
    const base = this.#client.baseUrl;
    let prefix = "";
    if (this.#absPath !== undefined) {
      prefix = this.#absPath
        .split("/")
        .map((part) => (part === "" ? "" : escapePathSegment(part)))
        .join("/");
    } else if (this.#version !== undefined) {
      prefix =
        this.#group === ""
          ? `/api/${escapePathSegment(this.#version)}`
          : `/apis/${escapePathSegment(this.#group)}/${escapePathSegment(this.#version)}`;
    }
    const segments: string[] = [];
    if (this.#namespace !== "") segments.push("namespaces", this.#namespace);
    if (this.#resource !== "") segments.push(this.#resource);
    if (this.#name !== "") segments.push(this.#name);
    segments.push(...this.#subresource);
    let path = posix.join("/", base.pathname, prefix, ...segments.map(escapePathSegment));
    if (segments.length === 0 && prefix.endsWith("/") && !path.endsWith("/")) path += "/";
    const url = new URL(base.href);
    url.pathname = path;
    const query = [...params.keys()]
      .sort()
      .flatMap((key) => (params.get(key) ?? []).map((v) => `${escapeQuery(key)}=${escapeQuery(v)}`))
      .join("&");
    url.search = query === "" ? "" : `?${query}`;
    url.hash = "";
    return url;
  }

  /**
   * Sends the request (throttled, retried as client-go) and decodes a 2xx JSON body.
   * An empty body gives `undefined` as the body (include it in `T` where it can happen).
   *
   * @throws {StatusError} for a non-2xx answer, or a 2xx whose body is a Failure Status.
   * @throws {ResponseDecodeError} for a 2xx body that is not JSON (use {@link doRaw}).
   * @throws {TransportError} / {@link RequestTimeoutError} / `signal.reason` as
   *   `executeRequest` describes.
   */
  async do<T = unknown>(): Promise<RestResponse<T>> {
    return this.#execute(async (response, prepared) => {
      const body = await readBody(response.body, this.#client.maxResponseBodyBytes, prepared);
      if (!isSuccess(response.statusCode)) throw this.#errorOf(response, body);
      if (body.length === 0) return toRestResponse(response, undefined as T);
      let value: unknown;
      try {
        value = JSON.parse(body.toString("utf8"));
      } catch (err) {
        throw new ResponseDecodeError(
          response.statusCode,
          headerValue(response.headers, "content-type"),
          err,
        );
      }
      const status = decodeResponseStatus(value);
      if (status !== undefined && status.status === "Failure") {
        throw new StatusError({
          ...status,
          code: status.code !== 0 ? status.code : response.statusCode,
        });
      }
      return toRestResponse(response, value as T);
    });
  }

  /**
   * Sends the request and returns the 2xx body as bytes (after gzip decoding).
   *
   * @throws {StatusError} for a non-2xx answer; otherwise as {@link do}.
   */
  async doRaw(): Promise<RestResponse<Uint8Array>> {
    return this.#execute(async (response, prepared) => {
      const body = await readBody(response.body, this.#client.maxResponseBodyBytes, prepared);
      if (!isSuccess(response.statusCode)) throw this.#errorOf(response, body);
      return toRestResponse(response, new Uint8Array(body.buffer, body.byteOffset, body.length));
    });
  }

  /**
   * A watch of the built request (`watch=true` is added). Nothing is sent until iteration
   * starts; a non-2xx answer is thrown from the first iteration. Watches are not throttled by
   * the client-side rate limiter; a 429/5xx answer with `Retry-After` is retried as for
   * `do`, and so is a connection that broke or timed out before the response (client-go's
   * `Request.Watch`: probable EOF or timeout), after 1 s. The idle deadline (`timeoutSeconds`
   * from `.listOptions()`, else 5 min, plus `options.idleGraceMs`, default 30 s; or
   * `options.idleTimeoutMs`) covers the wait for the response headers and every wait for the
   * next event, however many bytes arrive without completing one. A frame over
   * `options.maxFrameBytes` (default 16 MiB) ends the watch with `WatchFrameTooLargeError`.
   */
  watch<T = unknown>(options: WatchOptions = {}): Watch<T> {
    const { open, streamOptions } = this.#watchRequest(options);
    return new Watch<T>(open, streamOptions, options.maxFrameBytes);
  }

  /**
   * The same watch request as {@link watch} (retries, idle deadline, lifecycle), its
   * response bytes decoded by `decoder` instead of the JSON frame decoder: the raw access
   * that the lazy informer's ListerWatcher scans. `options.maxFrameBytes` is the decoder's
   * business (ignored here).
   */
  watchDecoded<E>(decoder: WatchChunkDecoder<E>, options: WatchOptions = {}): DecodedWatch<E> {
    const { open, streamOptions } = this.#watchRequest(options);
    return new DecodedWatch<E>(open, streamOptions, decoder);
  }

  /** How a watch of the built request (`watch=true` added) is opened, and its stream settings. */
  #watchRequest(options: WatchOptions): {
    open: OpenResponseBody;
    streamOptions: ResponseStreamOptions;
  } {
    const timeoutParam = this.#params.get("timeoutSeconds")?.[0];
    const idleMs = watchIdleTimeoutMs(
      timeoutParam !== undefined ? Number(timeoutParam) : undefined,
      options,
    );
    const params: QueryParams = new Map(this.#params);
    params.set("watch", ["true"]);
    const prepared = this.#prepare(params);
    const execution = this.#executionOptions(true, false, "watch");
    return {
      open: (signal) => this.#openStream(prepared, execution, signal),
      streamOptions: this.#streamOptions(prepared, idleMs),
    };
  }

  /**
   * The response body as a stream of lines (e.g. `pods/NAME/log` with `follow=true`).
   * Throttled like `do`; nothing is sent until iteration starts; a non-2xx answer is thrown
   * from the first iteration. As client-go's `Request.Stream`, only a `Retry-After` answer is
   * retried, never a transport error. A line over 16 MiB ends the stream with
   * `ResponseTooLargeError`.
   */
  stream(): LineStream {
    const prepared = this.#prepare();
    const execution = this.#executionOptions(true, true, "none");
    return new LineStream(
      (signal) => this.#openStream(prepared, execution, signal),
      this.#streamOptions(prepared, undefined),
    );
  }

  #streamOptions(prepared: PreparedRequest, idleMs: number | undefined): ResponseStreamOptions {
    return {
      method: prepared.method,
      url: prepared.url.href,
      clock: this.#client.clock,
      ...(this.#signal !== undefined ? { signal: this.#signal } : {}),
      ...(idleMs !== undefined
        ? {
            idle: {
              ms: idleMs,
              error: () => new WatchIdleTimeoutError(idleMs),
            },
          }
        : {}),
    };
  }

  async #openStream(
    prepared: PreparedRequest,
    execution: ExecutionOptions,
    signal: AbortSignal,
  ): Promise<Readable> {
    return executeRequest(this.#client, prepared, { ...execution, signal }, async (response) => {
      if (isSuccess(response.statusCode)) return response.body;
      const body = await readBody(response.body, this.#client.maxResponseBodyBytes, prepared);
      throw this.#errorOf(response, body);
    });
  }

  #executionOptions(
    streaming: boolean,
    throttle: boolean,
    transportRetry: TransportRetryRule,
  ): ExecutionOptions {
    return {
      throttle,
      streaming,
      transportRetry,
      maxRetries: this.#maxRetries ?? this.#client.maxRetries,
      signal: this.#signal,
      timeoutMs: this.#timeoutMs ?? this.#client.timeoutMs,
    };
  }

  #execute<R>(
    consume: (response: ReceivedResponse, prepared: PreparedRequest) => Promise<R>,
  ): Promise<R> {
    const prepared = this.#prepare();
    return executeRequest(
      this.#client,
      prepared,
      this.#executionOptions(false, true, "request"),
      (response) => consume(response, prepared),
    );
  }

  #prepare(params: QueryParams = this.#params): PreparedRequest {
    const headers: Record<string, string> = { accept: this.#accept, ...this.#headers };
    if (this.#body !== undefined && headers["content-type"] === undefined) {
      headers["content-type"] = this.#contentType ?? this.#patchType ?? JSON_CONTENT_TYPE;
    }
    return {
      method: this.#method,
      url: this.#buildUrl(params),
      headers,
      body: this.#body,
      errorInfo: this.#errorInfo(),
    };
  }

  #errorInfo(): ErrorRequestInfo {
    return {
      method: this.#method,
      group: this.#group,
      ...(this.#resource !== "" ? { resource: this.#resource } : {}),
      ...(this.#name !== "" ? { name: this.#name } : {}),
    };
  }

  #errorOf(response: ReceivedResponse, body: Uint8Array): StatusError {
    return errorFromResponse(response.statusCode, response.headers, body, this.#errorInfo());
  }
}

function toRestResponse<T>(response: ReceivedResponse, body: T): RestResponse<T> {
  return {
    statusCode: response.statusCode,
    body,
    headers: response.headers,
    warnings: response.warnings,
  };
}
