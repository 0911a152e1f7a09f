/**
 * Lenient typed reads of discovery documents: a field of the wrong type reads as absent, the
 * way Go's JSON decoding leaves a zero value, so one odd field never fails a whole document.
 */
import type { JsonObject } from "../core/json.js";
import { isJsonObject, ownValue } from "../core/json.js";

/** A string field, `""` when absent or not a string. */
export function stringField(object: JsonObject, key: string): string {
  const value = ownValue(object, key);
  return typeof value === "string" ? value : "";
}

/** A string field, `undefined` when absent or not a string. */
export function optionalStringField(object: JsonObject, key: string): string | undefined {
  const value = ownValue(object, key);
  return typeof value === "string" ? value : undefined;
}

/** The strings of an array field (other elements skipped), `[]` when absent or not an array. */
export function stringArrayField(object: JsonObject, key: string): string[] {
  const value = ownValue(object, key);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The objects of an array field (other elements skipped), `[]` when absent or not an array. */
export function objectArrayField(object: JsonObject, key: string): JsonObject[] {
  const value = ownValue(object, key);
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

/** An object field, `undefined` when absent or not an object. */
export function objectField(object: JsonObject, key: string): JsonObject | undefined {
  const value = ownValue(object, key);
  return isJsonObject(value) ? value : undefined;
}
