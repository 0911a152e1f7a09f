/** Errors of a controller's lifecycle. */

/**
 * - `AlreadyStarted`: `run()` was called a second time.
 * - `Stopped`: `watch`/`watchOwned` after `run()` has finished.
 * - `CacheSyncFailed`: a watched informer stopped (or its handler was removed) before its
 *   cache synced, so the controller could never start reconciling.
 * - `CacheSyncTimeout`: the watched informers had not all synced within the controller's
 *   `cacheSyncTimeoutMs` (typically: their informer factory was never started).
 */
export type ControllerLifecycleErrorReason =
  "AlreadyStarted" | "Stopped" | "CacheSyncFailed" | "CacheSyncTimeout";

/** Thrown when a controller operation is not allowed in its current state. */
export class ControllerLifecycleError extends Error {
  /** What went wrong. */
  readonly reason: ControllerLifecycleErrorReason;
  /** The controller's name. */
  readonly controller: string;
  /**
   * For `CacheSyncFailed` and `CacheSyncTimeout`: the names of the watched informers that had
   * not synced; empty otherwise.
   */
  readonly informers: readonly string[];

  constructor(
    reason: ControllerLifecycleErrorReason,
    controller: string,
    message: string,
    informers: readonly string[] = [],
  ) {
    super(`controller ${controller}: ${message}`);
    this.name = "ControllerLifecycleError";
    this.reason = reason;
    this.controller = controller;
    this.informers = informers;
  }
}
