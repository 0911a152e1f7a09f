/**
 * Kubernetes Events about objects, as `kubectl describe` shows them (client-go's
 * `tools/record` and `tools/events`). Which piece to use when:
 *
 * - {@link EventRecorder}: what a controller uses. Give it a clientset and the component's
 *   name, call `event`/`eventf` from reconciles (never blocks, never throws), and
 *   `shutdown()` when the program stops. It correlates, queues and writes in the
 *   background, choosing events.k8s.io/v1 when the server serves it and core/v1 otherwise.
 * - {@link EventSink}: where a recorder writes, when not to a clientset's Event API (a test
 *   double, a log, another cluster): pass `{ sink }` instead of `{ clientset }`.
 *   {@link ClientsetEventSink} is the one a recorder builds from a clientset; use it directly
 *   only to fix the API (`"v1"` or `"events.k8s.io/v1"`) or to share its discovery result.
 *   {@link toEventsV1Event} and {@link toCoreV1Event} give the objects it writes.
 * - {@link EventCorrelator}: the recorder's correlation (`tools/record/events_cache.go`), for
 *   code that writes events itself: identical events counted under one Event object, similar
 *   events (differing only by message) combined, a per-object spam filter, and the
 *   finishing and refreshing of events.k8s.io/v1 series (`tools/events`). Tune it
 *   through the recorder's `correlation` option rather than building one.
 *
 * Internals, not exported: the aggregator (similar events combined), the spam filter (a
 * token bucket per source, object and type), the bounded LRU caches they keep, the occurrence keys
 * and the Go-style `sprintf` behind `eventf`.
 *
 * @packageDocumentation
 */
export {
  EVENT_RECORDER_DEFAULTS,
  EventRecorder,
  type EventDetails,
  type EventRecorderOptions,
  type EventRecorderTarget,
  type EventSubject,
} from "./event-recorder.js";
export type { EventOccurrence, EventType } from "./event-occurrence.js";
export {
  EVENT_CORRELATOR_DEFAULTS,
  EventCorrelator,
  type CachedEvent,
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
