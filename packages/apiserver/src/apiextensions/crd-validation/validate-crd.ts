/**
 * A v1 CustomResourceDefinition validated as kube-apiserver 1.32 validates it on create and on
 * update (`ValidateCustomResourceDefinition` and `ValidateCustomResourceDefinitionUpdate` in
 * apiextensions-apiserver `pkg/apis/apiextensions/validation/validation.go`): the name
 * `<plural>.<group>`, the spec (group, scope, names, versions, schemas — structural, with valid
 * and pruned defaults and CEL rules that compile — subresources, printer columns, selectable
 * fields, conversion), the immutable fields of an update, the status' accepted and stored
 * versions, API approval for protected groups, and `preserveUnknownFields`.
 *
 * Field paths are the internal type's, as kube reports them (a schema shared by every version
 * is `spec.validation.openAPIV3Schema`, see internal-spec.ts). Values print as JSON where kube
 * prints a Go struct.
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { deepEqual, fieldInvalid, isJsonObject } from "kubekit/apimachinery";
import { validateApiApproval } from "./api-approval.js";
import { internalSpecOf, type InternalSpec } from "./internal-spec.js";
import { validateNames, validateStoredVersions } from "./names-validation.js";
import { celSchemaRuleChecks } from "./schema-rule-checks.js";
import { validateCrdSpec } from "./spec-validation.js";
import { CREATE_OPTIONS, updateOptions } from "./validation-options.js";

function objectAt(obj: JsonObject, key: string): JsonObject {
  const v = obj[key];
  return isJsonObject(v) ? v : {};
}

/** kube's `ValidateImmutableField`: `<path>: Invalid value: <new>: field is immutable`. */
function immutable(
  next: JsonValue | undefined,
  old: JsonValue | undefined,
  path: string,
): FieldError[] {
  return deepEqual(next ?? "", old ?? "")
    ? []
    : [fieldInvalid(path, next ?? "", "field is immutable")];
}

/** The fields an update may not change (scope and kind only once Established). */
function validateImmutables(
  spec: InternalSpec,
  oldSpec: InternalSpec,
  established: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  if (established) {
    errors.push(...immutable(spec.scope, oldSpec.scope, "spec.scope"));
    errors.push(...immutable(spec.names["kind"], oldSpec.names["kind"], "spec.names.kind"));
  }
  errors.push(...immutable(spec.group, oldSpec.group, "spec.group"));
  errors.push(...immutable(spec.names["plural"], oldSpec.names["plural"], "spec.names.plural"));
  return errors;
}

/** `spec.preserveUnknownFields` cannot become true (kube's `validatePreserveUnknownFields`). */
function validatePreserveUnknownFields(spec: InternalSpec, oldSpec?: InternalSpec): FieldError[] {
  if (oldSpec?.preserveUnknownFields || !spec.preserveUnknownFields) return [];
  return [
    fieldInvalid(
      "spec.preserveUnknownFields",
      true,
      "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
    ),
  ];
}

/**
 * The field errors of the CustomResourceDefinition `crd` (wire JSON, defaulted as the server
 * defaults it), on create, or on update when `old` (the stored CRD) is given. Metadata other
 * than the `<plural>.<group>` name rule is the generic store's. Never throws: a field of an
 * unexpected JSON type reads as absent.
 */
export function validateCustomResourceDefinition(crd: JsonObject, old?: JsonObject): FieldError[] {
  const spec = internalSpecOf(objectAt(crd, "spec"));
  const oldSpec = old ? internalSpecOf(objectAt(old, "spec")) : undefined;
  const errors: FieldError[] = [];
  const name = objectAt(crd, "metadata")["name"];
  const requiredName = `${String(spec.names["plural"] ?? "")}.${spec.group}`;
  if (!old && typeof name === "string" && name !== "" && name !== requiredName) {
    errors.push(fieldInvalid("metadata.name", name, `must be spec.names.plural+"."+spec.group`));
  }
  const opts = old && oldSpec ? updateOptions(old, oldSpec) : CREATE_OPTIONS;
  errors.push(...validateCrdSpec(spec, opts, celSchemaRuleChecks));
  if (oldSpec) errors.push(...validateImmutables(spec, oldSpec, opts.requireImmutableNames));
  const status = objectAt(crd, "status");
  errors.push(...validateNames(objectAt(status, "acceptedNames"), "status.acceptedNames"));
  errors.push(...validateStoredVersions(status["storedVersions"], spec.versions));
  errors.push(...validateApiApproval(crd, spec.group, old));
  errors.push(...validatePreserveUnknownFields(spec, oldSpec));
  return errors;
}
