import { SPECIAL_MESSAGES, isJsonObject } from "kubekit/apimachinery";
import type { JsonObject, JsonValue } from "kubekit";
import { jsonFieldsOf, messageJsonShape } from "./message-json-view.js";

function isZero(value: JsonValue): boolean {
  if (value === null || value === "" || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

/**
 * Normalizes a built-in object the way its round trip through kube-apiserver's Go types does:
 * `omitempty` fields holding an empty value (empty map or list, "", 0, false, null) disappear —
 * so removing the last label leaves no `labels: {}` behind. Pointer fields keep zero values
 * (`replicas: 0`), and non-pointer structs stay even when empty (Go never omits them).
 * Unknown fields are left alone (strict field validation handles them). Returns a new object
 * where something changed, the same instance otherwise.
 */
export function normalizeTypedObject(obj: JsonObject, messageName: string | undefined): JsonObject {
  if (!messageName) return obj;
  return normalizeMessage(obj, messageName, 0);
}

const MAX_DEPTH = 100;

function normalizeMessage(obj: JsonObject, messageName: string, depth: number): JsonObject {
  if (depth > MAX_DEPTH) return obj;
  const fields = jsonFieldsOf(messageName);
  if (!fields) return obj;
  let out: JsonObject | undefined;
  for (const [key, value] of Object.entries(obj)) {
    const location = fields.get(key);
    if (!location) continue;
    const field = location.field;
    let next: JsonValue | undefined = value;
    const emptyMap =
      field.map !== undefined && isJsonObject(value) && Object.keys(value).length === 0;
    if (field.omitempty && ((!field.pointer && (isZero(value) || emptyMap)) || value === null)) {
      next = undefined;
    } else if (field.map && field.map.valueIsMessage && isJsonObject(value)) {
      next = mapValues(value, (v) => normalizeValue(v, field.map?.value ?? "", depth + 1));
    } else if (field.isMessage && field.type !== SPECIAL_MESSAGES.rawExtension) {
      next =
        field.repeated && Array.isArray(value)
          ? mapArray(value, (v) => normalizeValue(v, field.type, depth + 1))
          : normalizeValue(value, field.type, depth + 1);
    }
    if (next !== value) {
      out ??= { ...obj };
      if (next === undefined) delete out[key];
      else out[key] = next;
    }
  }
  return out ?? obj;
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
