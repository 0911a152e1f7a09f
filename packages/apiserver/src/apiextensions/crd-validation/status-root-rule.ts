/**
 * With the status subresource enabled, the root of a version's schema may only use the
 * keywords that survive extracting `properties[status]` as the status schema
 * (`validateCustomResourceDefinitionValidation` in apiextensions-apiserver
 * `pkg/apis/apiextensions/validation/validation.go`). kube walks the internal
 * `JSONSchemaProps` struct's fields in declaration order and reports the first offending one.
 */
import type { FieldError, JsonValue } from "kubekit";
import { fieldInvalid } from "kubekit/apimachinery";
import type { SchemaNode } from "../structural/schema-node.js";

/** The internal struct's fields in declaration order: Go name and JSON key. */
const STRUCT_FIELDS: readonly [string, string][] = [
  ["ID", "id"],
  ["Schema", "$schema"],
  ["Ref", "$ref"],
  ["Description", "description"],
  ["Type", "type"],
  ["Nullable", "nullable"],
  ["Format", "format"],
  ["Title", "title"],
  ["Default", "default"],
  ["Maximum", "maximum"],
  ["ExclusiveMaximum", "exclusiveMaximum"],
  ["Minimum", "minimum"],
  ["ExclusiveMinimum", "exclusiveMinimum"],
  ["MaxLength", "maxLength"],
  ["MinLength", "minLength"],
  ["Pattern", "pattern"],
  ["MaxItems", "maxItems"],
  ["MinItems", "minItems"],
  ["UniqueItems", "uniqueItems"],
  ["MultipleOf", "multipleOf"],
  ["Enum", "enum"],
  ["MaxProperties", "maxProperties"],
  ["MinProperties", "minProperties"],
  ["Required", "required"],
  ["Items", "items"],
  ["AllOf", "allOf"],
  ["OneOf", "oneOf"],
  ["AnyOf", "anyOf"],
  ["Not", "not"],
  ["Properties", "properties"],
  ["AdditionalProperties", "additionalProperties"],
  ["PatternProperties", "patternProperties"],
  ["Dependencies", "dependencies"],
  ["AdditionalItems", "additionalItems"],
  ["Definitions", "definitions"],
  ["ExternalDocs", "externalDocs"],
  ["Example", "example"],
  ["XPreserveUnknownFields", "x-kubernetes-preserve-unknown-fields"],
  ["XEmbeddedResource", "x-kubernetes-embedded-resource"],
  ["XIntOrString", "x-kubernetes-int-or-string"],
  ["XListMapKeys", "x-kubernetes-list-map-keys"],
  ["XListType", "x-kubernetes-list-type"],
  ["XMapType", "x-kubernetes-map-type"],
  ["XValidations", "x-kubernetes-validations"],
];

/** kube's `allowedFieldsAtRootSchema`, in its order (printed as Go prints a `[]string`). */
const ALLOWED_AT_ROOT = [
  "Description",
  "Type",
  "Format",
  "Title",
  "Maximum",
  "ExclusiveMaximum",
  "Minimum",
  "ExclusiveMinimum",
  "MaxLength",
  "MinLength",
  "Pattern",
  "MaxItems",
  "MinItems",
  "UniqueItems",
  "MultipleOf",
  "Required",
  "Items",
  "Properties",
  "ExternalDocs",
  "Example",
  "XPreserveUnknownFields",
  "XValidations",
];

/** Whether a field holds its Go zero value: absent, null, false or `""` (an empty list is a non-nil slice). */
function isZero(value: JsonValue | undefined): boolean {
  return value === undefined || value === null || value === false || value === "";
}

/** Keywords holding nested schemas, left out of the printed root to keep the message short. */
const NESTED_SCHEMA_KEYWORDS = new Set([
  "properties",
  "items",
  "additionalProperties",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "definitions",
  "patternProperties",
  "dependencies",
  "additionalItems",
]);

/**
 * The error of a schema root that uses more than the allowed keywords while the status
 * subresource is enabled, at `path` (the `schema` of a version or `spec.validation`).
 */
export function validateStatusEnabledRoot(root: SchemaNode, path: string): FieldError[] {
  for (const [goName, key] of STRUCT_FIELDS) {
    const value = root[key];
    if (isZero(value)) continue;
    if (goName === "Type") {
      if (value !== "object") {
        return [
          fieldInvalid(
            `${path}.openAPIV3Schema.type`,
            value,
            `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`,
          ),
        ];
      }
      continue;
    }
    if (!ALLOWED_AT_ROOT.includes(goName)) {
      return [
        fieldInvalid(
          `${path}.openAPIV3Schema`,
          // kube prints the whole struct; kubekit prints the root's own keywords only.
          Object.fromEntries(Object.entries(root).filter(([k]) => !NESTED_SCHEMA_KEYWORDS.has(k))),
          `only [${ALLOWED_AT_ROOT.join(" ")}] fields are allowed at the root of the schema if the status subresource is enabled`,
        ),
      ];
    }
  }
  return [];
}
