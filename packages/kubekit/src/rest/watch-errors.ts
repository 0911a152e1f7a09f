/**
 * Typed errors that end a watch stream.
 */

/**
 * A watch frame that is not a valid event: not a JSON object, malformed JSON, an unknown
 * `type`, a missing or non-object `object`, an ERROR event whose object is not a Status, or
 * a stream that ended inside a frame. The stream ends with this error (nothing after the
 * bad frame is delivered; events before it were).
 */
export class WatchDecodeError extends Error {
  /** The start of the offending frame (at most 200 characters), for diagnostics. */
  readonly frame: string;

  constructor(message: string, frame: string, cause?: unknown) {
    super(
      `watch stream: ${message}${frame === "" ? "" : `: ${frame}`}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = "WatchDecodeError";
    this.frame = frame;
  }
}

/**
 * No complete event arrived on a watch within its idle deadline (the request's
 * `timeoutSeconds`, or 5 min without one, plus a grace period; or an explicit
 * `idleTimeoutMs`), counting the wait for the response headers and bytes that completed no
 * event: the connection is presumed half-open (or the server hostile) and was closed.
 * Callers re-watch from their last resourceVersion.
 */
export class WatchIdleTimeoutError extends Error {
  /** The idle deadline that expired, in ms. */
  readonly idleTimeoutMs: number;

  constructor(idleTimeoutMs: number) {
    super(`watch stream: no event received for ${idleTimeoutMs}ms; closing the connection`);
    this.name = "WatchIdleTimeoutError";
    this.idleTimeoutMs = idleTimeoutMs;
  }
}

/**
 * A watch frame (one encoded event) longer than the decoder's limit, 16 MiB by default (the
 * limit of apimachinery's streaming decoder, whose error is `ErrObjectTooLarge`). The stream
 * ends with it; memory held for the frame never exceeds the limit by more than one received
 * chunk.
 */
export class WatchFrameTooLargeError extends WatchDecodeError {
  /** The limit that was exceeded, in bytes. */
  readonly maxFrameBytes: number;

  constructor(maxFrameBytes: number, frame: string) {
    super(`frame longer than the maximum of ${maxFrameBytes} bytes`, frame);
    this.name = "WatchFrameTooLargeError";
    this.maxFrameBytes = maxFrameBytes;
  }
}
