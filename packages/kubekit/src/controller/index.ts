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
// The controller toolkit's short names for key functions the cache and core already have
// (one implementation each): `keyOf` is the cache's tombstone-aware `deletionHandlingKey`,
// `splitKey` is core's `splitObjectKey`.
export { deletionHandlingKey as keyOf } from "../cache/tombstone.js";
export { splitObjectKey as splitKey } from "../core/object-key.js";
export {
  LEADER_ELECTION_JITTER_FACTOR,
  type LeaderCallbacks,
  LeaderElector,
  type LeaderElectorOptions,
} from "./leader-elector.js";
export { LeaderElectionError, type LeaderElectionErrorReason } from "./leader-election-error.js";
export { LeaseLock } from "./lease-lock.js";
export type {
  LeaderElectionRecord,
  ObservedLeaderElectionRecord,
  ResourceLock,
} from "./resource-lock.js";
export {
  EVENT_RECORDER_DEFAULTS,
  EventRecorder,
  type EventRecorderOptions,
  type EventRecorderTarget,
  type EventSubject,
} from "./event-recorder.js";
export type { EventOccurrence, EventType } from "./event-occurrence.js";
export {
  EVENT_CORRELATOR_DEFAULTS,
  EventCorrelator,
  type CorrelatedEvent,
  type CorrelateOptions,
  type CorrelationResult,
  type EventCorrelatorOptions,
} from "./event-correlator.js";
export {
  ClientsetEventSink,
  type EventApi,
  type EventClientset,
  type EventSink,
  toCoreV1Event,
  toEventsV1Event,
} from "./event-sink.js";
export {
  DEFAULT_GRACEFUL_SHUTDOWN_MS,
  INFORMER_SYNC_CHECK,
  MANAGER_DEFAULT_BURST,
  MANAGER_DEFAULT_QPS,
  Manager,
  type InformerFactoryLike,
  type ManagerLeaderElectionOptions,
  type ManagerOptions,
  type Runnable,
} from "./manager.js";
export { ManagerError, type ManagerErrorReason } from "./manager-error.js";
export { signalHandler, type SignalHandlerOptions, type SignalSource } from "./signal-handler.js";
export type { HealthCheck } from "./health-checks.js";
export { MetricRegistrationError, PrometheusMetricFactory } from "./prometheus-metric-factory.js";
export {
  RECONCILE_TIME_BUCKETS,
  controllerMetricsProvider,
  type ControllerMetricsProvider,
  type ReconcileMetrics,
  type ReconcileOutcome,
} from "./controller-metrics.js";
export { WORKQUEUE_DURATION_BUCKETS, workqueueMetricsProvider } from "./workqueue-metrics.js";
export { REST_CLIENT_DURATION_BUCKETS, restClientMetrics } from "./rest-client-metrics.js";
export { leaderElectionStatusMetric } from "./leader-election-metrics.js";
