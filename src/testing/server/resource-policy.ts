import type { JsonObject } from "../../core/json.js";
import type { ServedResource } from "./served-resource.js";

/**
 * Per-type rules of kube-apiserver's registry strategies that the embedded server reproduces
 * (`staging/src/k8s.io/apiserver/pkg/registry/rest/{create,update,delete}.go` and each kind's
 * `pkg/registry/<group>/<resource>/strategy.go`).
 */
export interface ResourcePolicy {
  /** `metadata.generation` is 1 on create and bumps when anything outside metadata/status changes. */
  readonly tracksGeneration: boolean;
  /** PUT on a missing object creates it (Lease, Endpoints, core Event). */
  readonly allowCreateOnUpdate: boolean;
  /** PUT without `metadata.resourceVersion` is an unconditional update (false: 422). */
  readonly allowUnconditionalUpdate: boolean;
  /** DELETE answers with the deleted object rather than a Success Status. */
  readonly deleteReturnsObject: boolean;
  /** The name rule applied to `metadata.name`. */
  readonly nameRule: "subdomain" | "label" | "dns1035" | "path-segment";
  /** Field selector fields beyond metadata.name/namespace, with how to read them from an object. */
  readonly selectableFields: Readonly<Record<string, (obj: JsonObject) => string>>;
}

function str(v: unknown): string {
  if (v === undefined || v === null) return "";
  return typeof v === "string" ? v : String(v);
}

function at(obj: JsonObject, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function fields(...paths: string[]): Record<string, (obj: JsonObject) => string> {
  return Object.fromEntries(paths.map((p) => [p, (o: JsonObject) => str(at(o, p))]));
}

const POD_FIELDS: Record<string, (obj: JsonObject) => string> = {
  ...fields(
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  ),
  "spec.host": (o) => str(at(o, "spec.nodeName")),
  "spec.hostNetwork": (o) => (at(o, "spec.hostNetwork") === true ? "true" : "false"),
  "status.podIPs": (o) => {
    const ips = at(o, "status.podIPs");
    return Array.isArray(ips) ? ips.map((ip) => str((ip as JsonObject)["ip"])).join(",") : "";
  },
};

const EVENT_FIELDS = fields(
  "involvedObject.kind",
  "involvedObject.namespace",
  "involvedObject.name",
  "involvedObject.uid",
  "involvedObject.apiVersion",
  "involvedObject.resourceVersion",
  "involvedObject.fieldPath",
  "reason",
  "reportingComponent",
  "source",
  "type",
);

/** Kinds whose strategy tracks generation (workloads and other spec/status types). */
const GENERATION_KINDS = new Set([
  "Deployment",
  "ReplicaSet",
  "StatefulSet",
  "DaemonSet",
  "Job",
  "CronJob",
  "ReplicationController",
  "HorizontalPodAutoscaler",
  "PodDisruptionBudget",
  "CustomResourceDefinition",
  "Ingress",
  "NetworkPolicy",
  "ValidatingAdmissionPolicy",
  "ServiceCIDR",
  "Pod",
]);

const CREATE_ON_UPDATE = new Set(["coordination.k8s.io/Lease", "/Endpoints", "/Event"]);
const NO_UNCONDITIONAL_UPDATE = new Set([
  "coordination.k8s.io/Lease",
  "apiextensions.k8s.io/CustomResourceDefinition",
]);
const RETURNS_OBJECT = new Set([
  "/Pod",
  "/ServiceAccount",
  "/Namespace",
  "/Service",
  "/PersistentVolume",
  "/PersistentVolumeClaim",
  "/Node",
  "storage.k8s.io/StorageClass",
  "apiextensions.k8s.io/CustomResourceDefinition",
]);
const PATH_SEGMENT_KINDS = new Set([
  "rbac.authorization.k8s.io/Role",
  "rbac.authorization.k8s.io/ClusterRole",
  "rbac.authorization.k8s.io/RoleBinding",
  "rbac.authorization.k8s.io/ClusterRoleBinding",
  "policy/PodDisruptionBudget",
]);

/**
 * The policy of a served resource; custom resources follow apiextensions-apiserver's rules
 * (`staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go`).
 */
export function policyFor(resource: ServedResource): ResourcePolicy {
  const gk = `${resource.group}/${resource.kind}`;
  if (resource.custom) {
    return {
      tracksGeneration: true,
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: false,
      deleteReturnsObject: false,
      nameRule: "subdomain",
      selectableFields: {},
    };
  }
  let selectableFields: Readonly<Record<string, (obj: JsonObject) => string>> = {};
  if (gk === "/Pod") selectableFields = POD_FIELDS;
  else if (gk === "/Event") selectableFields = EVENT_FIELDS;
  else if (gk === "/Node") selectableFields = fields("spec.unschedulable");
  else if (gk === "/Namespace") selectableFields = fields("status.phase");
  else if (gk === "/Secret") selectableFields = fields("type");
  else if (gk === "/Service") selectableFields = fields("spec.clusterIP", "spec.type");
  else if (gk === "/ReplicationController" || gk === "apps/ReplicaSet")
    selectableFields = fields("status.replicas");
  else if (gk === "batch/Job") selectableFields = fields("status.successful");
  else if (gk === "certificates.k8s.io/CertificateSigningRequest")
    selectableFields = fields("spec.signerName");
  return {
    tracksGeneration: GENERATION_KINDS.has(resource.kind),
    allowCreateOnUpdate: CREATE_ON_UPDATE.has(gk),
    allowUnconditionalUpdate: !NO_UNCONDITIONAL_UPDATE.has(gk),
    deleteReturnsObject: RETURNS_OBJECT.has(gk),
    nameRule:
      gk === "/Namespace"
        ? "label"
        : gk === "/Service"
          ? "dns1035"
          : PATH_SEGMENT_KINDS.has(gk)
            ? "path-segment"
            : "subdomain",
    selectableFields,
  };
}
