/**
 * Ephemeral containers (`kubectl debug`): kube's `validateEphemeralContainers` and
 * `ValidatePodEphemeralContainersUpdate` (`pkg/apis/core/validation/validation.go`) and the
 * `pods/ephemeralcontainers` strategy (`pkg/registry/core/pod/strategy.go`
 * podEphemeralContainersStrategy): they are added through that subresource only, never
 * changed or removed; their names are unique across every container of the pod; a
 * `targetContainerName` names an init or regular container; ports, probes, resources,
 * lifecycle, resizePolicy and restartPolicy may not be set, nor volume mount subpaths.
 */
import type { FieldError, JsonObject } from "kubekit";
import {
  deepEqual,
  fieldDuplicate,
  fieldForbidden,
  fieldNotFound,
  isJsonObject,
} from "kubekit/apimachinery";
import type { StatusStrategy } from "./kind-strategy.js";

/** Fields of EphemeralContainerCommon an ephemeral container may not set (the complement of kube's allow list). */
const FORBIDDEN_FIELDS = [
  "ports",
  "resources",
  "resizePolicy",
  "lifecycle",
  "livenessProbe",
  "readinessProbe",
  "startupProbe",
  "restartPolicy",
];

function containersAt(spec: JsonObject, key: string): JsonObject[] {
  const list = spec[key];
  return Array.isArray(list) ? list.filter(isJsonObject) : [];
}

/** Whether a field is set to something other than its zero value (validateFieldAllowList). */
function isSet(value: unknown): boolean {
  if (value === undefined || value === null || value === "" || value === 0 || value === false)
    return false;
  if (Array.isArray(value)) return value.length > 0;
  return !(isJsonObject(value) && Object.keys(value).length === 0);
}

/**
 * The ephemeral-only rules of a pod spec's `ephemeralContainers` at `path` (name, image and
 * pull policy are checked with the other containers'): unique names across all containers,
 * an existing target, no forbidden fields, no volume mount subpaths.
 */
export function validateEphemeralContainers(spec: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const others = new Set(
    [...containersAt(spec, "containers"), ...containersAt(spec, "initContainers")].map((c) =>
      String(c["name"] ?? ""),
    ),
  );
  const seen = new Set<string>();
  containersAt(spec, "ephemeralContainers").forEach((c, i) => {
    const at = `${path}.ephemeralContainers[${i}]`;
    const name = String(c["name"] ?? "");
    if (name !== "" && (others.has(name) || seen.has(name)))
      errors.push(fieldDuplicate(`${at}.name`, name));
    seen.add(name);
    const target = c["targetContainerName"];
    if (typeof target === "string" && target !== "" && !others.has(target))
      errors.push(fieldNotFound(`${at}.targetContainerName`, target));
    for (const field of FORBIDDEN_FIELDS) {
      if (isSet(c[field]))
        errors.push(fieldForbidden(`${at}.${field}`, "cannot be set for an Ephemeral Container"));
    }
    containersAt(c, "volumeMounts").forEach((mount, j) => {
      for (const field of ["subPath", "subPathExpr"]) {
        if (isSet(mount[field]))
          errors.push(
            fieldForbidden(
              `${at}.volumeMounts[${j}].${field}`,
              "cannot be set for an Ephemeral Container",
            ),
          );
      }
    });
  });
  return errors;
}

/** A pod create may not carry ephemeral containers (ValidatePodCreate). */
export function validateNoEphemeralContainersOnCreate(spec: JsonObject): FieldError[] {
  return containersAt(spec, "ephemeralContainers").length > 0
    ? [fieldForbidden("spec.ephemeralContainers", "cannot be set on create")]
    : [];
}

/**
 * `dropNonEphemeralContainerUpdates`: the stored pod with only the new `ephemeralContainers`
 * (and the new name, namespace, resourceVersion and UID) taken from the write.
 */
function dropNonEphemeralContainerUpdates(next: JsonObject, old: JsonObject): JsonObject {
  const oldMeta = isJsonObject(old["metadata"]) ? old["metadata"] : {};
  const newMeta = isJsonObject(next["metadata"]) ? next["metadata"] : {};
  const metadata: JsonObject = { ...oldMeta };
  for (const key of ["name", "namespace", "resourceVersion", "uid"]) {
    if (newMeta[key] !== undefined) metadata[key] = newMeta[key]!;
  }
  const oldSpec = isJsonObject(old["spec"]) ? old["spec"] : {};
  const newSpec = isJsonObject(next["spec"]) ? next["spec"] : {};
  const spec: JsonObject = { ...oldSpec };
  if (newSpec["ephemeralContainers"] !== undefined)
    spec["ephemeralContainers"] = newSpec["ephemeralContainers"]!;
  else delete spec["ephemeralContainers"];
  return { ...old, metadata, spec };
}

/**
 * ValidatePodEphemeralContainersUpdate's part 2: every existing ephemeral container is still
 * there, unchanged (kube appends a Go diff to the "may not be changed" message; left out).
 */
function validateEphemeralContainersUpdate(next: JsonObject, old: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = isJsonObject(next["spec"]) ? next["spec"] : {};
  const oldSpec = isJsonObject(old["spec"]) ? old["spec"] : {};
  const byName = new Map(containersAt(spec, "ephemeralContainers").map((c) => [c["name"], c]));
  for (const previous of containersAt(oldSpec, "ephemeralContainers")) {
    const name = String(previous["name"] ?? "");
    const current = byName.get(name);
    if (current === undefined) {
      errors.push(
        fieldForbidden(
          "spec.ephemeralContainers",
          `existing ephemeral containers "${name}" may not be removed\n`,
        ),
      );
    } else if (!deepEqual(previous, current)) {
      errors.push(
        fieldForbidden(
          `spec.ephemeralContainers[${name}]`,
          `existing ephemeral containers "${name}" may not be changed\n`,
        ),
      );
    }
  }
  return errors;
}

/**
 * The rules of writes to `pods/ephemeralcontainers`: only ephemeral containers change; the
 * spec validation (`validatePodSpec`, which runs the ephemeral rules) and the update rule.
 */
export function ephemeralContainersRules(
  validateSpec: (spec: JsonObject) => FieldError[],
): StatusStrategy {
  return {
    prepareForUpdate: dropNonEphemeralContainerUpdates,
    validateUpdate: (next, old) => [
      ...validateSpec(isJsonObject(next["spec"]) ? next["spec"] : {}),
      ...validateEphemeralContainersUpdate(next, old),
    ],
  };
}
