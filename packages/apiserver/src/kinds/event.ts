/**
 * Events: core/v1 Events and events.k8s.io/v1 Events share one storage (the core/v1 form;
 * `event-conversion.ts` converts the events.k8s.io/v1 form and adds its strict rules) and print
 * through one internal type (`pkg/printers/internalversion/printers.go`). Every Event, whichever
 * API wrote it, passes `legacyValidateEvent` (`pkg/apis/core/validation/events.go`).
 *
 * @kind Event
 * @validation core/v1 and events.k8s.io/v1: involvedObject (regarding) namespace equal to the
 * Event's, empty only in default (and kube-system with eventTime); with eventTime,
 * reportingController (a qualified name), reportingInstance, action and reason required, each
 * ≤ 128 characters, message (note) ≤ 1024; the namespace a DNS-1123 subdomain; events.k8s.io/v1
 * also: eventTime required, type Normal or Warning, deprecated fields unset, series count ≥ 2 with
 * lastObservedTime
 * @update core/v1: same checks, and a PUT on a missing Event creates it; events.k8s.io/v1: all
 * but the series immutable
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  fieldInvalid,
  fieldRequired,
  isJsonObject,
  isDns1123Subdomain,
  isQualifiedName,
} from "kubekit/apimachinery";
import { coreEventPrinter, eventsApiEventPrinter } from "../table/builtin-table-printers.js";
import { selectableFields } from "../registry/resource-policy.js";
import type { KindStrategy } from "./kind-strategy.js";

/** kube's limits on event fields (`pkg/apis/core/validation/events.go`). */
const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

function text(obj: JsonObject, key: string): string {
  const v = obj[key];
  return typeof v === "string" ? v : "";
}

/** Whether a (Micro)Time field is unset: absent, null or empty. */
export function isZeroTime(value: JsonValue | undefined): boolean {
  return value === undefined || value === null || value === "";
}

/** `field: Invalid value: "": can have at most <n> characters` when `value` is longer. */
function tooLong(field: string, value: string, limit: number): FieldError[] {
  return value.length > limit
    ? [fieldInvalid(field, "", `can have at most ${limit} characters`)]
    : [];
}

/**
 * `legacyValidateEvent` on a stored (core/v1) Event, with kube's internal field names
 * (`reportingController` for core/v1's `reportingComponent`). An Event without `eventTime`
 * (the old style): `involvedObject.namespace` equals the Event's namespace, or is empty in
 * namespace `default` (or for a cluster-scoped Event). An Event with `eventTime` (the new
 * style): an empty `involvedObject.namespace` only in `default` or `kube-system`;
 * `reportingController` a qualified name, `reportingInstance` (≤128), `action` (≤128) and
 * `reason` (≤128) required; the message ≤1024 characters. Both: the namespace a DNS-1123
 * subdomain.
 */
export function legacyEventErrors(event: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const meta = isJsonObject(event["metadata"]) ? event["metadata"] : {};
  const namespace = text(meta, "namespace");
  const involved = isJsonObject(event["involvedObject"]) ? event["involvedObject"] : {};
  const involvedNamespace = text(involved, "namespace");
  const mismatch = () =>
    fieldInvalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace");
  if (isZeroTime(event["eventTime"])) {
    if (involvedNamespace === "") {
      if (namespace !== "" && namespace !== "default") errors.push(mismatch());
    } else if (namespace !== involvedNamespace) {
      errors.push(mismatch());
    }
  } else {
    if (involvedNamespace === "" && namespace !== "default" && namespace !== "kube-system")
      errors.push(mismatch());
    const controller = text(event, "reportingComponent");
    if (controller === "") errors.push(fieldRequired("reportingController"));
    for (const msg of isQualifiedName(controller))
      errors.push(fieldInvalid("reportingController", controller, msg));
    const instance = text(event, "reportingInstance");
    if (instance === "") errors.push(fieldRequired("reportingInstance"));
    errors.push(...tooLong("reportingInstance", instance, REPORTING_INSTANCE_LIMIT));
    const action = text(event, "action");
    if (action === "") errors.push(fieldRequired("action"));
    errors.push(...tooLong("action", action, ACTION_LIMIT));
    const reason = text(event, "reason");
    if (reason === "") errors.push(fieldRequired("reason"));
    errors.push(...tooLong("reason", reason, REASON_LIMIT));
    errors.push(...tooLong("message", text(event, "message"), NOTE_LIMIT));
  }
  for (const msg of isDns1123Subdomain(namespace))
    errors.push(fieldInvalid("namespace", namespace, msg));
  return errors;
}

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
  // A core/v1 request gets the legacy rules only, for compatibility (ValidateEventCreate and
  // ValidateEventUpdate with requestVersion v1).
  validateCreate: legacyEventErrors,
  validateUpdate: (next) => legacyEventErrors(next),
  printer: coreEventPrinter,
};

/** The events.k8s.io/v1 Event strategy (writes go through the core/v1 storage and strategy). */
export const eventsApiEventStrategy: KindStrategy = { printer: eventsApiEventPrinter };
