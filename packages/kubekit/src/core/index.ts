/**
 * The core layer's public part: the built-in resource table, GroupVersionKind/Resource,
 * object keys, label and field selectors, `Status`/`StatusError` with the reason predicates
 * and builders, the patch algorithms, JSON value types, status conditions, the `Clock`, the
 * backoff policy, the token bucket, the logger and the metric interfaces. No I/O happens here.
 *
 * Internals that only the embedded server or other layers use (the protobuf codec, the field
 * tables, field-error formatting, Go quoting, bounded parsing, name validation) are imported
 * from their modules, not from here; `FakeClock` is exported by `kubekit/testing`.
 *
 * @packageDocumentation
 */
export {
  builtinGroupVersions,
  builtinResources,
  findBuiltinResource,
  type ResourceInfo,
  type SubresourceInfo,
} from "./resource-table.js";
export {
  JsonPatchError,
  JsonPatchTooLargeError,
  applyJsonPatch,
  parseJsonPatch,
  type ApplyJsonPatchOptions,
  type JsonPatchOperation,
} from "./json-patch.js";
export { createJsonPatch } from "./json-patch-diff.js";
export { applyMergePatch, createMergePatch } from "./merge-patch.js";
export { StrategicMergePatchError, applyStrategicMergePatch } from "./strategic-merge-patch.js";
export type { JsonObject, JsonValue } from "./json.js";
export {
  formatApiVersion,
  gvkFromObject,
  parseApiVersion,
  qualifiedKind,
  qualifiedResource,
  type GroupKind,
  type GroupResource,
  type GroupVersion,
  type GroupVersionKind,
  type GroupVersionResource,
} from "./gvk.js";
export {
  ObjectKeyError,
  objectKey,
  splitObjectKey,
  type ObjectKeyErrorReason,
} from "./object-key.js";
export {
  StatusError,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isMethodNotSupported,
  isNotAcceptable,
  isNotFound,
  isRequestEntityTooLarge,
  isResourceExpired,
  isServerTimeout,
  isServiceUnavailable,
  isStatus,
  isTimeout,
  isTooLargeResourceVersion,
  isTooManyRequests,
  isUnauthorized,
  isUnsupportedMediaType,
  reasonOf,
  suggestsClientDelay,
  type Status,
  type StatusCause,
  type StatusDetails,
  type StatusMetadata,
  type StatusReason,
} from "./status.js";
export {
  newAlreadyExists,
  newApplyConflict,
  newBadRequest,
  newConflict,
  newForbidden,
  newGenerateNameConflict,
  newGone,
  newInternalError,
  newInvalid,
  newMethodNotSupported,
  newNotAcceptable,
  newNotFound,
  newRequestEntityTooLarge,
  newResourceExpired,
  newServerTimeout,
  newServiceUnavailable,
  newStatusError,
  newTimeout,
  newTooLargeResourceVersion,
  newTooManyRequests,
  newUnauthorized,
  newUnsupportedMediaType,
  type ApplyConflict,
} from "./status-builders.js";
export { type FieldError, type FieldErrorType } from "./field-errors.js";
export {
  LabelSelector,
  SelectorParseError,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelectorSpec,
} from "./label-selector.js";
export { FieldSelector, type FieldRequirement } from "./field-selector.js";
export { realClock, type Clock, type TimerHandle } from "./clock.js";
export {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type Condition,
  type ConditionInput,
  type ConditionStatus,
} from "./conditions.js";
export { TokenBucket } from "./token-bucket.js";
export {
  consoleLogger,
  createConsoleLogger,
  noopLogger,
  type ConsoleLoggerOptions,
  type LogFields,
  type LogLevel,
  type Logger,
  withLogFields,
} from "./logger.js";
export { BackoffPolicy, REFLECTOR_BACKOFF_DEFAULTS, type BackoffOptions } from "./backoff.js";
export type {
  CounterMetric,
  GaugeMetric,
  HistogramDescription,
  HistogramMetric,
  LabeledMetric,
  MetricDescription,
  MetricFactory,
  SettableGaugeMetric,
} from "./metrics.js";
