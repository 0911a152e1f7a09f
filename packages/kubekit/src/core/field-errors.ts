/**
 * apimachinery's field errors (`staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go`):
 * one validation failure on one field, and their text as Go prints it. `newInvalid`
 * (status-builders.ts) turns them into a 422 Status.
 */
import { formatGoValue, quoteGo } from "./go-format.js";

/** The type of a field error (apimachinery field.ErrorType); it becomes the cause `reason`. */
export type FieldErrorType =
  | "FieldValueNotFound"
  | "FieldValueRequired"
  | "FieldValueDuplicate"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "InternalError"
  | "FieldValueTypeInvalid";

/**
 * A validation error on one field (apimachinery field.Error). `badValue` is printed for the
 * value-carrying types (Invalid, TypeInvalid, NotSupported, NotFound, Duplicate, TooMany);
 * leave it `undefined` to omit it (Go's omitValue). JSON `null` prints as `null`.
 */
export interface FieldError {
  readonly type: FieldErrorType;
  /** The field path, e.g. `metadata.name`, `spec.containers[0].image`, `metadata.labels[app]`. */
  readonly field: string;
  readonly badValue?: unknown;
  readonly detail?: string;
}

const FIELD_ERROR_TEXT: Readonly<Record<FieldErrorType, string>> = {
  FieldValueNotFound: "Not found",
  FieldValueRequired: "Required value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  InternalError: "Internal error",
  FieldValueTypeInvalid: "Invalid value",
};

function fieldError(
  type: FieldErrorType,
  field: string,
  badValue: unknown,
  detail: string,
): FieldError {
  const e: { type: FieldErrorType; field: string; badValue?: unknown; detail?: string } = {
    type,
    field,
  };
  if (badValue !== undefined) e.badValue = badValue;
  if (detail !== "") e.detail = detail;
  return e;
}

/** `field: Invalid value: <value>: <detail>` (field.Invalid). */
export function fieldInvalid(field: string, value: unknown, detail: string): FieldError {
  return fieldError("FieldValueInvalid", field, value, detail);
}

/** `field: Required value[: <detail>]` (field.Required). */
export function fieldRequired(field: string, detail = ""): FieldError {
  return fieldError("FieldValueRequired", field, undefined, detail);
}

/** `field: Forbidden: <detail>` (field.Forbidden). */
export function fieldForbidden(field: string, detail: string): FieldError {
  return fieldError("FieldValueForbidden", field, undefined, detail);
}

/** `field: Unsupported value: <value>: supported values: "a", "b"` (field.NotSupported); no detail when `validValues` is empty. */
export function fieldNotSupported(
  field: string,
  value: unknown,
  validValues: readonly string[],
): FieldError {
  const detail =
    validValues.length > 0 ? `supported values: ${validValues.map(quoteGo).join(", ")}` : "";
  return fieldError("FieldValueNotSupported", field, value, detail);
}

/** `field: Duplicate value: <value>` (field.Duplicate). */
export function fieldDuplicate(field: string, value: unknown): FieldError {
  return fieldError("FieldValueDuplicate", field, value, "");
}

/**
 * `field: Too long: may not be more than <n> bytes` (field.TooLong; `1 byte`; `value is too
 * long` when `maxLength` is negative). The value is never printed.
 */
export function fieldTooLong(field: string, _value: unknown, maxLength: number): FieldError {
  const detail =
    maxLength >= 0
      ? `may not be more than ${maxLength} ${maxLength === 1 ? "byte" : "bytes"}`
      : "value is too long";
  return fieldError("FieldValueTooLong", field, undefined, detail);
}

/** `field: Not found: <value>` (field.NotFound). */
export function fieldNotFound(field: string, value: unknown): FieldError {
  return fieldError("FieldValueNotFound", field, value, "");
}

/**
 * `field: Too many: <actual>: must have at most <max> items` (field.TooMany; `1 item`; the
 * actual count is omitted when negative; `has too many items` when `maxQuantity` is negative).
 */
export function fieldTooMany(
  field: string,
  actualQuantity: number,
  maxQuantity: number,
): FieldError {
  const detail =
    maxQuantity >= 0
      ? `must have at most ${maxQuantity} ${maxQuantity === 1 ? "item" : "items"}`
      : "has too many items";
  return fieldError(
    "FieldValueTooMany",
    field,
    actualQuantity >= 0 ? actualQuantity : undefined,
    detail,
  );
}

/** `field: Invalid value: <value>: <detail>` with type FieldValueTypeInvalid (field.TypeInvalid). */
export function fieldTypeInvalid(field: string, value: unknown, detail: string): FieldError {
  return fieldError("FieldValueTypeInvalid", field, value, detail);
}

/** `field: Internal error: <detail>` (field.InternalError). */
export function fieldInternalError(field: string, detail: string): FieldError {
  return fieldError("InternalError", field, undefined, detail);
}

/**
 * The error text without the field (field.Error.ErrorBody), e.g. `Invalid value: -1: must
 * be greater than or equal to 0`. Values print as Go does: strings Go-quoted (`"Foo"`),
 * numbers and booleans plain (integers without exponent; other numbers in Go's `%v` float
 * form), anything else as Go's `json.Marshal` (sorted object keys, HTML-escaped).
 */
export function fieldErrorBody(e: FieldError): string {
  let s = FIELD_ERROR_TEXT[e.type];
  switch (e.type) {
    case "FieldValueRequired":
    case "FieldValueForbidden":
    case "FieldValueTooLong":
    case "InternalError":
      break;
    default:
      if (e.badValue !== undefined) s += `: ${formatGoValue(e.badValue)}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** The full text of a field error (field.Error.Error): `<field>: <body>`. */
export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/**
 * Several field errors as Go's aggregate prints them: `""` for none, the message for one,
 * `[m1, m2]` for more; repeated messages appear once.
 */
export function formatFieldErrors(errors: readonly FieldError[]): string {
  const messages = [...new Set(errors.map(formatFieldError))];
  if (messages.length === 0) return "";
  if (messages.length === 1) return messages[0] ?? "";
  return `[${messages.join(", ")}]`;
}
