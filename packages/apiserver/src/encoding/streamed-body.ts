import type { ServerResponse } from "node:http";

/** Bytes gathered before one write to the socket. */
const FLUSH_BYTES = 64 * 1024;

/**
 * A response body written in parts with backpressure: parts are gathered into writes of about
 * 64 KiB; a body that fits in one goes out whole with its Content-Length, a larger one
 * chunked, each write awaiting `drain` when the socket's buffer is full — so a body of any size
 * streams in bounded memory, never as one string.
 *
 * {@link push} returns a promise only when the caller must wait before pushing more; once the
 * client is gone ({@link closed}) parts are dropped and the caller should stop producing them.
 */
export class StreamedBody {
  readonly #res: ServerResponse;
  readonly #code: number;
  readonly #contentType: string;
  #parts: Buffer[] = [];
  #size = 0;
  #started = false;
  #closed = false;

  constructor(res: ServerResponse, code: number, contentType: string) {
    this.#res = res;
    this.#code = code;
    this.#contentType = contentType;
    res.once("close", () => {
      this.#closed = true;
    });
  }

  /** Whether the response is gone (the client disconnected): nothing more is sent. */
  get closed(): boolean {
    return this.#closed || this.#res.destroyed;
  }

  /** Adds a part (strings as UTF-8); a promise when the socket must drain first. */
  push(part: Buffer | string): Promise<void> | undefined {
    const bytes = typeof part === "string" ? Buffer.from(part, "utf8") : part;
    this.#parts.push(bytes);
    this.#size += bytes.length;
    return this.#size >= FLUSH_BYTES ? this.#flush() : undefined;
  }

  /** Sends what is left and ends the response. */
  end(): void {
    if (this.closed) return;
    const body = Buffer.concat(this.#parts, this.#size);
    this.#parts = [];
    if (!this.#started) {
      this.#res.writeHead(this.#code, {
        "Content-Type": this.#contentType,
        "Content-Length": body.length,
      });
    }
    this.#res.end(body);
  }

  #flush(): Promise<void> | undefined {
    const res = this.#res;
    const body = Buffer.concat(this.#parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    if (this.closed) return undefined;
    if (!this.#started) {
      res.writeHead(this.#code, { "Content-Type": this.#contentType });
      this.#started = true;
    }
    if (res.write(body)) return undefined;
    return new Promise<void>((resolve) => {
      const done = (): void => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
  }
}
