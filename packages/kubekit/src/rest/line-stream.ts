/**
 * A streamed text response (e.g. `pods/log?follow=true`) as an async iterable of lines.
 */
import { ResponseTooLargeError } from "./request-errors.js";
import type { OpenResponseBody, ResponseStreamOptions } from "./response-stream.js";
import { ResponseStream } from "./response-stream.js";

/**
 * The default longest line in bytes: the watch frame limit (16 MiB, apimachinery's streaming
 * decoder), so a body without newlines cannot grow memory without bound.
 */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * The lines of a streamed response body, decoded as UTF-8 (a character split across chunks
 * is kept whole; invalid bytes become U+FFFD). Lines are split on `\n`, which is removed; a
 * `\r` before it is kept. A last line without a trailing newline is yielded when the
 * response ends. A line longer than the limit ends the stream with
 * {@link ResponseTooLargeError}. Lifecycle as {@link ResponseStream}: lazy request, errors
 * from the first iteration, `close()` / break / abort close the connection.
 */
export class LineStream extends ResponseStream<string> {
  readonly #decoder = new TextDecoder();
  readonly #method: string;
  readonly #url: string;
  readonly #maxLineBytes: number;
  #partial = "";
  /** Bytes received since the last newline. */
  #lineBytes = 0;

  /**
   * Built by `RequestBuilder.stream()`; `open` performs the request. Lines longer than
   * `maxLineBytes` (default {@link DEFAULT_MAX_LINE_BYTES}) end the stream.
   */
  constructor(
    open: OpenResponseBody,
    options: ResponseStreamOptions,
    maxLineBytes: number = DEFAULT_MAX_LINE_BYTES,
  ) {
    super(open, options);
    this.#method = options.method;
    this.#url = options.url;
    this.#maxLineBytes = maxLineBytes;
  }

  protected decode(chunk: Uint8Array, out: string[]): void {
    this.#countLineBytes(chunk);
    const text = this.#partial + this.#decoder.decode(chunk, { stream: true });
    const lines = text.split("\n");
    this.#partial = lines.pop() ?? "";
    for (const line of lines) out.push(line);
  }

  /** Tracks the byte length of each line in `chunk`, failing on one over the limit. */
  #countLineBytes(chunk: Uint8Array): void {
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); ; newline = chunk.indexOf(NEWLINE, start)) {
      const end = newline < 0 ? chunk.length : newline;
      this.#lineBytes += end - start;
      if (this.#lineBytes > this.#maxLineBytes) {
        throw new ResponseTooLargeError(this.#method, this.#url, "line", this.#maxLineBytes);
      }
      if (newline < 0) return;
      this.#lineBytes = 0;
      start = newline + 1;
    }
  }

  protected finish(): readonly string[] {
    const rest = this.#partial + this.#decoder.decode();
    this.#partial = "";
    return rest === "" ? [] : [rest];
  }
}
