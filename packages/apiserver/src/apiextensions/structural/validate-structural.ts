/**
 * Whether a CRD's OpenAPI v3 schema is structural (apiextensions-apiserver
 * `pkg/apiserver/schema/validation.go` `ValidateStructural`, on what `NewStructural` in
 * `convert.go` accepts): the rules that make pruning, defaulting, CEL and server-side apply
 * well-defined on custom resources.
 */
import type { FieldError, JsonObject } from "kubekit";
import { formatFieldError } from "kubekit/apimachinery";
import { structuralConversionError } from "./structural-conversion.js";
import { validateStructuralCompleteness } from "./structural-completeness.js";
import { validateStructuralInvariants } from "./structural-invariants.js";

/**
 * The structural-schema errors of `schema` (a `openAPIV3Schema` root) with field paths under
 * `path`, sorted by their text as kube sorts them (its Go maps iterate at random). Assumes
 * {@link structuralConversionError} accepted the schema; a node of an unexpected JSON type
 * reads as absent.
 */
export function validateStructural(schema: JsonObject, path: string): FieldError[] {
  const errors = [
    ...validateStructuralInvariants(schema, "root", path),
    ...validateStructuralCompleteness(schema, path),
  ];
  const keyed = errors.map((e) => [formatFieldError(e), e] as const);
  keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return keyed.map(([, e]) => e);
}

/**
 * Whether `schema` is not a structural schema: NewStructural refuses it or ValidateStructural
 * reports an error (kube's `schemaIsNonStructural`).
 */
export function isNonStructural(schema: JsonObject): boolean {
  return (
    structuralConversionError(schema) !== undefined || validateStructural(schema, "").length > 0
  );
}
