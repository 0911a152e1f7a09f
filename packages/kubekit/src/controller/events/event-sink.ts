/**
 * Where the event recorder writes: the Event API of a clientset. events.k8s.io/v1 is used
 * when the server serves it, core/v1 otherwise (client-go's `NewEventBroadcasterAdapter`,
 * `staging/src/k8s.io/client-go/tools/events/event_broadcaster.go`). A first occurrence is a
 * create; a repeat is a strategic merge patch of the counters, as client-go's
 * `tools/events` (`series`) and `tools/record` (`count`, `lastTimestamp`, `message`) send.
 */
import type * as coreV1 from "kubernetes-types/core/v1.js";
import type * as eventsV1 from "kubernetes-types/events/v1.js";
import { DiscoveryClient } from "../../client/discovery-client.js";
import type { TypedClientset } from "../../client/generated/typed-clientset.js";
import { StatusError } from "../../core/status.js";
import { PatchTypes } from "../../rest/patch-type.js";
import type { CorrelatedEvent } from "./event-correlator.js";
import { formatMicroTime, formatTime } from "../../core/wire-time.js";

/**
 * The writes of an event recorder. Both methods reject with the client's errors: a
 * `StatusError` when the server answered with an error (the recorder drops the event), any
 * other error when it could not be reached (the recorder retries).
 */
export interface EventSink {
  /** Creates the Event object `event` describes (with its counters when `count > 1`). */
  create(event: CorrelatedEvent, signal: AbortSignal): Promise<void>;
  /**
   * Updates the counters of the existing Event object `event.name` (count, last time; the
   * message too on core/v1). Rejects with a NotFound `StatusError` when it does not exist.
   */
  patch(event: CorrelatedEvent, signal: AbortSignal): Promise<void>;
  /**
   * The Event API written, once known. With `"v1"` the recorder keeps client-go's
   * `tools/record` behaviour (an event counted as long as it stays cached); otherwise (also
   * when absent or not yet known) its `tools/events` behaviour for events.k8s.io/v1 series:
   * finished after 6 minutes without a new occurrence, refreshed every 30 minutes.
   */
  readonly api?: "events.k8s.io/v1" | "v1" | undefined;
}

/** Which Event API a {@link ClientsetEventSink} writes: chosen by discovery, or fixed. */
export type EventApi = "auto" | "events.k8s.io/v1" | "v1";

/** The parts of a clientset a {@link ClientsetEventSink} uses. */
export type EventClientset = Pick<TypedClientset, "restClient" | "coreV1" | "eventsV1">;

const EVENTS_GROUP_VERSION = "events.k8s.io/v1";

/** The events.k8s.io/v1 Event of a correlated event. */
export function toEventsV1Event(event: CorrelatedEvent): eventsV1.Event {
  return {
    apiVersion: EVENTS_GROUP_VERSION,
    kind: "Event",
    metadata: { name: event.name, namespace: event.namespace },
    eventTime: formatMicroTime(event.firstTimestamp),
    ...(event.count > 1 ? { series: seriesOf(event) } : {}),
    reportingController: event.reportingController,
    reportingInstance: event.reportingInstance,
    action: event.action,
    reason: event.reason,
    regarding: event.regarding,
    ...(event.related ? { related: event.related } : {}),
    note: event.message,
    type: event.type,
  };
}

function seriesOf(event: CorrelatedEvent): eventsV1.EventSeries {
  return { count: event.count, lastObservedTime: formatMicroTime(event.lastTimestamp) };
}

/** The core/v1 Event of a correlated event (client-go's `tools/record` shape). */
export function toCoreV1Event(event: CorrelatedEvent): coreV1.Event {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: event.name, namespace: event.namespace },
    involvedObject: event.regarding,
    ...(event.related ? { related: event.related } : {}),
    reason: event.reason,
    message: event.message,
    source: { component: event.component },
    firstTimestamp: formatTime(event.firstTimestamp),
    lastTimestamp: formatTime(event.lastTimestamp),
    count: event.count,
    type: event.type,
    reportingComponent: event.reportingController,
    reportingInstance: event.reportingInstance,
  };
}

/**
 * An {@link EventSink} on a clientset. With `api: "auto"` (the default) the first write asks
 * discovery whether events.k8s.io/v1 is served: any error answer (404 when the group is not
 * served) selects core/v1 for good, as client-go's adapter does; a transport error leaves the
 * choice open and fails the write, so the recorder retries.
 */
export class ClientsetEventSink implements EventSink {
  readonly #clientset: EventClientset;
  #api: "events.k8s.io/v1" | "v1" | undefined;

  constructor(clientset: EventClientset, api: EventApi = "auto") {
    this.#clientset = clientset;
    this.#api = api === "auto" ? undefined : api;
  }

  /** The API in use; `undefined` until the first write has decided it. */
  get api(): "events.k8s.io/v1" | "v1" | undefined {
    return this.#api;
  }

  async create(event: CorrelatedEvent, signal: AbortSignal): Promise<void> {
    if ((await this.#resolveApi(signal)) === EVENTS_GROUP_VERSION) {
      await this.#clientset.eventsV1
        .events(event.namespace)
        .create(toEventsV1Event(event), { signal });
    } else {
      await this.#clientset.coreV1.events(event.namespace).create(toCoreV1Event(event), { signal });
    }
  }

  async patch(event: CorrelatedEvent, signal: AbortSignal): Promise<void> {
    if ((await this.#resolveApi(signal)) === EVENTS_GROUP_VERSION) {
      // events.k8s.io/v1 makes note, reason and the rest immutable: only the series moves.
      await this.#clientset.eventsV1
        .events(event.namespace)
        .patch(event.name, PatchTypes.strategicMerge, { series: seriesOf(event) }, { signal });
    } else {
      const patch = {
        count: event.count,
        lastTimestamp: formatTime(event.lastTimestamp),
        message: event.message,
      };
      await this.#clientset.coreV1
        .events(event.namespace)
        .patch(event.name, PatchTypes.strategicMerge, patch, { signal });
    }
  }

  async #resolveApi(signal: AbortSignal): Promise<"events.k8s.io/v1" | "v1"> {
    if (this.#api !== undefined) return this.#api;
    try {
      const list = await new DiscoveryClient(
        this.#clientset.restClient,
      ).serverResourcesForGroupVersion(EVENTS_GROUP_VERSION, signal);
      this.#api = list.resources.some((r) => r.name === "events") ? EVENTS_GROUP_VERSION : "v1";
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      this.#api = "v1";
    }
    return this.#api;
  }
}
