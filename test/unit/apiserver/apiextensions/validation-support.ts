/** Helpers of the schema validation tests: kube's texts of the field errors of a value. */
import type { JsonValue } from "kubekit";
import { formatFieldError } from "../../../../packages/kubekit/src/core/field-errors.js";
import type { JSONSchemaProps } from "../../../../packages/apiserver/src/apiextensions/schema-props.js";
import { validateSchemaValue } from "../../../../packages/apiserver/src/apiextensions/validation/validate-schema-value.js";

/** The messages kube-apiserver prints for `value` against `schema` (root path). */
export function messagesOf(value: JsonValue, schema: JSONSchemaProps, path = ""): string[] {
  return validateSchemaValue(value, schema, path).map(formatFieldError);
}

/** A root object schema with one property `spec.x` of the given schema. */
export function specField(x: JSONSchemaProps): JSONSchemaProps {
  return { type: "object", properties: { spec: { type: "object", properties: { x } } } };
}

/** The messages for `{spec: {x: value}}` against {@link specField}(`x`). */
export function fieldMessages(x: JSONSchemaProps, value: JsonValue): string[] {
  return messagesOf({ spec: { x: value } }, specField(x));
}
