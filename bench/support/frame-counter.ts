import type { Dispatcher } from "undici";
import { REQUEST_TIMEOUT_MS } from "./http-load.js";

/**
 * One open watch (or any newline-delimited stream) whose frames are counted as they
 * arrive, without parsing: a frame is a newline-terminated line. Optionally keeps the raw
 * bytes, to replay the very same frames from a baseline server.
 */
export class FrameCounter {
  private count = 0;
  private readonly chunks: Buffer[] = [];
  private ended: string | undefined;
  private waiter:
    { target: number; resolve: (at: number) => void; reject: (err: Error) => void } | undefined;

  private constructor(
    private readonly res: Dispatcher.ResponseData,
    private readonly controller: AbortController,
    private readonly record: boolean,
  ) {
    res.body.on("data", (chunk: Buffer) => this.onData(chunk));
    res.body.on("end", () => this.onEnd("the server ended the stream"));
    res.body.on("error", (err: Error) => this.onEnd(`the stream failed: ${err.message}`));
  }

  /** Opens the stream (GET `url`) and resolves once the headers arrived with status 200. */
  static async open(
    pool: Dispatcher,
    url: string,
    options: { readonly record?: boolean } = {},
  ): Promise<FrameCounter> {
    const controller = new AbortController();
    const res = await pool.request({
      method: "GET",
      path: url,
      headers: { accept: "application/json", "user-agent": "kubekit-bench/0.1" },
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: 0,
      signal: controller.signal,
    });
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      throw new Error(`GET ${url}: status ${res.statusCode}: ${text.slice(0, 300)}`);
    }
    return new FrameCounter(res, controller, options.record ?? false);
  }

  /** Frames received so far. */
  get frames(): number {
    return this.count;
  }

  /**
   * Resolves to the `performance.now()` instant at which the `target`-th frame arrived;
   * rejects if the stream ends first or after `timeoutMs`. One wait at a time.
   */
  waitFor(target: number, timeoutMs: number): Promise<number> {
    if (this.count >= target) return Promise.resolve(performance.now());
    if (this.ended !== undefined) {
      return Promise.reject(new Error(`${this.ended} after ${this.count} of ${target} frames`));
    }
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error(`only ${this.count} of ${target} frames within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiter = {
        target,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
    });
  }

  /** The bytes received so far (empty unless opened with `record`). */
  recorded(): Buffer {
    return Buffer.concat(this.chunks);
  }

  /** Closes the stream; idempotent. */
  close(): void {
    this.ended ??= "closed";
    this.controller.abort();
    this.res.body.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.record) this.chunks.push(chunk);
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, nl + 1)) this.count++;
    const waiter = this.waiter;
    if (waiter && this.count >= waiter.target) {
      this.waiter = undefined;
      waiter.resolve(performance.now());
    }
  }

  private onEnd(reason: string): void {
    this.ended ??= reason;
    const waiter = this.waiter;
    if (waiter && this.count < waiter.target) {
      this.waiter = undefined;
      waiter.reject(new Error(`${reason} after ${this.count} of ${waiter.target} frames`));
    }
  }
}
