/** Errors of a controller's lifecycle. */

/**
 * - `AlreadyStarted`: `run()` was called a second time.
 * - `Stopped`: `watch`/`watchOwned` after `run()` has finished.
 * - `CacheSyncFailed`: a watched informer stopped (or its handler was removed) before its
 *   cache synced, so the controller could never start reconciling.
 * - `CacheSyncTimeout`: the watched informers had not all synced within the controller's
 *   `cacheSyncTimeoutMs` (typically: their informer factory was never started).
 * - `SourceStartFailed`: a source given to `watchSource` threw (or rejected) when started;
 *   the error is the `cause`.
 */
export type ControllerLifecycleErrorReason =
  "AlreadyStarted" | "Stopped" | "CacheSyncFailed" | "CacheSyncTimeout" | "SourceStartFailed";

/** Thrown when a controller operation is not allowed in its current state. */
export class ControllerLifecycleError extends Error {
  /** What went wrong. */
  readonly reason: ControllerLifecycleErrorReason;
  /** The controller's name. */
  readonly controller: string;
  /**
   * For `CacheSyncFailed` and `CacheSyncTimeout`: the names of the watched informers (and
   * sources) that had not synced; for `SourceStartFailed` the source's; empty otherwise.
   */
  readonly informers: readonly string[];

  constructor(
    reason: ControllerLifecycleErrorReason,
    controller: string,
    message: string,
    informers: readonly string[] = [],
    options?: ErrorOptions,
  ) {
    super(`controller ${controller}: ${message}`, options);
    this.name = "ControllerLifecycleError";
    this.reason = reason;
    this.controller = controller;
    this.informers = informers;
  }
}
