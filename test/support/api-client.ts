import { Agent, request, type Dispatcher } from "undici";
import type { ApiServer } from "@kubekit/apiserver";

/** A raw HTTP response as tests inspect it. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/** Options of one raw request. */
export interface RawRequestOptions {
  readonly body?: unknown;
  /** Content-Type; defaults to application/json when a body is given (null sends none). */
  readonly contentType?: string | null;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
}

/** One watch event as the server sent it. */
export interface RawWatchEvent {
  readonly type: string;
  readonly object: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/**
 * A minimal HTTP client for tests of the embedded server's wire behaviour: exact status
 * codes, headers and bodies, and watch streams read frame by frame. (The library's own
 * clients are tested separately; these tests check the server against kube-apiserver.)
 */
export class ApiClient {
  private readonly dispatcher: Dispatcher;

  constructor(
    readonly baseUrl: string,
    options: { ca?: string; cert?: string; key?: string; token?: string } = {},
  ) {
    this.dispatcher = new Agent({
      connect: {
        ...(options.ca ? { ca: options.ca } : {}),
        ...(options.cert ? { cert: options.cert, key: options.key } : {}),
      },
      keepAliveTimeout: 1_000,
    });
    this.token = options.token;
  }

  private readonly token: string | undefined;

  static for(
    server: ApiServer,
    options: { cert?: string; key?: string; token?: string } = {},
  ): ApiClient {
    return new ApiClient(server.url, { ...(server.caPem ? { ca: server.caPem } : {}), ...options });
  }

  async request(
    method: string,
    path: string,
    options: RawRequestOptions = {},
  ): Promise<RawResponse> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.token) headers["authorization"] = `Bearer ${this.token}`;
    let body: string | Buffer | undefined;
    if (options.body !== undefined) {
      body =
        typeof options.body === "string" || Buffer.isBuffer(options.body)
          ? options.body
          : JSON.stringify(options.body);
      if (options.contentType !== null)
        headers["content-type"] = options.contentType ?? "application/json";
    }
    const res = await request(this.baseUrl + path, {
      method: method as Dispatcher.HttpMethod,
      headers,
      body,
      dispatcher: this.dispatcher,
      ...(options.signal ? { signal: options.signal } : {}),
      headersTimeout: 20_000,
      bodyTimeout: 20_000,
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text, json };
  }

  get(path: string, options?: RawRequestOptions): Promise<RawResponse> {
    return this.request("GET", path, options);
  }
  post(path: string, body: unknown, options?: RawRequestOptions): Promise<RawResponse> {
    return this.request("POST", path, { ...options, body });
  }
  put(path: string, body: unknown, options?: RawRequestOptions): Promise<RawResponse> {
    return this.request("PUT", path, { ...options, body });
  }
  patch(
    path: string,
    body: unknown,
    contentType: string,
    options?: RawRequestOptions,
  ): Promise<RawResponse> {
    return this.request("PATCH", path, { ...options, body, contentType });
  }
  delete(path: string, body?: unknown, options?: RawRequestOptions): Promise<RawResponse> {
    return this.request("DELETE", path, { ...options, ...(body !== undefined ? { body } : {}) });
  }

  /**
   * Opens a watch and returns its status, headers and an async iterator of events; the
   * stream is closed by `close()` or by breaking out of the iteration.
   */
  async watch(
    path: string,
    options: { headers?: Record<string, string> } = {},
  ): Promise<WatchHandle> {
    const controller = new AbortController();
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.token) headers["authorization"] = `Bearer ${this.token}`;
    const res = await request(this.baseUrl + path, {
      method: "GET",
      headers,
      dispatcher: this.dispatcher,
      signal: controller.signal,
      headersTimeout: 20_000,
      bodyTimeout: 0,
    });
    return new WatchHandle(res, controller);
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

/** An open watch response. */
export class WatchHandle {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  private buffer = "";
  private ended = false;
  private readonly iterator: AsyncIterator<Buffer>;

  constructor(
    private readonly res: Dispatcher.ResponseData,
    private readonly controller: AbortController,
  ) {
    this.status = res.statusCode;
    this.headers = res.headers;
    this.iterator = (res.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }

  /** The next event, or undefined when the server ended the stream. Rejects after `timeoutMs`. */
  async next(timeoutMs = 10_000): Promise<RawWatchEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const nl = this.buffer.indexOf("\n");
      if (nl >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (line.trim() === "") continue;
        return JSON.parse(line) as RawWatchEvent;
      }
      if (this.ended) return undefined;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`no watch event within ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        this.iterator.next(),
        new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), remaining);
        }),
      ]).catch((err: unknown) => {
        if ((err as Error).name === "AbortError") return { done: true as const, value: undefined };
        throw err;
      });
      clearTimeout(timer);
      if (chunk === "timeout") throw new Error(`no watch event within ${timeoutMs} ms`);
      if (chunk.done) this.ended = true;
      else this.buffer += chunk.value.toString("utf8");
    }
  }

  /** Collects `count` events. */
  async take(count: number, timeoutMs = 10_000): Promise<RawWatchEvent[]> {
    const out: RawWatchEvent[] = [];
    while (out.length < count) {
      const ev = await this.next(timeoutMs);
      if (!ev) break;
      out.push(ev);
    }
    return out;
  }

  /** Reads events until the server ends the stream (bounded by `timeoutMs` overall). */
  async rest(timeoutMs = 10_000): Promise<RawWatchEvent[]> {
    const deadline = Date.now() + timeoutMs;
    const out: RawWatchEvent[] = [];
    for (;;) {
      const ev = await this.next(Math.max(1, deadline - Date.now()));
      if (!ev) return out;
      out.push(ev);
    }
  }

  /** Whether the server has ended the stream (after a `next` returned undefined). */
  get done(): boolean {
    return this.ended;
  }

  close(): void {
    this.controller.abort();
    this.res.body.destroy();
  }
}
