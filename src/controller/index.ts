/**
 * The controller toolkit: `Controller` (reconcile by key, watches, owner mapping,
 * predicates), owner references, the finalizer helper, `retryOnConflict` and
 * `waitForCacheToObserve`.
 *
 * @packageDocumentation
 */
export {
  Controller,
  type ControllerOptions,
  type ControllerWatchOptions,
  type WatchOwnedOptions,
  type WatchedInformer,
} from "./controller.js";
export {
  ControllerLifecycleError,
  type ControllerLifecycleErrorReason,
} from "./controller-errors.js";
export type { MapFunc, OwnerKind } from "./enqueue-handler.js";
export type { ReconcileResult, Reconciler } from "./reconciler.js";
export { TerminalError, isTerminalError } from "./terminal-error.js";
export {
  type Predicate,
  generationChanged,
  resourceVersionChanged,
  labelsChanged,
  annotationsChanged,
  labelSelectorPredicate,
  anyPredicate,
  notPredicate,
} from "./predicate.js";
export {
  type ControllerReferenceOptions,
  type OwnerReference,
  type OwnerReferenceErrorReason,
  OwnerReferenceError,
  controllerOf,
  setControllerReference,
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
// The names for the key functions the cache and core already have: `keyOf` is the
// cache's tombstone-aware `deletionHandlingKey`, `splitKey` is core's `splitObjectKey`.
export { deletionHandlingKey as keyOf } from "../cache/tombstone.js";
export { splitObjectKey as splitKey } from "../core/object-key.js";
