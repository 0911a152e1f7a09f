/**
 * What a controller calls for every key it takes from its queue (controller-runtime's
 * `reconcile.Reconciler` and `reconcile.Result`, `pkg/reconcile/reconcile.go`).
 */

/**
 * What a reconcile asks the controller to do next. Returning nothing (or `undefined`, or
 * `{}`) means done: the key's rate-limiting history is forgotten.
 *
 * - `requeueAfterMs > 0`: forget the history, then enqueue the key again after that delay.
 *   Takes precedence over `requeue`.
 * - `requeue: true`: enqueue the key again with the rate limiter's delay (which grows with
 *   every consecutive requeue, as after an error).
 */
export interface ReconcileResult {
  readonly requeueAfterMs?: number;
  readonly requeue?: boolean;
}

/**
 * Brings the world in line with the desired state of the object named by `key` (`ns/name`,
 * or `name` when cluster-scoped; see `splitKey`). Level-triggered: it receives a key, never an
 * event, and reads the current object from a lister (absent from the cache = deleted).
 *
 * - Return nothing or a {@link ReconcileResult}.
 * - Throw (or reject) to retry with the rate limiter's backoff; the error is logged with the
 *   key. Throw a `TerminalError` for a failure retrying cannot fix: logged, not requeued.
 * - `signal` aborts when the controller is stopping: stop promptly; the controller waits for
 *   the reconcile to settle before it resolves.
 *
 * The controller never runs two reconciles of one key at the same time; reconciles of
 * different keys run concurrently, up to the controller's `workers`.
 */
export type Reconciler = (
  key: string,
  signal: AbortSignal,
) => ReconcileResult | void | Promise<ReconcileResult | void>;
