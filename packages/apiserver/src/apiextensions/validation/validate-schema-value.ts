/**
 * A value against a CRD version's OpenAPI v3 schema, worded as kube-apiserver words it: the
 * schema validation of apiextensions' `ValidateCustomResource` (kube-openapi's validator, see
 * schema-validator.ts, its errors converted by `kubeOpenAPIResultToFieldErrors`) followed by
 * the embedded-resource checks of `schemaobjectmeta.Validate`.
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import type { JSONSchemaProps } from "../schema-props.js";
import { validateEmbeddedResources } from "./embedded-resources.js";
import { validateValue } from "./schema-validator.js";
import { toFieldErrors } from "./to-field-errors.js";

/** Options of {@link validateSchemaValue}. */
export interface SchemaValueValidationOptions {
  /**
   * The value is a whole resource: its `apiVersion` and `kind` are checked as an embedded
   * resource's are. Its `metadata` is checked only as far as the schema says (kube restricts
   * the root `metadata` schema to `name`/`generateName`); the ObjectMeta rules are the caller's
   * (kube-apiserver's ValidateObjectMetaAccessor).
   */
  readonly isResourceRoot?: boolean;
  /**
   * The value before an update: with it, errors of values unchanged from their correlated old
   * value are dropped (kube's CRD validation ratcheting, on by default since 1.30): object
   * fields correlate by key, items of `x-kubernetes-list-type: map` lists by their keys.
   * Embedded-resource checks are not ratcheted.
   */
  readonly oldValue?: JsonValue;
}

/**
 * Validates `value` against `schema` as kube-apiserver validates a custom resource (or a CRD
 * default) against its version's schema. `path` is the field path of `value` (`""` at the
 * root). Returns kube's field errors in kube's order (object properties in schema order
 * where Go iterates a map), e.g. `spec.size: Invalid value: "string": spec.size in body must
 * be of type integer: "string"`.
 *
 * Guarantees: never throws for any JSON value and any schema object (wrongly typed keywords
 * read as absent, an invalid `pattern` is an error on the value, not an exception); time is
 * linear in value size times schema size, large enums are looked up in constant time, and
 * nesting beyond 1000 levels is reported instead of recursed into.
 *
 * Caveats: bad values that are objects print as JSON where Go prints `%#v`.
 */
export function validateSchemaValue(
  value: JsonValue,
  schema: JSONSchemaProps,
  path: string,
  options?: SchemaValueValidationOptions,
): FieldError[] {
  const node = schema as unknown as JsonValue;
  if (!isJsonObject(node)) return [];
  const old = options?.oldValue === undefined ? undefined : { value: options.oldValue };
  const errors = toFieldErrors(validateValue(value, node as JsonObject, "", 0, old), path);
  errors.push(...validateEmbeddedResources(value, node, path, options?.isResourceRoot === true));
  return errors;
}
