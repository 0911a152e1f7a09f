/** Errors of a controller's lifecycle. */

/**
 * - `AlreadyStarted`: `run()` was called a second time.
 * - `Stopped`: `watch`/`watchOwned` after `run()` has finished.
 * - `CacheSyncFailed`: a watched informer stopped (or its handler was removed) before its
 *   cache synced, so the controller could never start reconciling.
 */
export type ControllerLifecycleErrorReason = "AlreadyStarted" | "Stopped" | "CacheSyncFailed";

/** Thrown when a controller operation is not allowed in its current state. */
export class ControllerLifecycleError extends Error {
  /** What went wrong. */
  readonly reason: ControllerLifecycleErrorReason;
  /** The controller's name. */
  readonly controller: string;

  constructor(reason: ControllerLifecycleErrorReason, controller: string, message: string) {
    super(`controller ${controller}: ${message}`);
    this.name = "ControllerLifecycleError";
    this.reason = reason;
    this.controller = controller;
  }
}
