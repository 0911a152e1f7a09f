/**
 * kube-openapi's validation errors with their texts (`k8s.io/kube-openapi/pkg/validation/errors/
 * schema.go` and `validate/schema_messages.go`), always "in body" as apiextensions validates
 * a request body. Numbers print as Go does: `%d` of an int64 bound (`intText`), `%v` of a
 * float64 one (`floatText`).
 */
import { formatGoFloat, quoteGo } from "kubekit/apimachinery";
import type { OpenApiError } from "./openapi-result.js";

/** Go's `%v` of an int64 (a JS integer). */
export function intText(n: number): string {
  return Number.isFinite(n) ? BigInt(Math.trunc(n)).toString() : formatGoFloat(n);
}

/** Go's `%v` of a float64. */
export function floatText(n: number): string {
  return formatGoFloat(n);
}

/** `<name> in body must be of type <type>[: "<value>"]` (errors.InvalidType). */
export function invalidType(name: string, typeName: string, value: unknown): OpenApiError {
  const message =
    typeof value === "string"
      ? `${name} in body must be of type ${typeName}: ${quoteGo(value)}`
      : `${name} in body must be of type ${typeName}`;
  return { code: "invalidType", name, message, value };
}

/** `<name> in body is required` (errors.Required). */
export function requiredError(name: string): OpenApiError {
  return { code: "required", name, message: `${name} in body is required` };
}

/** `<name> in body should be at most <max> chars long` (errors.TooLong). */
export function tooLong(name: string, max: number, value: string): OpenApiError {
  const message = `${name} in body should be at most ${intText(max)} chars long`;
  return { code: "tooLong", name, message, value, valid: max };
}

/** `<name> in body should be at least <min> chars long` (errors.TooShort). */
export function tooShort(name: string, min: number, value: string): OpenApiError {
  const message = `${name} in body should be at least ${intText(min)} chars long`;
  return { code: "tooShort", name, message, value, valid: min };
}

/** `<name> in body should match '<pattern>'` (errors.FailedPattern). */
export function failedPattern(name: string, pattern: string, value: string): OpenApiError {
  return { code: "pattern", name, message: `${name} in body should match '${pattern}'`, value };
}

/**
 * An enum failure (errors.EnumFail). apiextensions reports it as NotSupported listing the
 * values, so the message (kept for deduplication only) does not repeat a large enum.
 */
export function enumFail(name: string, value: unknown, values: readonly unknown[]): OpenApiError {
  return {
    code: "enum",
    name,
    message: `${name} in body should be one of the enum`,
    value,
    values,
  };
}

/** `<name> in body should be a multiple of <factor>` (errors.NotMultipleOf). */
export function notMultipleOf(name: string, factorText: string, value: number): OpenApiError {
  const message = `${name} in body should be a multiple of ${factorText}`;
  return { code: "multipleOf", name, message, value };
}

/** `factor MultipleOf declared for <name> must be positive: <factor>`. */
export function multipleOfMustBePositive(name: string, factorText: string): OpenApiError {
  const message = `factor MultipleOf declared for ${name} must be positive: ${factorText}`;
  return { code: "multipleOfMustBePositive", name, message, value: Number(factorText) };
}

/** `<name> in body should be less than [or equal to] <max>` (errors.ExceedsMaximum*). */
export function exceedsMaximum(
  name: string,
  maxText: string,
  exclusive: boolean,
  value: number,
): OpenApiError {
  const rel = exclusive ? "less than" : "less than or equal to";
  return { code: "maximum", name, message: `${name} in body should be ${rel} ${maxText}`, value };
}

/** `<name> in body should be greater than [or equal to] <min>` (errors.ExceedsMinimum*). */
export function exceedsMinimum(
  name: string,
  minText: string,
  exclusive: boolean,
  value: number,
): OpenApiError {
  const rel = exclusive ? "greater than" : "greater than or equal to";
  return { code: "minimum", name, message: `${name} in body should be ${rel} ${minText}`, value };
}

/** `<name> in body shouldn't contain duplicates` (errors.DuplicateItems). */
export function duplicateItems(name: string): OpenApiError {
  return { code: "unique", name, message: `${name} in body shouldn't contain duplicates` };
}

/** `<name> in body should have at most <max> items` (errors.TooManyItems). */
export function tooManyItems(name: string, max: number, size: number): OpenApiError {
  const message = `${name} in body should have at most ${intText(max)} items`;
  return { code: "maxItems", name, message, value: size, valid: max };
}

/** `<name> in body should have at least <min> items` (errors.TooFewItems). */
export function tooFewItems(name: string, min: number, size: number): OpenApiError {
  const message = `${name} in body should have at least ${intText(min)} items`;
  return { code: "minItems", name, message, value: size, valid: min };
}

/** `<name> in body should have at least <min> properties` (errors.TooFewProperties). */
export function tooFewProperties(name: string, min: number, size: number): OpenApiError {
  const message = `${name} in body should have at least ${intText(min)} properties`;
  return { code: "tooFewProperties", name, message, value: size, valid: min };
}

/** `<name> in body should have at most <max> properties` (errors.TooManyProperties). */
export function tooManyProperties(name: string, max: number, size: number): OpenApiError {
  const message = `${name} in body should have at most ${intText(max)} properties`;
  return { code: "tooManyProperties", name, message, value: size, valid: max };
}

/** `<name>.<key> in body is a forbidden property` (errors.PropertyNotAllowed). */
export function propertyNotAllowed(name: string, key: string): OpenApiError {
  const message = `${name}.${key} in body is a forbidden property`;
  return { code: "propertyNotAllowed", name, message, value: key };
}

/** `array doesn't allow for additional items`. */
export function additionalItemsNotAllowed(): OpenApiError {
  return { code: "composite", name: "", message: "array doesn't allow for additional items" };
}

/** `"<path>" must validate at least one schema (anyOf)`. */
export function mustValidateAtLeastOne(path: string): OpenApiError {
  const message = `${quoteGo(path)} must validate at least one schema (anyOf)`;
  return { code: "composite", name: "", message };
}

/** `"<path>" must validate one and only one schema (oneOf). <detail>`. */
export function mustValidateOnlyOne(path: string, valid: number): OpenApiError {
  const detail = valid === 0 ? "Found none valid" : `Found ${valid} valid alternatives`;
  const message = `${quoteGo(path)} must validate one and only one schema (oneOf). ${detail}`;
  return { code: "composite", name: "", message };
}

/** `"<path>" must validate all the schemas (allOf)[. None validated]`. */
export function mustValidateAll(path: string, noneValid: boolean): OpenApiError {
  const message = `${quoteGo(path)} must validate all the schemas (allOf)${noneValid ? ". None validated" : ""}`;
  return { code: "composite", name: "", message };
}

/** `"<path>" must not validate the schema (not)`. */
export function mustNotValidate(path: string): OpenApiError {
  return {
    code: "composite",
    name: "",
    message: `${quoteGo(path)} must not validate the schema (not)`,
  };
}

/** `"<key>" has a dependency on <dependency>`. */
export function hasADependency(path: string, dependency: string): OpenApiError {
  const message = `${quoteGo(path)} has a dependency on ${dependency}`;
  return { code: "composite", name: "", message };
}
