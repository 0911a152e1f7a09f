/** Errors of a SharedIndexInformer's lifecycle. */

/**
 * - `AlreadyStarted`: `run()` was called a second time, or `setTransform` /
 *   `setWatchErrorHandler` after `run()`.
 * - `Stopped`: `addEventHandler` or `addIndexers` after the informer stopped (or while it is
 *   stopping).
 */
export type InformerLifecycleErrorReason = "AlreadyStarted" | "Stopped";

/** Thrown when an informer operation is not allowed in its current lifecycle state. */
export class InformerLifecycleError extends Error {
  /** What the informer's state forbids. */
  readonly reason: InformerLifecycleErrorReason;
  /** The informer's name. */
  readonly informer: string;

  constructor(reason: InformerLifecycleErrorReason, informer: string, message: string) {
    super(`${informer}: ${message}`);
    this.name = "InformerLifecycleError";
    this.reason = reason;
    this.informer = informer;
  }
}
