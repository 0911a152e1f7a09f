import { errorMessage } from "kubekit/apimachinery";
import { isConflict, type Logger, type ReconcileResult } from "kubekit";
import type { OwnWrites } from "./own-writes.js";

/** What {@link requeueOnConflict} needs to know of the reconcile it wraps. */
export interface ConflictRequeue {
  /** The controller's name, prefixing the debug line: `"<controller>: conflict; requeued"`. */
  readonly controller: string;
  /** The key reconciled, logged with the conflict. */
  readonly key: string;
  /** The writes the attempt records. */
  readonly writes: OwnWrites;
  /** The reconcile's signal; aborting it ends the wait for the writes. */
  readonly signal: AbortSignal;
  /** Where the conflict is logged (at debug level: a conflict is routine). */
  readonly logger: Logger;
  /**
   * Other failures retried the same way as a Conflict (default none), e.g. `isAlreadyExists`
   * for a name collision the next attempt resolves.
   */
  readonly alsoRetry?: (err: unknown) => boolean;
}

/**
 * Runs one reconcile `attempt` that records its writes in `writes`, and turns a Conflict (a
 * write from a stale cache; kube-controller-manager's controllers requeue on it, e.g.
 * `pkg/controller/replicaset/replica_set.go` syncReplicaSet) into a quiet requeue.
 *
 * Guarantees: the attempt's result is returned unchanged when it succeeds. When it fails,
 * the attempt's recorded writes are first waited for ({@link OwnWrites.observed}), whatever
 * the failure, so the next attempt (the requeue, or the controller's back-off after an
 * error) reads them from the caches; then a Conflict (or a failure `alsoRetry` accepts) is
 * logged at debug level with the key and message and resolves `{ requeue: true }`, and any
 * other failure is rethrown.
 */
export async function requeueOnConflict(
  options: ConflictRequeue,
  attempt: () => Promise<ReconcileResult | void>,
): Promise<ReconcileResult | void> {
  try {
    return await attempt();
  } catch (err) {
    await options.writes.observed(options.signal);
    if (!isConflict(err) && options.alsoRetry?.(err) !== true) throw err;
    options.logger.debug(`${options.controller}: conflict; requeued`, {
      key: options.key,
      error: errorMessage(err),
    });
    return { requeue: true };
  }
}
