import {
  SPECIAL_MESSAGES,
  isJsonObject,
  messageNameForKind,
  type FieldInfo,
} from "kubekit/apimachinery";
import type { JsonObject, JsonValue } from "kubekit";
import { jsonFieldsOf, messageJsonShape } from "./message-json-view.js";
import {
  alwaysEncodedFields,
  encodedZeroOf,
  goFieldOf,
  isStructField,
} from "../encoding/go-zero-fields.js";

function isZero(value: JsonValue): boolean {
  if (value === null || value === "" || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

/**
 * Normalizes a built-in object the way its round trip through kube-apiserver's Go types and
 * protobuf storage does, so the stored object reads back as kube-apiserver prints it:
 * - `omitempty` fields holding an empty value (empty map or list, "", 0, false, null)
 *   disappear — so removing the last label leaves no `labels: {}` behind; pointer fields keep
 *   zero values (`replicas: 0`);
 * - fields Go always encodes are present: absent non-pointer structs as their zero value
 *   (`"status":{}`, `"resources":{}`, `"creationTimestamp":null` in a template, StatefulSet
 *   `status: {replicas: 0, availableReplicas: 0}`), absent or `null` non-`omitempty` scalars
 *   as `""`/`0`/`false`, and non-`omitempty` lists, maps and pointers as `null` when absent
 *   or empty (a nil slice after the protobuf round trip); see {@link alwaysEncodedFields}.
 * Unknown fields are left alone (strict field validation handles them). Returns a new object
 * where something changed, the same instance otherwise.
 */
export function normalizeTypedObject(obj: JsonObject, messageName: string | undefined): JsonObject {
  if (!messageName) return obj;
  return normalizeMessage(obj, messageName, 0);
}

/**
 * A built-in object as kube-apiserver stores and prints it (`normalizeTypedObject` with
 * the message of its `apiVersion` and `kind`): what a controller compares its computed state
 * with, since the server's copy carries every field Go always encodes (`lastProbeTime: null`,
 * `lastState: {}`, ...) and a plain deep comparison would see a change on every sync. Objects
 * of kinds outside the field tables (custom resources) are returned as they are. Never
 * mutates `obj`; returns it unchanged when nothing differs.
 */
export function normalizeBuiltinObject(obj: JsonObject): JsonObject {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== "string" || typeof kind !== "string") return obj;
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  return normalizeTypedObject(obj, messageNameForKind(group, apiVersion.slice(slash + 1), kind));
}

const MAX_DEPTH = 100;

function normalizeMessage(obj: JsonObject, messageName: string, depth: number): JsonObject {
  if (depth > MAX_DEPTH) return obj;
  const fields = jsonFieldsOf(messageName);
  if (!fields) return obj;
  let out: JsonObject | undefined;
  for (const [key, value] of Object.entries(obj)) {
    const location = fields.get(key);
    const field =
      location && goFieldOf(location.inlinePath.at(-1)?.type ?? messageName, location.field);
    if (!field) continue;
    const next = normalizeField(field, value, depth);
    if (next !== value) {
      out ??= { ...obj };
      if (next === undefined) delete out[key];
      else out[key] = next;
    }
  }
  for (const always of alwaysEncodedFields(messageName)) {
    if ((out ?? obj)[always.key] !== undefined) continue;
    out ??= { ...obj };
    out[always.key] = always.zero();
  }
  return out ?? obj;
}

/** The value a present field takes after the round trip; `undefined` when Go leaves it out. */
function normalizeField(field: FieldInfo, value: JsonValue, depth: number): JsonValue | undefined {
  // `null` decodes to the Go zero value, which prints as an absent field does.
  if (value === null) return encodedZeroOf(field);
  const emptyCollection =
    (field.repeated && Array.isArray(value) && value.length === 0) ||
    (field.map !== undefined && isJsonObject(value) && Object.keys(value).length === 0);
  // An empty slice or map is nil after the protobuf round trip.
  if (emptyCollection && !field.pointer) return field.omitempty ? undefined : null;
  if (field.omitempty && !field.pointer && !isStructField(field) && isZero(value)) return undefined;
  if (field.map && field.map.valueIsMessage && isJsonObject(value)) {
    const valueType = field.map.value;
    return mapValues(value, (v) => normalizeValue(v, valueType, depth + 1));
  }
  if (field.isMessage && field.type !== SPECIAL_MESSAGES.rawExtension) {
    return field.repeated && Array.isArray(value)
      ? mapArray(value, (v) => normalizeValue(v, field.type, depth + 1))
      : normalizeValue(value, field.type, depth + 1);
  }
  return value;
}

function normalizeValue(value: JsonValue, messageName: string, depth: number): JsonValue {
  if (!isJsonObject(value) || messageJsonShape(messageName) !== "object") return value;
  return normalizeMessage(value, messageName, depth);
}

function mapArray(values: JsonValue[], fn: (v: JsonValue) => JsonValue): JsonValue[] {
  let out: JsonValue[] | undefined;
  values.forEach((v, i) => {
    const n = fn(v);
    if (n !== v) {
      out ??= values.slice();
      out[i] = n;
    }
  });
  return out ?? values;
}

function mapValues(values: JsonObject, fn: (v: JsonValue) => JsonValue): JsonObject {
  let out: JsonObject | undefined;
  for (const [k, v] of Object.entries(values)) {
    const n = fn(v);
    if (n !== v) {
      out ??= { ...values };
      out[k] = n;
    }
  }
  return out ?? values;
}
