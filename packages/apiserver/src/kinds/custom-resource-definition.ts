/**
 * apiextensions.k8s.io/v1 CustomResourceDefinitions
 * (`staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/strategy.go`),
 * validated by a part of `pkg/apis/apiextensions/validation/validation.go`; the CRD controller
 * serves the custom resources and empties a deleted CRD's.
 *
 * @kind CustomResourceDefinition
 * @defaults status.storedVersions (the storage version), empty conditions and acceptedNames, on
 * create
 * @validation name = plural.group; group, names.plural and names.kind set; one storage version;
 * scope Namespaced or Cluster
 * @update same checks; an update needs a resourceVersion
 * @delete deletion through the cleanup finalizer (`customresourcecleanup.apiextensions.k8s.io`)
 * with a Terminating condition
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { fieldInvalid, isJsonObject } from "kubekit/apimachinery";
import type { KindStrategy } from "./kind-strategy.js";
import { objectAt } from "./pod-spec.js";

/** The storage id of CustomResourceDefinitions. */
export const CRD_STORAGE_ID = "apiextensions.k8s.io/customresourcedefinitions";

/** The object's `status` with one condition added or replaced by type. */
export function withCondition(obj: JsonObject, condition: JsonObject): JsonObject {
  const status = objectAt(obj, "status");
  const conditions = (Array.isArray(status["conditions"]) ? status["conditions"] : []).filter(
    (c) => !isJsonObject(c) || c["type"] !== condition["type"],
  );
  return { ...status, conditions: [...conditions, condition] };
}

function initialStatus(obj: JsonObject): JsonObject {
  const versions = (objectAt(obj, "spec")["versions"] as JsonObject[] | undefined) ?? [];
  const storage = versions.filter((v) => v["storage"] === true).map((v) => v["name"] as JsonValue);
  return {
    ...obj,
    status: { conditions: [], acceptedNames: { plural: "", kind: "" }, storedVersions: storage },
  };
}

function validateCrd(crd: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = crd["spec"];
  if (!isJsonObject(spec)) return [fieldInvalid("spec", null, "must be an object")];
  const names = objectAt(spec, "names");
  const group = spec["group"];
  const plural = names["plural"];
  if (typeof group !== "string" || group === "")
    errors.push(fieldInvalid("spec.group", group ?? "", "must be a non-empty string"));
  if (typeof plural !== "string" || plural === "")
    errors.push(fieldInvalid("spec.names.plural", plural ?? "", "must be a non-empty string"));
  if (typeof names["kind"] !== "string" || names["kind"] === "")
    errors.push(fieldInvalid("spec.names.kind", names["kind"] ?? "", "must be a non-empty string"));
  const name = objectAt(crd, "metadata")["name"];
  if (typeof group === "string" && typeof plural === "string" && name !== `${plural}.${group}`) {
    errors.push(
      fieldInvalid("metadata.name", name ?? "", `must be spec.names.plural+"."+spec.group`),
    );
  }
  if (spec["scope"] !== "Namespaced" && spec["scope"] !== "Cluster") {
    errors.push(
      fieldInvalid("spec.scope", spec["scope"] ?? "", 'must be "Namespaced" or "Cluster"'),
    );
  }
  const versions = Array.isArray(spec["versions"]) ? spec["versions"] : [];
  if (versions.length === 0)
    errors.push(
      fieldInvalid("spec.versions", [], "must have exactly one version marked as storage version"),
    );
  else if (versions.filter((v) => isJsonObject(v) && v["storage"] === true).length !== 1) {
    errors.push(
      fieldInvalid(
        "spec.versions",
        versions as JsonValue,
        "must have exactly one version marked as storage version",
      ),
    );
  }
  return errors;
}

/** The CustomResourceDefinition strategy. */
export const customResourceDefinitionStrategy: KindStrategy = {
  policy: { tracksGeneration: true, allowUnconditionalUpdate: false, deleteReturnsObject: true },
  prepareForCreate: initialStatus,
  validateCreate: validateCrd,
  validateUpdate: (next) => validateCrd(next),
  beforeDelete: (existing, { now }) => ({
    addFinalizers: ["customresourcecleanup.apiextensions.k8s.io"],
    status: withCondition(existing, {
      type: "Terminating",
      status: "True",
      lastTransitionTime: now,
      reason: "InstanceDeletionPending",
      message:
        "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
    }),
  }),
};
