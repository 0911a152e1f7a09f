/**
 * The lifecycle shared by streamed responses (watches, followed logs): lazy opening,
 * single-consumer async iteration, close / abort / break handling, an optional idle
 * deadline, and mapping of broken connections to {@link TransportError}.
 */
import type { Readable } from "node:stream";
import type { Clock, TimerHandle } from "../core/clock.js";
import { TransportError } from "./request-errors.js";

/**
 * Sends the request and resolves with the body of a successful response, or rejects with
 * the request's error (e.g. a StatusError for a non-2xx answer). Aborting `signal` must
 * abort the request and close the body.
 */
export type OpenResponseBody = (signal: AbortSignal) => Promise<Readable>;

/** Settings of a {@link ResponseStream}. */
export interface ResponseStreamOptions {
  /** The request method and URL, for errors. */
  readonly method: string;
  readonly url: string;
  /** Aborting it ends the stream: the pending or next iteration rejects with its reason. */
  readonly signal?: AbortSignal;
  /** The clock of the idle deadline. */
  readonly clock: Clock;
  /**
   * When set, the stream fails with `idle.error()` when the consumer has waited `idle.ms` for
   * the next item: the wait for the response headers counts, and so do bytes that complete
   * no item (a trickle); time spent by the consumer holding an item does not.
   */
  readonly idle?: { readonly ms: number; readonly error: () => Error };
}

/** What {@link ResponseStream} maps a failure to when the stream was closed on purpose. */
const CLOSED: unique symbol = Symbol("closed");

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  return Buffer.from(String(chunk), "utf8");
}

/**
 * A streamed response as an `AsyncIterable` of decoded items; subclasses decode the bytes.
 *
 * - The request is sent when iteration starts (the first `next()`); errors of the request
 *   itself (a non-2xx answer → StatusError, no connection → TransportError, ...) are thrown
 *   from that first `next()`.
 * - A stream can be iterated once; a second `[Symbol.asyncIterator]()` call throws.
 * - `close()`, or leaving a `for await` loop (break, return, throw), closes the connection;
 *   after `close()` the iteration ends normally (a pending `next()` resolves done).
 * - Aborting the signal closes the connection and the pending or next `next()` rejects with
 *   `signal.reason`.
 * - A clean end of the response ends the iteration normally (after the decoder's
 *   end-of-stream check); a connection that breaks mid-response throws
 *   {@link TransportError}; the idle deadline throws the configured error.
 * - Every timer it arms is cancelled when the stream ends, is closed or aborted.
 */
export abstract class ResponseStream<T> implements AsyncIterable<T> {
  readonly #open: OpenResponseBody;
  readonly #options: ResponseStreamOptions;
  readonly #controller = new AbortController();
  #started = false;
  #closed = false;
  #failure: Error | undefined;

  protected constructor(open: OpenResponseBody, options: ResponseStreamOptions) {
    this.#open = open;
    this.#options = options;
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Closes the connection (if open); the iteration ends normally. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#controller.abort(new Error("stream closed"));
  }

  /**
   * The items of the stream, once.
   *
   * @throws {TypeError} when called a second time, or after {@link batches}.
   */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    this.#start();
    return this.#items();
  }

  /**
   * The items of the stream, once, in batches: each batch holds the items completed by one
   * read of the response body (never empty), in order. Everything said of the item-by-item
   * iteration holds, batch for batch: the idle deadline does not run while the consumer
   * holds a batch, leaving the loop closes the connection, a decode error is thrown after
   * the batch of the items decoded before it. Consumers that handle many items per
   * event-loop turn (an informer's reflector) take one await per batch instead of one per
   * item.
   *
   * @throws {TypeError} when called a second time, or after `[Symbol.asyncIterator]()`.
   */
  batches(): AsyncGenerator<readonly T[], void, undefined> {
    this.#start();
    return this.#batches();
  }

  /**
   * Decodes one chunk of bytes, appending the items it completes to `out`; a decode error is
   * thrown after appending the items completed before it, which are delivered first.
   */
  protected abstract decode(chunk: Uint8Array, out: T[]): void;

  /** The items left at a clean end of the response (may throw when the stream was truncated). */
  protected abstract finish(): readonly T[];

  #start(): void {
    if (this.#started) throw new TypeError("a response stream can be iterated only once");
    this.#started = true;
  }

  async *#items(): AsyncGenerator<T, void, undefined> {
    for await (const batch of this.#batches()) {
      for (const item of batch) yield item;
    }
  }

  async *#batches(): AsyncGenerator<readonly T[], void, undefined> {
    if (this.#closed) return;
    const userSignal = this.#options.signal;
    const signal =
      userSignal !== undefined
        ? AbortSignal.any([this.#controller.signal, userSignal])
        : this.#controller.signal;
    let body: Readable | undefined;
    // The idle deadline runs whenever the consumer waits for an item: through the wait for
    // the response headers, and across chunks that complete no item (a trickle).
    let timer = this.#armIdleTimer(() => body);
    try {
      try {
        body = await this.#open(signal);
      } catch (err) {
        const failure = this.#mapFailure(err, false);
        if (failure === CLOSED) return;
        throw failure;
      }
      const chunks = body[Symbol.asyncIterator]();
      for (;;) {
        let next: IteratorResult<unknown>;
        try {
          next = await chunks.next();
        } catch (err) {
          const failure = this.#mapFailure(err, true);
          if (failure === CLOSED) return;
          throw failure;
        }
        if (next.done) {
          // A stream interrupted on purpose may also just end: report why, not a truncation.
          const interruption = this.#interruption();
          if (interruption === CLOSED) return;
          if (interruption !== undefined) throw interruption;
          break;
        }
        const batch: T[] = [];
        let decodeFailure: { readonly error: unknown } | undefined;
        try {
          this.decode(toBytes(next.value), batch);
        } catch (error) {
          decodeFailure = { error };
        }
        if (batch.length > 0) {
          timer?.cancel();
          yield batch;
          timer = this.#armIdleTimer(() => body);
        }
        if (decodeFailure !== undefined) throw decodeFailure.error;
      }
      timer?.cancel();
      const rest = this.finish();
      if (rest.length > 0) yield rest;
    } finally {
      timer?.cancel();
      this.#controller.abort(new Error("stream finished"));
      body?.destroy();
    }
  }

  /** Why the stream was interrupted (idle failure, close → CLOSED, user abort), if it was. */
  #interruption(): unknown {
    if (this.#failure !== undefined) return this.#failure;
    if (this.#closed) return CLOSED;
    const userSignal = this.#options.signal;
    if (userSignal?.aborted) return userSignal.reason as unknown;
    return undefined;
  }

  /** The error to throw for a failure of the request or of reading the body, or CLOSED. */
  #mapFailure(err: unknown, reading: boolean): unknown {
    const interruption = this.#interruption();
    if (interruption !== undefined) return interruption;
    if (!reading) return err;
    return new TransportError(this.#options.method, this.#options.url, err);
  }

  /** Arms the idle deadline; when it expires, the request is aborted and the body destroyed. */
  #armIdleTimer(body: () => Readable | undefined): TimerHandle | undefined {
    const idle = this.#options.idle;
    if (idle === undefined) return undefined;
    return this.#options.clock.setTimer(idle.ms, () => {
      this.#failure = idle.error();
      this.#controller.abort(this.#failure);
      body()?.destroy(this.#failure);
    });
  }
}
