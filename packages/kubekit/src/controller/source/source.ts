/**
 * Where a controller's events come from (controller-runtime's `pkg/source` `TypedSource`,
 * `TypedSyncingSource` and `Func`).
 */
import type { Logger } from "../../core/logger.js";
import type { ReconcileQueue } from "../handler/event-handler.js";

/** What a controller gives a starting {@link Source} besides its queue. */
export interface SourceContext {
  /** The controller's logger, with the fields `controller` and `source`. */
  readonly logger: Logger;
  /**
   * Recovers what a predicate, handler or map function threw while the source delivered
   * `event` (`"create"`, `"update"`, `"delete"`, `"generic"`, or the source's own word): the
   * controller logs it and counts it in `controller_runtime_reconcile_panics_total`. The
   * event is dropped; the source goes on.
   */
  recover(error: unknown, event: string): void;
}

/**
 * Something that adds keys to a controller's queue: an informer with a handler
 * (`kindSource`), an async iterable of objects (`channelSource`), or anything else written
 * against this interface (a timer, a webhook, another system's notifications; `funcSource`
 * makes one from a function). Give it to `Controller.watchSource` (or a builder's
 * `watches`).
 *
 * Contract:
 *
 * - `start` is called once, when the controller's `run` begins (or at once, for a source
 *   added to a running controller). It must return promptly: set up the delivery, then
 *   resolve; keep delivering until `signal` aborts (the controller is stopping), then stop
 *   and release what it holds. A rejection (or throw) fails the controller's `run` with
 *   `SourceStartFailed`.
 * - A *syncing* source has `hasSynced` (and, to be awaited without polling, `waitForSync`):
 *   the controller starts its workers only once every syncing source has synced (within
 *   `cacheSyncTimeoutMs`), and a manager's `/readyz` fails until then, naming the source.
 *   A source without `hasSynced` is not waited for.
 * - Keys added before the workers start wait in the queue.
 */
export interface Source {
  /** Names the source in logs, `/readyz` failures and cache-sync errors. */
  readonly name: string;
  /** Starts delivering keys to `queue` until `signal` aborts (see the contract above). */
  start(queue: ReconcileQueue, signal: AbortSignal, context: SourceContext): void | Promise<void>;
  /** For a syncing source: whether it has delivered its initial state. */
  hasSynced?(): boolean;
  /**
   * For a syncing source: resolves `true` once synced, `false` when `signal` aborts or the
   * source will never sync (e.g. its informer stopped). Without it, `hasSynced` is polled.
   */
  waitForSync?(signal: AbortSignal): Promise<boolean>;
}

/**
 * A raw source from a function (controller-runtime's `source.Func`): `start(queue, signal,
 * context)` is called when the controller runs; it adds keys until `signal` aborts. Not a
 * syncing source.
 *
 * @throws {TypeError} when `start` is not a function or `name` is empty.
 */
export function funcSource(
  name: string,
  start: (
    queue: ReconcileQueue,
    signal: AbortSignal,
    context: SourceContext,
  ) => void | Promise<void>,
): Source {
  if (typeof name !== "string" || name === "") {
    throw new TypeError("funcSource: the source needs a non-empty name");
  }
  if (typeof start !== "function") {
    throw new TypeError(`funcSource ${name}: start must be a function`);
  }
  return Object.freeze({ name, start });
}
