/**
 * One call of the event recorder as the correlation caches see it, and the keys client-go
 * groups events by (`staging/src/k8s.io/client-go/tools/record/events_cache.go`:
 * `getEventKey`, `getSpamKey`, `EventAggregatorByReasonFunc`).
 */
import type { ObjectReference } from "kubernetes-types/core/v1.js";

export type { ObjectReference };

/** The two event types the API accepts (client-go's `v1.EventTypeNormal` / `EventTypeWarning`). */
export type EventType = "Normal" | "Warning";

/** What one `event()` call reported, before correlation. */
export interface EventOccurrence {
  /** The object the event is about (`regarding` / `involvedObject`). */
  readonly regarding: ObjectReference;
  /** A second object involved, if any (`related`). */
  readonly related?: ObjectReference;
  readonly type: EventType;
  /** Why the action was taken, UpperCamelCase (e.g. `SuccessfulCreate`). */
  readonly reason: string;
  /** What was done (events.k8s.io/v1 `action`). */
  readonly action: string;
  /** The human-readable message (`note` / `message`). */
  readonly message: string;
  /** The reporting controller (`reportingController`; core/v1 `reportingComponent`). */
  readonly reportingController: string;
  /** The reporting instance (`reportingInstance`). */
  readonly reportingInstance: string;
  /** core/v1 `source.component`. */
  readonly component: string;
}

// The parts are joined with a character that cannot appear in names, kinds or reasons, so
// two different events never share a key (client-go joins without a separator).
const SEPARATOR = "\u0000";

function referenceParts(ref: ObjectReference | undefined): string[] {
  return [
    ref?.apiVersion ?? "",
    ref?.kind ?? "",
    ref?.namespace ?? "",
    ref?.name ?? "",
    ref?.uid ?? "",
  ];
}

/**
 * The source, object and type of an event: the spam filter's rate limit key (`getSpamKey`
 * joins source component and host, the object's reference and the event type), so Normal
 * events about an object never use up the tokens of its Warnings.
 */
export function spamKey(event: EventOccurrence): string {
  return [
    event.component,
    event.reportingInstance,
    ...referenceParts(event.regarding),
    event.type,
  ].join(SEPARATOR);
}

/**
 * Events that differ only by message share this key: the aggregator's group
 * (`EventAggregatorByReasonFunc`: source, object, type, reason, reporting controller and
 * instance; here also action and related, which events.k8s.io/v1 adds).
 */
export function aggregateKey(event: EventOccurrence): string {
  return [
    spamKey(event),
    event.reason,
    event.action,
    event.reportingController,
    ...referenceParts(event.related),
  ].join(SEPARATOR);
}

/** Identical events share this key (`getEventKey`: the aggregate key plus field path and message). */
export function eventKey(event: EventOccurrence): string {
  return [
    aggregateKey(event),
    event.regarding.fieldPath ?? "",
    event.related?.fieldPath ?? "",
    event.message,
  ].join(SEPARATOR);
}
