/**
 * A streamed text response (e.g. `pods/log?follow=true`) as an async iterable of lines.
 */
import type { OpenResponseBody, ResponseStreamOptions } from "./response-stream.js";
import { ResponseStream } from "./response-stream.js";

/**
 * The lines of a streamed response body, decoded as UTF-8 (a character split across chunks
 * is kept whole; invalid bytes become U+FFFD). Lines are split on `\n`, which is removed; a
 * `\r` before it is kept. A last line without a trailing newline is yielded when the
 * response ends. Lifecycle as {@link ResponseStream}: lazy request, errors from the first
 * iteration, `close()` / break / abort close the connection.
 */
export class LineStream extends ResponseStream<string> {
  readonly #decoder = new TextDecoder();
  #partial = "";

  /** Built by `RequestBuilder.stream()`; `open` performs the request. */
  constructor(open: OpenResponseBody, options: ResponseStreamOptions) {
    super(open, options);
  }

  protected *decode(chunk: Uint8Array): Generator<string> {
    const text = this.#partial + this.#decoder.decode(chunk, { stream: true });
    const lines = text.split("\n");
    this.#partial = lines.pop() ?? "";
    yield* lines;
  }

  protected finish(): readonly string[] {
    const rest = this.#partial + this.#decoder.decode();
    this.#partial = "";
    return rest === "" ? [] : [rest];
  }
}
