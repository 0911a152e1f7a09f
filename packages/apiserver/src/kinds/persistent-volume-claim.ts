/**
 * core/v1 PersistentVolumeClaims (`pkg/registry/core/persistentvolumeclaim/strategy.go`):
 * SetDefaults_PersistentVolumeClaimSpec (`pkg/apis/core/v1/defaults.go`) and
 * ValidatePersistentVolumeClaim / ValidatePersistentVolumeClaimUpdate
 * (`pkg/apis/core/validation/validation.go`).
 *
 * @kind PersistentVolumeClaim
 * @defaults volumeMode Filesystem; status Pending on create
 * @validation accessModes and storage request (unless a dataSourceRef) required
 * @update same checks; spec immutable except requests, volumeAttributesClassName, volumeName
 * (while empty: a binding sets it)
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldForbidden, fieldRequired, deepEqual } from "kubekit/apimachinery";
import { persistentVolumeClaimPrinter } from "../table/builtin-table-printers.js";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

/**
 * SetDefaults_PersistentVolumeClaimSpec on a claim: volumeMode Filesystem. StatefulSets
 * apply it to their volumeClaimTemplates too.
 */
export function defaultClaim(obj: JsonObject): JsonObject {
  const spec = objectAt(obj, "spec");
  return spec["volumeMode"] === undefined || spec["volumeMode"] === null
    ? { ...obj, spec: { ...spec, volumeMode: "Filesystem" } }
    : obj;
}

function validateClaim(obj: JsonObject): FieldError[] {
  const spec = objectAt(obj, "spec");
  const errors: FieldError[] = [];
  const modes = spec["accessModes"];
  if (!Array.isArray(modes) || modes.length === 0)
    errors.push(fieldRequired("spec.accessModes", "at least 1 access mode is required"));
  const requests = objectAt(objectAt(spec, "resources"), "requests");
  if (requests["storage"] === undefined && spec["dataSourceRef"] === undefined)
    errors.push(fieldRequired("spec.resources[storage]"));
  return errors;
}

/** The spec without the fields an update may change. */
function fixedPart(spec: JsonObject, old: JsonObject): JsonObject {
  const { volumeAttributesClassName: _v, resources, ...rest } = spec;
  const { requests: _r, ...otherResources } = (resources ?? {}) as JsonObject;
  const out: JsonObject = { ...rest, resources: otherResources };
  // Binding fills in an empty volumeName.
  if ((old["volumeName"] ?? "") === "") delete out["volumeName"];
  return out;
}

function validateClaimUpdate(next: JsonObject, old: JsonObject): FieldError[] {
  const spec = objectAt(next, "spec");
  const oldSpec = objectAt(old, "spec");
  if (deepEqual(fixedPart(spec, oldSpec), fixedPart(oldSpec, oldSpec))) return [];
  return [
    fieldForbidden(
      "spec",
      "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims",
    ),
  ];
}

/** The PersistentVolumeClaim strategy. */
export const persistentVolumeClaimStrategy: KindStrategy = {
  policy: { deleteReturnsObject: true },
  prepareForCreate: (obj) => ({ ...obj, status: { phase: "Pending" } }),
  applyDefaults: defaultClaim,
  validateCreate: validateClaim,
  validateUpdate: (next, old) => [...validateClaim(next), ...validateClaimUpdate(next, old)],
  printer: persistentVolumeClaimPrinter,
};
