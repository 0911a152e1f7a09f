/**
 * What a controller calls for every key it takes from its queue (controller-runtime's
 * `reconcile.Reconciler` and `reconcile.Result`, `pkg/reconcile/reconcile.go`).
 */

import type { Logger } from "../core/logger.js";

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
  /**
   * With the priority queue: the priority of the requeue this result (or an error) causes
   * (controller-runtime's `Result.Priority`); default the priority the key had.
   */
  readonly priority?: number;
}

/**
 * What a reconcile receives besides its key and signal (controller-runtime puts the same in
 * the reconcile's `context.Context`: `logf.FromContext(ctx)` and `ReconcileIDFromContext`).
 */
export interface ReconcileContext {
  /** The controller's name. */
  readonly controller: string;
  /** The key's namespace (`""` for a cluster-scoped key) and name (see `splitKey`). */
  readonly namespace: string;
  readonly name: string;
  /** A UUID naming this reconcile, new for every reconcile (a retry of the key included). */
  readonly reconcileID: string;
  /**
   * The controller's logger with the fields `controller`, `namespace`, `name` and
   * `reconcileID` added to every message: log with it so that a reconcile's lines can be
   * found together.
   */
  readonly logger: Logger;
  /**
   * The key's priority in the controller's queue (0 unless the controller uses the priority
   * queue); return `{ priority }` to change the priority of the key's requeue.
   */
  readonly priority: number;
}

/**
 * Brings the world in line with the desired state of the object named by `key` (`ns/name`,
 * or `name` when cluster-scoped; see `splitKey`). Level-triggered: it receives a key, never an
 * event, and reads the current object from a lister (absent from the cache = deleted).
 *
 * - Return nothing or a {@link ReconcileResult}.
 * - Throw (or reject) to retry with the rate limiter's backoff; the error is logged with the
 *   key. Throw a `TerminalError` for a failure retrying cannot fix: logged, not requeued.
 * - `signal` aborts when the controller is stopping, or when the controller's
 *   `reconcileTimeoutMs` has passed (its reason is then a `TimeoutError` DOMException, and a
 *   rejection is retried with backoff): stop promptly; the controller waits for the
 *   reconcile to settle before it resolves.
 * - `context` (optional to declare) names the reconcile: its `reconcileID` and a `logger`
 *   carrying the controller, namespace, name and reconcile ID.
 *
 * The controller never runs two reconciles of one key at the same time; reconciles of
 * different keys run concurrently, up to the controller's `workers`.
 */
export type Reconciler = (
  key: string,
  signal: AbortSignal,
  context: ReconcileContext,
) => ReconcileResult | void | Promise<ReconcileResult | void>;
