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
 * No bytes arrived on a watch for its idle deadline (the request's `timeoutSeconds` plus a
 * grace period, or an explicit `idleTimeoutMs`): the connection is presumed half-open and
 * was closed. Callers re-watch from their last resourceVersion.
 */
export class WatchIdleTimeoutError extends Error {
  /** The idle deadline that expired, in ms. */
  readonly idleTimeoutMs: number;

  constructor(idleTimeoutMs: number) {
    super(`watch stream: no data received for ${idleTimeoutMs}ms; closing the connection`);
    this.name = "WatchIdleTimeoutError";
    this.idleTimeoutMs = idleTimeoutMs;
  }
}
