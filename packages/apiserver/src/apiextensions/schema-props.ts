/**
 * The OpenAPI v3 schema of a CustomResourceDefinition version as the CRD carries it
 * (`spec.versions[].schema.openAPIV3Schema`, apiextensions.k8s.io/v1 `JSONSchemaProps`).
 * Everything that reads a CRD schema (structural checks, validation, CEL rules, pruning,
 * defaulting, list types for server-side apply, the OpenAPI documents) takes this one type.
 */
import type {
  JSONSchemaProps as WireJSONSchemaProps,
  ValidationRule as WireValidationRule,
} from "kubernetes-types/apiextensions/v1.js";

/** One node of a CRD's OpenAPI v3 schema (wire JSON, not yet checked to be structural). */
export type JSONSchemaProps = WireJSONSchemaProps;

/** One `x-kubernetes-validations` entry: a CEL rule with its message and field path. */
export type ValidationRule = WireValidationRule;
