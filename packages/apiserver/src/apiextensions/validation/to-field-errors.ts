/**
 * kube-openapi validation errors as apiextensions turns them into field errors
 * (`kubeOpenAPIResultToFieldErrors` in `pkg/apiserver/validation/validation.go`): the error's
 * dotted name (leading `.` trimmed) becomes a child of the caller's path, `required` is
 * `Required value`, `enum` is `Unsupported value` with the allowed values, `maxLength` is
 * `Too long`, `maxItems`/`maxProperties` are `Too many`, type and format errors are
 * `Invalid value` (TypeInvalid) and every other error is `Invalid value` whose detail is the
 * kube-openapi message. Errors without a field (`anyOf`, `oneOf`, `allOf`, `not`) are on the
 * caller's path, which is Go's nil path (`<nil>`) at the root.
 */
import type { FieldError } from "kubekit";
import {
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
  formatGoValue,
} from "kubekit/apimachinery";
import type { OpenApiError, OpenApiResult } from "./openapi-result.js";

/** An enum value as apiextensions lists it: strings as they are, others as Go's JSON. */
function enumValueText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || typeof v === "number" || typeof v === "boolean") return JSON.stringify(v);
  return formatGoValue(v);
}

function fieldOf(e: OpenApiError, path: string): string {
  if (e.name === "" || e.name === ".") return path === "" ? "<nil>" : path;
  const child = e.name.startsWith(".") ? e.name.slice(1) : e.name;
  return path === "" ? child : `${path}.${child}`;
}

/** One kube-openapi error as a field error on `path` (`""`: the root, Go's nil path). */
function toFieldError(e: OpenApiError, path: string): FieldError {
  const field = fieldOf(e, path);
  const value = e.value === undefined ? "" : e.value;
  switch (e.code) {
    case "composite":
      return fieldInvalid(field, "", e.message);
    case "required":
      return fieldRequired(field, "");
    case "enum":
      return fieldNotSupported(
        field,
        e.value === undefined ? "null" : e.value,
        (e.values ?? []).map(enumValueText),
      );
    case "tooLong":
      return fieldTooLong(field, value, e.valid ?? -1);
    case "maxItems":
    case "tooManyProperties":
      return fieldTooMany(field, typeof e.value === "number" ? e.value : -1, e.valid ?? -1);
    case "invalidType":
      return fieldTypeInvalid(field, value, e.message);
    default:
      return fieldInvalid(field, value, e.message);
  }
}

/** The errors of `result` as field errors under `path`, in the validator's order. */
export function toFieldErrors(result: OpenApiResult, path: string): FieldError[] {
  return result.errors.map((e) => toFieldError(e, path));
}
