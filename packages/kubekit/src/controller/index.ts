/**
 * The controller layer (controller-runtime's role over client-go): the {@link Controller}
 * (keys from watched informers, a rate-limited work queue, workers calling a
 * {@link Reconciler}) and what a controller program needs around it. Here: the Controller with
 * its reconcile contract (`Reconciler`, `ReconcileResult`, `TerminalError`), owner
 * references (the controller's and other owners'), the finalizer helper, `retryOnConflict`
 * and `waitForCacheToObserve`. A folder per piece with internals, each of whose `index.ts`
 * says which of its parts to use when:
 *
 * - `handler/`: how watched objects become keys (the object's own, its owners', a map
 *   function's) and the predicates that filter notifications;
 * - `source/`: where keys come from besides informers (an async iterable of objects, a
 *   function: controller-runtime's `source.Channel` and `source.Func`);
 * - `client/`: the Manager's cache-backed client (`mgr.client`: reads from the informers,
 *   writes to the API server) and how kinds are named to it and to the controller builder;
 * - `events/`: the `EventRecorder` and the correlation, sink and spam filter behind it;
 * - `leaderelection/`: the `LeaderElector`, its `LeaseLock` and status metric;
 * - `manager/`: the `Manager` that runs controllers as a deployed process (caches, leader
 *   election, `/metrics`, `/healthz`, `/readyz`, graceful stop) and `signalHandler`;
 * - `metrics/`: Prometheus metrics with client-go's and controller-runtime's names;
 * - `webhook/`: the `WebhookServer` of admission and conversion webhooks and their handlers.
 *
 * @packageDocumentation
 */
export {
  Controller,
  DEFAULT_CACHE_SYNC_TIMEOUT_MS,
  type ControllerOptions,
  type ControllerWatchOptions,
  type WatchOwnedOptions,
} from "./controller.js";
export {
  ControllerLifecycleError,
  type ControllerLifecycleErrorReason,
} from "./controller-errors.js";
export type { ReconcileContext, ReconcileResult, Reconciler } from "./reconciler.js";
export { TerminalError, isTerminalError } from "./terminal-error.js";
export {
  type ControllerReferenceOptions,
  type OwnerReference,
  type OwnerReferenceErrorReason,
  type OwnerReferenceOptions,
  type OwnerTypeOptions,
  OwnerReferenceError,
  controllerOf,
  hasOwnerReference,
  removeControllerReference,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from "./owner-reference.js";
export {
  type FinalizerClient,
  type FinalizerOptions,
  type ReconcileWithFinalizerOptions,
  ensureFinalizer,
  hasFinalizer,
  isBeingDeleted,
  reconcileWithFinalizer,
  removeFinalizer,
} from "./finalizer.js";
export {
  DEFAULT_BACKOFF,
  DEFAULT_RETRY,
  type RetryBackoff,
  type RetryOptions,
  retryOnConflict,
  retryOnError,
} from "./retry.js";
export {
  type ResourceVersionObservable,
  resourceVersionObserved,
  waitForCacheToObserve,
} from "./wait-for-cache-to-observe.js";
export { type MutateFn, type OperationResult, MutateFnError } from "./object-mutation.js";
export { type CreateOrUpdateClient, createOrUpdate } from "./create-or-update.js";
export { type CreateOrPatchClient, createOrPatch } from "./create-or-patch.js";
export {
  type BuilderOwnsOptions,
  type BuilderWatchOptions,
  type ControllerBuilderHost,
  type ControllerBuilderOptions,
  ControllerBuilder,
  ControllerBuilderError,
} from "./controller-builder.js";
// The controller toolkit's short names for key functions the cache and core already have
// (one implementation each): `keyOf` is the cache's tombstone-aware `deletionHandlingKey`,
// `splitKey` is core's `splitObjectKey`.
export { deletionHandlingKey as keyOf } from "../cache/tombstone.js";
export { splitObjectKey as splitKey } from "../core/object-key.js";
export * from "./handler/index.js";
export * from "./source/index.js";
export * from "./client/index.js";
export * from "./events/index.js";
export * from "./leaderelection/index.js";
export * from "./manager/index.js";
export * from "./metrics/index.js";
export * from "./webhook/index.js";
