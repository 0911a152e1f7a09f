/**
 * apiextensions.k8s.io/v1 CustomResourceDefinitions
 * (`staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/strategy.go`,
 * defaults from `pkg/apis/apiextensions/v1/defaults.go`), validated by
 * `apiextensions/crd-validation/` (kube's `pkg/apis/apiextensions/validation/validation.go`);
 * the CRD controller serves the custom resources and empties a deleted CRD's.
 *
 * @kind CustomResourceDefinition
 * @defaults names.singular (the lower-cased kind), names.listKind (`<kind>List`), conversion
 * strategy None, a conversion service's port 443; on create an empty status holding the storage
 * version in storedVersions; on update the stored status, with a new storage version added to
 * storedVersions
 * @validation kube's CRD validation: name = plural.group; group, scope, names, versions (one
 * storage version, DNS-1035 names), a structural schema per version with valid, pruned defaults
 * and CEL rules that compile, subresources, printer columns, selectable fields, conversion,
 * storedVersions, API approval of protected groups
 * @update the same checks; group and names.plural immutable, scope and names.kind too once
 * Established; a version still in storedVersions cannot be removed; an update needs a
 * resourceVersion
 * @delete deletion through the cleanup finalizer (`customresourcecleanup.apiextensions.k8s.io`)
 * with a Terminating condition
 */
import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import { validateNames } from "../apiextensions/crd-validation/names-validation.js";
import { validateCustomResourceDefinition } from "../apiextensions/crd-validation/validate-crd.js";
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

/** The name of the version marked as storage version, if any. */
function storageVersionOf(obj: JsonObject): string | undefined {
  const versions = objectAt(obj, "spec")["versions"];
  if (!Array.isArray(versions)) return undefined;
  for (const v of versions) {
    if (isJsonObject(v) && v["storage"] === true && typeof v["name"] === "string") return v["name"];
  }
  return undefined;
}

/** kube's PrepareForCreate: an empty status holding the (first) storage version. */
function initialStatus(obj: JsonObject): JsonObject {
  const storage = storageVersionOf(obj);
  return {
    ...obj,
    status: {
      conditions: [],
      acceptedNames: { plural: "", kind: "" },
      storedVersions: storage === undefined ? [] : [storage],
    },
  };
}

/** kube's PrepareForUpdate: the stored status, with the (new) storage version recorded. */
function keepStatus(next: JsonObject, old: JsonObject): JsonObject {
  const status = objectAt(old, "status");
  const stored = Array.isArray(status["storedVersions"]) ? status["storedVersions"] : [];
  const storage = storageVersionOf(next);
  const storedVersions =
    storage === undefined || stored.includes(storage) ? stored : [...stored, storage];
  return { ...next, status: { ...status, storedVersions } };
}

/** `SetDefaults_CustomResourceDefinitionSpec` and `SetDefaults_ServiceReference` (v1). */
function defaultSpec(obj: JsonObject): JsonObject {
  const spec = obj["spec"];
  if (!isJsonObject(spec)) return obj;
  const names = objectAt(spec, "names");
  const kind = typeof names["kind"] === "string" ? names["kind"] : "";
  const defaultedNames: JsonObject = { ...names };
  if (typeof names["singular"] !== "string" || names["singular"] === "") {
    defaultedNames["singular"] = kind.toLowerCase();
  }
  if ((typeof names["listKind"] !== "string" || names["listKind"] === "") && kind !== "") {
    defaultedNames["listKind"] = `${kind}List`;
  }
  const out: JsonObject = { ...spec, names: defaultedNames };
  out["conversion"] = defaultConversion(spec["conversion"]);
  return { ...obj, spec: out };
}

/** A missing conversion is strategy None; a conversion service's port defaults to 443. */
function defaultConversion(conversion: JsonValue | undefined): JsonValue {
  if (conversion === undefined || conversion === null) return { strategy: "None" };
  if (!isJsonObject(conversion)) return conversion;
  const webhook = conversion["webhook"];
  const clientConfig = isJsonObject(webhook) ? webhook["clientConfig"] : undefined;
  const service = isJsonObject(clientConfig) ? clientConfig["service"] : undefined;
  if (!isJsonObject(webhook) || !isJsonObject(clientConfig) || !isJsonObject(service)) {
    return conversion;
  }
  if (service["port"] !== undefined && service["port"] !== null) return conversion;
  return {
    ...conversion,
    webhook: { ...webhook, clientConfig: { ...clientConfig, service: { ...service, port: 443 } } },
  };
}

/** The CustomResourceDefinition strategy. */
export const customResourceDefinitionStrategy: KindStrategy = {
  policy: { tracksGeneration: true, allowUnconditionalUpdate: false, deleteReturnsObject: true },
  prepareForCreate: initialStatus,
  prepareForUpdate: keepStatus,
  applyDefaults: defaultSpec,
  validateCreate: (obj) => validateCustomResourceDefinition(obj),
  validateUpdate: (next, old) => validateCustomResourceDefinition(next, old),
  status: {
    // kube's ValidateUpdateCustomResourceDefinitionStatus: the accepted names.
    validateUpdate: (next) =>
      validateNames(objectAt(objectAt(next, "status"), "acceptedNames"), "status.acceptedNames"),
  },
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
