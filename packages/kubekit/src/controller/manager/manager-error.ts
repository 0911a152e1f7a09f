/** Errors of a {@link Manager}. */

/**
 * - `AlreadyStarted`: `start()` called twice, or `add()` after `start()`.
 * - `NotStarted`: the clientset was asked for before `start()` loaded the kubeconfig (when no
 *   `kubeConfig` option was given).
 * - `LeaderElectionLost`: leadership was lost while the manager ran; its controllers were
 *   stopped. Exit the process: a fresh one competes again with a cold cache, as
 *   controller-runtime's managers do.
 * - `RunnableFailed`: a controller or other runnable rejected; `cause` is its error.
 * - `GracefulShutdownTimeout`: the runnables, the leader election or the informers had not
 *   stopped within `gracefulShutdownMs`.
 * - `InvalidOptions`: an option is out of range; the message names it.
 */
export type ManagerErrorReason =
  | "AlreadyStarted"
  | "NotStarted"
  | "LeaderElectionLost"
  | "RunnableFailed"
  | "GracefulShutdownTimeout"
  | "InvalidOptions";

/** A {@link Manager} failure; `reason` says which. */
export class ManagerError extends Error {
  /** What went wrong. */
  readonly reason: ManagerErrorReason;

  constructor(reason: ManagerErrorReason, message: string, options?: { cause?: unknown }) {
    super(`manager: ${message}`, options);
    this.name = "ManagerError";
    this.reason = reason;
  }
}
