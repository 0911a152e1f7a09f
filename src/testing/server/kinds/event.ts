/**
 * Events: core/v1 Events and events.k8s.io/v1 Events share one storage (the core/v1 form;
 * `event-conversion.ts` converts and validates the events.k8s.io/v1 form) and print through
 * one internal type (`pkg/printers/internalversion/printers.go`).
 */
import { coreEventPrinter, eventsApiEventPrinter } from "../builtin-table-printers.js";
import { selectableFields } from "../resource-policy.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The storage id both Event APIs share (the core/v1 resource's). */
export const EVENT_STORAGE_ID = "/events";

/** The core/v1 Event strategy. */
export const coreEventStrategy: KindStrategy = {
  policy: {
    allowCreateOnUpdate: true,
    selectableFields: selectableFields(
      "involvedObject.kind",
      "involvedObject.namespace",
      "involvedObject.name",
      "involvedObject.uid",
      "involvedObject.apiVersion",
      "involvedObject.resourceVersion",
      "involvedObject.fieldPath",
      "reason",
      "reportingComponent",
      "source",
      "type",
    ),
  },
  printer: coreEventPrinter,
};

/** The events.k8s.io/v1 Event strategy (writes go through the core/v1 storage and strategy). */
export const eventsApiEventStrategy: KindStrategy = { printer: eventsApiEventPrinter };
