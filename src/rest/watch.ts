/**
 * A watch: the events of a `?watch=true` response as an async iterable.
 */
import type { JsonObject } from "../core/json.js";
import type { OpenResponseBody, ResponseStreamOptions } from "./response-stream.js";
import { ResponseStream } from "./response-stream.js";
import type { WatchEvent } from "./watch-event.js";
import { WatchFrameDecoder } from "./watch-frame-decoder.js";

/** Options of a watch request. */
export interface WatchOptions {
  /**
   * Grace period added to the request's `timeoutSeconds` to form the idle deadline, in ms
   * (default {@link DEFAULT_WATCH_IDLE_GRACE_MS}).
   */
  readonly idleGraceMs?: number;
  /**
   * The idle deadline in ms, overriding `timeoutSeconds + idleGraceMs`; 0 disables it.
   */
  readonly idleTimeoutMs?: number;
}

/** Default grace beyond the server-side watch timeout before a silent watch is presumed dead. */
export const DEFAULT_WATCH_IDLE_GRACE_MS = 30_000;

/**
 * kube-apiserver's longest default watch duration when the request sets no
 * `timeoutSeconds` (a random value up to twice `--min-request-timeout`, 1800 s).
 */
export const SERVER_MAX_DEFAULT_WATCH_MS = 3_600_000;

/**
 * The idle deadline of a watch in ms, or undefined for none: `options.idleTimeoutMs` when
 * set (0 → none); otherwise `timeoutSeconds` (or, when the request has none,
 * {@link SERVER_MAX_DEFAULT_WATCH_MS}) plus the grace period. A healthy server ends a
 * watch by its timeout, so a stream silent for longer is presumed half-open.
 */
export function watchIdleTimeoutMs(
  timeoutSeconds: number | undefined,
  options: WatchOptions,
): number | undefined {
  if (options.idleTimeoutMs !== undefined) {
    return options.idleTimeoutMs > 0 ? options.idleTimeoutMs : undefined;
  }
  const serverMs =
    timeoutSeconds !== undefined && timeoutSeconds > 0
      ? timeoutSeconds * 1000
      : SERVER_MAX_DEFAULT_WATCH_MS;
  return serverMs + (options.idleGraceMs ?? DEFAULT_WATCH_IDLE_GRACE_MS);
}

/**
 * The events of one watch request, decoded incrementally by {@link WatchFrameDecoder}.
 * Iterate it once with `for await`; see {@link ResponseStream} for the lifecycle:
 *
 * - A non-2xx answer to the watch request is thrown (as a StatusError) from the first
 *   iteration, not from `watch()`, which only builds this object.
 * - ERROR events (e.g. 410 Expired) are delivered as events; the server ends the stream
 *   after them.
 * - The server ending the response cleanly (its `timeoutSeconds`, or a cut such as
 *   `closeWatches`) ends the iteration normally; the connection breaking (server restart,
 *   reset) throws a TransportError; a malformed frame or unknown event type throws
 *   {@link WatchDecodeError} (events before it were delivered); no bytes for the idle
 *   deadline throws {@link WatchIdleTimeoutError} and closes the connection.
 * - `close()`, breaking out of the loop or aborting the signal closes the connection.
 */
export class Watch<T> extends ResponseStream<WatchEvent<T>> {
  readonly #decoder = new WatchFrameDecoder();

  /** Built by `RequestBuilder.watch()`; `open` performs the request. */
  constructor(open: OpenResponseBody, options: ResponseStreamOptions) {
    super(open, options);
  }

  protected *decode(chunk: Uint8Array): Generator<WatchEvent<T>> {
    this.#decoder.write(chunk);
    for (
      let event: WatchEvent<JsonObject> | undefined = this.#decoder.read();
      event !== undefined;
      event = this.#decoder.read()
    ) {
      yield event as WatchEvent<T>;
    }
  }

  protected finish(): readonly WatchEvent<T>[] {
    this.#decoder.end();
    return [];
  }
}
