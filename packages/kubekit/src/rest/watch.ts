/**
 * A watch: the events of a `?watch=true` response as an async iterable.
 */
import type { OpenResponseBody, ResponseStreamOptions } from "./response-stream.js";
import { ResponseStream } from "./response-stream.js";
import type { WatchEvent } from "./watch-event.js";
import { WatchFrameDecoder } from "./watch-frame-decoder.js";

/** Options of a watch request. */
export interface WatchOptions {
  /**
   * The longest watch frame (one encoded event) accepted, in bytes (default
   * `DEFAULT_MAX_WATCH_FRAME_BYTES`, 16 MiB); a longer one ends the watch with
   * `WatchFrameTooLargeError`.
   */
  readonly maxFrameBytes?: number;
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
 * The silence a watch without `timeoutSeconds` tolerates before the grace period: client-go's
 * reflector's `minWatchTimeout` (5 min, `tools/cache/reflector.go`), the shortest watch it
 * asks for. kube-apiserver may keep such a watch open for up to an hour (a random duration
 * up to twice `--min-request-timeout`, 1800 s), so a quiet but healthy watch can end with
 * {@link WatchIdleTimeoutError} after 5.5 min; re-watching from the last resourceVersion
 * loses nothing, while an hour-long wait on a half-open connection would.
 */
export const DEFAULT_WATCH_IDLE_BASE_MS = 300_000;

/**
 * The idle deadline of a watch in ms, or undefined for none: `options.idleTimeoutMs` when
 * set (0 → none); otherwise `timeoutSeconds` (or, when the request has none,
 * {@link DEFAULT_WATCH_IDLE_BASE_MS}) plus the grace period. A healthy server ends a
 * watch by its timeout, so a stream that completes no event for longer (no bytes, or bytes
 * that never complete a frame; the wait for the response headers included) is presumed
 * half-open or hostile and closed.
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
      : DEFAULT_WATCH_IDLE_BASE_MS;
  return serverMs + (options.idleGraceMs ?? DEFAULT_WATCH_IDLE_GRACE_MS);
}

/**
 * The events of one watch request, decoded incrementally by `WatchFrameDecoder`.
 * Iterate it once with `for await`; see {@link ResponseStream} for the lifecycle:
 *
 * - A non-2xx answer to the watch request is thrown (as a StatusError) from the first
 *   iteration, not from `watch()`, which only builds this object.
 * - ERROR events (e.g. 410 Expired) are delivered as events; the server ends the stream
 *   after them.
 * - The server ending the response cleanly (its `timeoutSeconds`, or a cut such as
 *   `closeWatches`) ends the iteration normally; the connection breaking (server restart,
 *   reset) throws a TransportError; a malformed frame or unknown event type throws
 *   {@link WatchDecodeError} (events before it were delivered), a frame over the size limit
 *   `WatchFrameTooLargeError`; no complete event within the idle deadline throws
 *   {@link WatchIdleTimeoutError} and closes the connection.
 * - `close()`, breaking out of the loop or aborting the signal closes the connection.
 */
export class Watch<T> extends ResponseStream<WatchEvent<T>> {
  readonly #decoder: WatchFrameDecoder;

  /**
   * Built by `RequestBuilder.watch()`; `open` performs the request. Frames longer than
   * `maxFrameBytes` (default `DEFAULT_MAX_WATCH_FRAME_BYTES`, 16 MiB) end the watch.
   */
  constructor(open: OpenResponseBody, options: ResponseStreamOptions, maxFrameBytes?: number) {
    super(open, options);
    this.#decoder = new WatchFrameDecoder(maxFrameBytes);
  }

  protected decode(chunk: Uint8Array, out: WatchEvent<T>[]): void {
    const decoder = this.#decoder;
    decoder.write(chunk);
    for (let event = decoder.read(); event !== undefined; event = decoder.read()) {
      out.push(event as WatchEvent<T>);
    }
  }

  protected finish(): readonly WatchEvent<T>[] {
    this.#decoder.end();
    return [];
  }
}
