/**
 * The OpenAPI v3 schema of a CustomResourceDefinition version as the CRD carries it
 * (`spec.versions[].schema.openAPIV3Schema`, apiextensions.k8s.io/v1 `JSONSchemaProps`).
 * Everything that reads a CRD schema (structural checks, validation, CEL rules, pruning,
 * defaulting, list types for server-side apply, the OpenAPI documents) takes this one type.
 */
import type { JsonValue } from "kubekit";
import type {
  ExternalDocumentation,
  ValidationRule as WireValidationRule,
} from "kubernetes-types/apiextensions/v1.js";

/** One `x-kubernetes-validations` entry: a CEL rule with its message and field path. */
export type ValidationRule = WireValidationRule;

/** `additionalProperties` / `additionalItems`: a schema, or a boolean. */
export type JSONSchemaPropsOrBool = JSONSchemaProps | boolean;

/**
 * One node of a CRD's OpenAPI v3 schema (wire JSON, not yet checked to be structural):
 * kubernetes-types' `JSONSchemaProps` with JSON values typed as such and the `x-kubernetes-*`
 * extensions its generator leaves out.
 */
export interface JSONSchemaProps {
  $ref?: string;
  $schema?: string;
  additionalItems?: JSONSchemaPropsOrBool;
  additionalProperties?: JSONSchemaPropsOrBool;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  default?: JsonValue;
  definitions?: { [name: string]: JSONSchemaProps };
  dependencies?: { [name: string]: JSONSchemaProps | string[] };
  description?: string;
  enum?: JsonValue[];
  example?: JsonValue;
  exclusiveMaximum?: boolean;
  exclusiveMinimum?: boolean;
  externalDocs?: ExternalDocumentation;
  format?: string;
  id?: string;
  items?: JSONSchemaProps | JSONSchemaProps[];
  maxItems?: number;
  maxLength?: number;
  maxProperties?: number;
  maximum?: number;
  minItems?: number;
  minLength?: number;
  minProperties?: number;
  minimum?: number;
  multipleOf?: number;
  not?: JSONSchemaProps;
  nullable?: boolean;
  oneOf?: JSONSchemaProps[];
  pattern?: string;
  patternProperties?: { [name: string]: JSONSchemaProps };
  properties?: { [name: string]: JSONSchemaProps };
  required?: string[];
  title?: string;
  type?: string;
  uniqueItems?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-map-type"?: string;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-validations"?: ValidationRule[];
}
