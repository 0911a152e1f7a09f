/**
 * events.k8s.io/v1 Events served from the core/v1 Event storage, as kube-apiserver serves
 * both APIs from one internal type: the field mapping of `pkg/apis/events/v1/conversion.go`
 * (regarding ↔ involvedObject, note ↔ message, deprecatedSource ↔ source,
 * deprecatedFirstTimestamp/LastTimestamp/Count ↔ firstTimestamp/lastTimestamp/count,
 * reportingController ↔ reportingComponent; eventTime, series, action, related,
 * reportingInstance shared) and the events.k8s.io/v1 rules of
 * `pkg/apis/core/validation/events.go` (`ValidateEventCreate`, `ValidateEventUpdate`).
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { fieldInvalid, fieldRequired, deepEqual, isJsonObject } from "kubekit/apimachinery";
import { isZeroTime, legacyEventErrors } from "../kinds/event.js";
import type { ResourceEntry, ResourceRegistry } from "../registry/registry.js";
import { normalizeTypedObject } from "../schema/typed-normalization.js";

/** Field renames, events.k8s.io/v1 name → core/v1 name, in events.k8s.io/v1 field order. */
const EVENTS_V1_TO_CORE: readonly (readonly [string, string])[] = [
  ["metadata", "metadata"],
  ["eventTime", "eventTime"],
  ["series", "series"],
  ["reportingController", "reportingComponent"],
  ["reportingInstance", "reportingInstance"],
  ["action", "action"],
  ["reason", "reason"],
  ["regarding", "involvedObject"],
  ["related", "related"],
  ["note", "message"],
  ["type", "type"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
];

/** core/v1 field order (`k8s.io/api/core/v1` Event). */
const CORE_ORDER = [
  "metadata",
  "involvedObject",
  "reason",
  "message",
  "source",
  "firstTimestamp",
  "lastTimestamp",
  "count",
  "type",
  "eventTime",
  "series",
  "action",
  "related",
  "reportingComponent",
  "reportingInstance",
];

const CORE_TO_EVENTS_V1 = new Map(EVENTS_V1_TO_CORE.map(([v1, core]) => [core, v1]));
const V1_TO_CORE = new Map(EVENTS_V1_TO_CORE);

/** How objects of a resource served from another resource's storage convert to and from it. */
export interface StorageConversion {
  /** The entry whose storage, rules and defaults the objects share (core/v1 `events`). */
  readonly storage: ResourceEntry;
  /** The request's form → the stored (core/v1) form. */
  toStorage(obj: JsonObject): JsonObject;
  /** The stored form → the request's form. */
  fromStorage(obj: JsonObject): JsonObject;
  /** The rules of a create in the request's API, checked on the stored form. */
  validateCreate(stored: JsonObject): FieldError[];
  /** The rules of an update in the request's API, checked on the stored forms. */
  validateUpdate(next: JsonObject, previous: JsonObject): FieldError[];
}

/** The conversion of `entry` when it is served from another entry's storage, else `undefined`. */
export function storageConversionOf(
  registry: ResourceRegistry,
  entry: ResourceEntry,
): StorageConversion | undefined {
  // Served from its own storage: no conversion.
  if (entry.storageId === `${entry.info.group}/${entry.info.plural}`) return undefined;
  const storage = registry.lookup("", "v1", "events");
  if (storage === undefined) return undefined;
  return {
    storage,
    // Each side as Go prints it after the conversion (`reportingComponent: ""` in core/v1,
    // `deprecatedSource: {}` and no empty `reportingController` in events.k8s.io/v1).
    toStorage: (obj) => normalizeTypedObject(eventsV1ToCore(obj), "k8s.io.api.core.v1.Event"),
    fromStorage: (obj) => normalizeTypedObject(coreToEventsV1(obj), "k8s.io.api.events.v1.Event"),
    validateCreate: validateEventsV1Create,
    validateUpdate: validateEventsV1Update,
  };
}

/** An events.k8s.io/v1 Event as the core/v1 Event kube-apiserver stores (`Convert_v1_Event_To_core_Event`). */
export function eventsV1ToCore(obj: JsonObject): JsonObject {
  const renamed: JsonObject = {};
  for (const [key, value] of Object.entries(obj)) {
    if (key === "apiVersion" || key === "kind") continue;
    renamed[V1_TO_CORE.get(key) ?? key] = value;
  }
  return { apiVersion: "v1", kind: "Event", ...ordered(renamed, CORE_ORDER) };
}

/** A stored core/v1 Event as events.k8s.io/v1 serves it (`Convert_core_Event_To_v1_Event`). */
export function coreToEventsV1(obj: JsonObject): JsonObject {
  const renamed: JsonObject = {};
  for (const [key, value] of Object.entries(obj)) {
    if (key === "apiVersion" || key === "kind") continue;
    renamed[CORE_TO_EVENTS_V1.get(key) ?? key] = value;
  }
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    ...ordered(
      renamed,
      EVENTS_V1_TO_CORE.map(([v1]) => v1),
    ),
  };
}

/** `obj`'s fields in `order`, unknown fields after them. */
function ordered(obj: JsonObject, order: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key of order) if (obj[key] !== undefined) out[key] = obj[key] as JsonValue;
  for (const [key, value] of Object.entries(obj)) if (!(key in out)) out[key] = value;
  return out;
}

function text(obj: JsonObject, key: string): string {
  const v = obj[key];
  return typeof v === "string" ? v : "";
}

/** `validateV1EventSeries`: a series counts at least 2 and has a last observed time. */
function validateSeries(event: JsonObject): FieldError[] {
  const series = event["series"];
  if (!isJsonObject(series)) return [];
  const errors: FieldError[] = [];
  const count = series["count"];
  if (typeof count !== "number" || count < 2) {
    errors.push(fieldInvalid("series.count", "", "should be at least 2"));
  }
  if (isZeroTime(series["lastObservedTime"])) errors.push(fieldRequired("series.lastObservedTime"));
  return errors;
}

/** `ValidateEventCreate` for an events.k8s.io/v1 request, on the stored (core/v1) form. */
export function validateEventsV1Create(event: JsonObject): FieldError[] {
  const errors = [...legacyEventErrors(event), ...validateSeries(event)];
  if (isZeroTime(event["eventTime"])) errors.push(fieldRequired("eventTime"));
  const type = text(event, "type");
  if (type !== "Normal" && type !== "Warning") {
    errors.push(fieldInvalid("type", "", `has invalid value: ${type}`));
  }
  if (!isZeroTime(event["firstTimestamp"])) {
    errors.push(fieldInvalid("deprecatedFirstTimestamp", "", "needs to be unset"));
  }
  if (!isZeroTime(event["lastTimestamp"])) {
    errors.push(fieldInvalid("deprecatedLastTimestamp", "", "needs to be unset"));
  }
  const count = event["count"];
  if (typeof count === "number" && count !== 0) {
    errors.push(fieldInvalid("deprecatedCount", "", "needs to be unset"));
  }
  const source = isJsonObject(event["source"]) ? event["source"] : {};
  if (text(source, "component") !== "" || text(source, "host") !== "") {
    errors.push(fieldInvalid("deprecatedSource", "", "needs to be unset"));
  }
  return errors;
}

/** Fields an events.k8s.io/v1 update may not change (`ValidateEventUpdate`), by core/v1 name. */
const IMMUTABLE_FIELDS = [
  "involvedObject",
  "reason",
  "message",
  "source",
  "firstTimestamp",
  "lastTimestamp",
  "count",
  "type",
  "eventTime",
  "action",
  "related",
  "reportingComponent",
  "reportingInstance",
];

/** `ValidateEventUpdate` for an events.k8s.io/v1 request, on the stored (core/v1) forms. */
export function validateEventsV1Update(next: JsonObject, previous: JsonObject): FieldError[] {
  const errors = [...legacyEventErrors(next), ...validateSeries(next)];
  for (const field of IMMUTABLE_FIELDS) {
    const a = next[field] ?? null;
    const b = previous[field] ?? null;
    if (!deepEqual(a, b)) {
      const name = field === "reportingComponent" ? "reportingController" : field;
      errors.push(fieldInvalid(name, a, "field is immutable"));
    }
  }
  return errors;
}
