/**
 * A watch whose response bytes are decoded by a caller-supplied decoder: the raw (bytes)
 * access to a watch that decoders other than JSON.parse (the lazy informer's metadata
 * scanner) are built on.
 */
import type { OpenResponseBody, ResponseStreamOptions } from "./response-stream.js";
import { ResponseStream } from "./response-stream.js";

/**
 * Turns a watch response's bytes into items, incrementally. Chunks arrive as the network
 * delivers them: a chunk may hold many frames, part of one, or end inside a multi-byte
 * character. The decoder owns frame limits and errors.
 */
export interface WatchChunkDecoder<E> {
  /**
   * Decodes one chunk, appending the items it completes to `out`; on a decode error it
   * appends the items completed before the error, then throws (the stream delivers those
   * items, then fails with the error).
   */
  write(chunk: Uint8Array, out: E[]): void;
  /**
   * The items left at a clean end of the response.
   *
   * @throws when the response ended inside a frame (a truncated stream).
   */
  end(): readonly E[];
}

/**
 * The items of one `?watch=true` response as decoded by a {@link WatchChunkDecoder}, with
 * the lifecycle of every watch (see `ResponseStream` and `Watch`: lazy request, one
 * iteration, `close()`, abort, idle deadline counting bytes that complete no item, broken
 * connections as `TransportError`). Built by `RequestBuilder.watchDecoded`.
 */
export class DecodedWatch<E> extends ResponseStream<E> {
  readonly #decoder: WatchChunkDecoder<E>;

  /** @internal built by `RequestBuilder.watchDecoded`. */
  constructor(
    open: OpenResponseBody,
    options: ResponseStreamOptions,
    decoder: WatchChunkDecoder<E>,
  ) {
    super(open, options);
    this.#decoder = decoder;
  }

  protected decode(chunk: Uint8Array, out: E[]): void {
    this.#decoder.write(chunk, out);
  }

  protected finish(): readonly E[] {
    return this.#decoder.end();
  }
}
