/**
 * The data rules ConfigMaps and Secrets share (`pkg/apis/core/validation/validation.go`
 * ValidateConfigMap, ValidateSecret and their Update functions): key format, the 1 MiB
 * total (`core.MaxSecretSize`), and the `immutable` flag.
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldForbidden, fieldInvalid, fieldTooLong, isConfigMapKey } from "kubekit/apimachinery";
import { objectAt } from "./pod-spec.js";

/** kube's `MaxSecretSize`: the most data a ConfigMap or Secret may hold, 1 MiB. */
export const MAX_DATA_SIZE = 1024 * 1024;

/** `field[key]: Invalid value: "key": <msg>` for every key of `obj[field]` that is not a valid key. */
export function validateDataKeys(obj: JsonObject, field: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of Object.keys(objectAt(obj, field))) {
    for (const msg of isConfigMapKey(key)) errors.push(fieldInvalid(`${field}[${key}]`, key, msg));
  }
  return errors;
}

/** The size in bytes of a map's values, `size(value)` each. */
export function dataSize(map: JsonObject, size: (value: string) => number): number {
  let total = 0;
  for (const v of Object.values(map)) if (typeof v === "string") total += size(v);
  return total;
}

/** The 1 MiB total as a field error at `field`, when exceeded. */
export function validateDataSize(total: number, field: string): FieldError[] {
  return total > MAX_DATA_SIZE ? [fieldTooLong(field, "", MAX_DATA_SIZE)] : [];
}

/**
 * The `immutable` rules of an update: once true it stays true, and the listed data fields
 * may not change (`<field>: Forbidden: field is immutable when `immutable` is set`).
 */
export function validateImmutableData(
  next: JsonObject,
  old: JsonObject,
  fields: readonly string[],
  equal: (a: unknown, b: unknown) => boolean,
): FieldError[] {
  if (old["immutable"] !== true) return [];
  const errors: FieldError[] = [];
  const detail = "field is immutable when `immutable` is set";
  if (next["immutable"] !== true) errors.push(fieldForbidden("immutable", detail));
  for (const f of fields) if (!equal(next[f], old[f])) errors.push(fieldForbidden(f, detail));
  return errors;
}
