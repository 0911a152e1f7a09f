import { createHash } from "node:crypto";

/**
 * The built-in resource table: every resource kube-apiserver serves out of the box that
 * kubekit knows about, with the facts discovery publishes for it (plural, singular, kind,
 * scope, verbs, short names, categories, subresources). The rows follow
 * the discovery documents (`/api`, `/apis`) of a real kube-apiserver.
 */

/** A subresource of a built-in resource, as discovery lists it (`pods/log`, `deployments/scale`). */
export interface SubresourceInfo {
  /** The subresource name: `status`, `scale`, `log`, `eviction`, `binding`, `token`, ... */
  readonly name: string;
  /** Verbs, sorted alphabetically as discovery sends them. */
  readonly verbs: readonly string[];
  /** Group of the object the subresource takes and returns (`autoscaling` for Scale, `policy` for Eviction); the parent's group otherwise. */
  readonly group: string;
  /** Version of that object (`v1` for Scale, Eviction and TokenRequest); the parent's version otherwise. */
  readonly version: string;
  /** Kind of that object: `Scale`, `Eviction`, `TokenRequest`, `PodExecOptions`, or the parent's kind (`status`, `log`). */
  readonly kind: string;
}

/** One built-in resource in one group version. */
export interface ResourceInfo {
  /** API group; `""` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Always `${kind}List`. */
  readonly listKind: string;
  /** Lowercase plural, the URL segment. */
  readonly plural: string;
  /** Lowercase singular (the lowercased kind for every built-in). */
  readonly singular: string;
  readonly namespaced: boolean;
  /** Verbs, sorted alphabetically as kube-apiserver discovery sends them. */
  readonly verbs: readonly string[];
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Subresources, sorted by name as discovery lists them. */
  readonly subresources: readonly SubresourceInfo[];
}

const STD = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const CREATE_ONLY = ["create"];
const GET_PATCH_UPDATE = ["get", "patch", "update"];
const PROXY_VERBS = ["create", "delete", "get", "patch", "update"];
const CONNECT_VERBS = ["create", "get"];

interface SubresourceSpec {
  readonly name: string;
  readonly verbs: readonly string[];
  /** `[group, version, kind]` when the subresource's object is not the parent's kind in the parent's GV. */
  readonly object?: readonly [string, string, string];
  /** Kind in the parent's group version, e.g. `PodExecOptions`. */
  readonly kind?: string;
}

interface ResourceSpec {
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs?: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly subresources?: readonly SubresourceSpec[];
}

const STATUS: SubresourceSpec = { name: "status", verbs: GET_PATCH_UPDATE };
const SCALE: SubresourceSpec = {
  name: "scale",
  verbs: GET_PATCH_UPDATE,
  object: ["autoscaling", "v1", "Scale"],
};
const ALL = ["all"];
const API_EXTENSIONS = ["api-extensions"];

function resources(group: string, version: string, specs: readonly ResourceSpec[]): ResourceInfo[] {
  return specs.map((spec) => ({
    group,
    version,
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    namespaced: spec.namespaced,
    verbs: [...(spec.verbs ?? STD)].sort(),
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    subresources: (spec.subresources ?? [])
      .map((sub) => ({
        name: sub.name,
        verbs: [...sub.verbs].sort(),
        group: sub.object ? sub.object[0] : group,
        version: sub.object ? sub.object[1] : version,
        kind: sub.object ? sub.object[2] : (sub.kind ?? spec.kind),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  }));
}

const horizontalPodAutoscalers: ResourceSpec = {
  plural: "horizontalpodautoscalers",
  kind: "HorizontalPodAutoscaler",
  namespaced: true,
  shortNames: ["hpa"],
  categories: ALL,
  subresources: [STATUS],
};

/**
 * Every built-in resource, grouped by group version in the order of
 * {@link builtinGroupVersions} (core `v1` first; within a group, versions in preference
 * order), and alphabetical by plural within a group version — the order of an
 * `APIResourceList`. A resource served in two versions (horizontalpodautoscalers in
 * autoscaling/v2 and autoscaling/v1) has one row per version. CustomResourceDefinitions
 * and APIServices are listed here although their types live outside k8s.io/api.
 */
export const builtinResources: readonly ResourceInfo[] = [
  ...resources("", "v1", [
    { plural: "bindings", kind: "Binding", namespaced: true, verbs: CREATE_ONLY },
    {
      plural: "componentstatuses",
      kind: "ComponentStatus",
      namespaced: false,
      verbs: ["get", "list"],
      shortNames: ["cs"],
    },
    { plural: "configmaps", kind: "ConfigMap", namespaced: true, shortNames: ["cm"] },
    { plural: "endpoints", kind: "Endpoints", namespaced: true, shortNames: ["ep"] },
    { plural: "events", kind: "Event", namespaced: true, shortNames: ["ev"] },
    { plural: "limitranges", kind: "LimitRange", namespaced: true, shortNames: ["limits"] },
    {
      plural: "namespaces",
      kind: "Namespace",
      namespaced: false,
      verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      shortNames: ["ns"],
      subresources: [{ name: "finalize", verbs: ["update"] }, STATUS],
    },
    {
      plural: "nodes",
      kind: "Node",
      namespaced: false,
      shortNames: ["no"],
      subresources: [{ name: "proxy", verbs: PROXY_VERBS, kind: "NodeProxyOptions" }, STATUS],
    },
    {
      plural: "persistentvolumeclaims",
      kind: "PersistentVolumeClaim",
      namespaced: true,
      shortNames: ["pvc"],
      subresources: [STATUS],
    },
    {
      plural: "persistentvolumes",
      kind: "PersistentVolume",
      namespaced: false,
      shortNames: ["pv"],
      subresources: [STATUS],
    },
    {
      plural: "pods",
      kind: "Pod",
      namespaced: true,
      shortNames: ["po"],
      categories: ALL,
      subresources: [
        { name: "attach", verbs: CONNECT_VERBS, kind: "PodAttachOptions" },
        { name: "binding", verbs: CREATE_ONLY, kind: "Binding" },
        { name: "ephemeralcontainers", verbs: GET_PATCH_UPDATE },
        { name: "eviction", verbs: CREATE_ONLY, object: ["policy", "v1", "Eviction"] },
        { name: "exec", verbs: CONNECT_VERBS, kind: "PodExecOptions" },
        { name: "log", verbs: ["get"] },
        { name: "portforward", verbs: CONNECT_VERBS, kind: "PodPortForwardOptions" },
        { name: "proxy", verbs: PROXY_VERBS, kind: "PodProxyOptions" },
        { name: "resize", verbs: GET_PATCH_UPDATE },
        STATUS,
      ],
    },
    { plural: "podtemplates", kind: "PodTemplate", namespaced: true },
    {
      plural: "replicationcontrollers",
      kind: "ReplicationController",
      namespaced: true,
      shortNames: ["rc"],
      categories: ALL,
      subresources: [SCALE, STATUS],
    },
    {
      plural: "resourcequotas",
      kind: "ResourceQuota",
      namespaced: true,
      shortNames: ["quota"],
      subresources: [STATUS],
    },
    { plural: "secrets", kind: "Secret", namespaced: true },
    {
      plural: "serviceaccounts",
      kind: "ServiceAccount",
      namespaced: true,
      shortNames: ["sa"],
      subresources: [
        {
          name: "token",
          verbs: CREATE_ONLY,
          object: ["authentication.k8s.io", "v1", "TokenRequest"],
        },
      ],
    },
    {
      plural: "services",
      kind: "Service",
      namespaced: true,
      shortNames: ["svc"],
      categories: ALL,
      subresources: [{ name: "proxy", verbs: PROXY_VERBS, kind: "ServiceProxyOptions" }, STATUS],
    },
  ]),
  ...resources("apiregistration.k8s.io", "v1", [
    {
      plural: "apiservices",
      kind: "APIService",
      namespaced: false,
      categories: API_EXTENSIONS,
      subresources: [STATUS],
    },
  ]),
  ...resources("apps", "v1", [
    { plural: "controllerrevisions", kind: "ControllerRevision", namespaced: true },
    {
      plural: "daemonsets",
      kind: "DaemonSet",
      namespaced: true,
      shortNames: ["ds"],
      categories: ALL,
      subresources: [STATUS],
    },
    {
      plural: "deployments",
      kind: "Deployment",
      namespaced: true,
      shortNames: ["deploy"],
      categories: ALL,
      subresources: [SCALE, STATUS],
    },
    {
      plural: "replicasets",
      kind: "ReplicaSet",
      namespaced: true,
      shortNames: ["rs"],
      categories: ALL,
      subresources: [SCALE, STATUS],
    },
    {
      plural: "statefulsets",
      kind: "StatefulSet",
      namespaced: true,
      shortNames: ["sts"],
      categories: ALL,
      subresources: [SCALE, STATUS],
    },
  ]),
  ...resources("events.k8s.io", "v1", [
    { plural: "events", kind: "Event", namespaced: true, shortNames: ["ev"] },
  ]),
  ...resources("authentication.k8s.io", "v1", [
    {
      plural: "selfsubjectreviews",
      kind: "SelfSubjectReview",
      namespaced: false,
      verbs: CREATE_ONLY,
    },
    { plural: "tokenreviews", kind: "TokenReview", namespaced: false, verbs: CREATE_ONLY },
  ]),
  ...resources("authorization.k8s.io", "v1", [
    {
      plural: "localsubjectaccessreviews",
      kind: "LocalSubjectAccessReview",
      namespaced: true,
      verbs: CREATE_ONLY,
    },
    {
      plural: "selfsubjectaccessreviews",
      kind: "SelfSubjectAccessReview",
      namespaced: false,
      verbs: CREATE_ONLY,
    },
    {
      plural: "selfsubjectrulesreviews",
      kind: "SelfSubjectRulesReview",
      namespaced: false,
      verbs: CREATE_ONLY,
    },
    {
      plural: "subjectaccessreviews",
      kind: "SubjectAccessReview",
      namespaced: false,
      verbs: CREATE_ONLY,
    },
  ]),
  ...resources("autoscaling", "v2", [horizontalPodAutoscalers]),
  ...resources("autoscaling", "v1", [horizontalPodAutoscalers]),
  ...resources("batch", "v1", [
    {
      plural: "cronjobs",
      kind: "CronJob",
      namespaced: true,
      shortNames: ["cj"],
      categories: ALL,
      subresources: [STATUS],
    },
    { plural: "jobs", kind: "Job", namespaced: true, categories: ALL, subresources: [STATUS] },
  ]),
  ...resources("certificates.k8s.io", "v1", [
    {
      plural: "certificatesigningrequests",
      kind: "CertificateSigningRequest",
      namespaced: false,
      shortNames: ["csr"],
      subresources: [{ name: "approval", verbs: GET_PATCH_UPDATE }, STATUS],
    },
  ]),
  ...resources("networking.k8s.io", "v1", [
    { plural: "ingressclasses", kind: "IngressClass", namespaced: false },
    {
      plural: "ingresses",
      kind: "Ingress",
      namespaced: true,
      shortNames: ["ing"],
      subresources: [STATUS],
    },
    { plural: "ipaddresses", kind: "IPAddress", namespaced: false, shortNames: ["ip"] },
    { plural: "networkpolicies", kind: "NetworkPolicy", namespaced: true, shortNames: ["netpol"] },
    { plural: "servicecidrs", kind: "ServiceCIDR", namespaced: false, subresources: [STATUS] },
  ]),
  ...resources("policy", "v1", [
    {
      plural: "poddisruptionbudgets",
      kind: "PodDisruptionBudget",
      namespaced: true,
      shortNames: ["pdb"],
      subresources: [STATUS],
    },
  ]),
  ...resources("rbac.authorization.k8s.io", "v1", [
    { plural: "clusterrolebindings", kind: "ClusterRoleBinding", namespaced: false },
    { plural: "clusterroles", kind: "ClusterRole", namespaced: false },
    { plural: "rolebindings", kind: "RoleBinding", namespaced: true },
    { plural: "roles", kind: "Role", namespaced: true },
  ]),
  ...resources("storage.k8s.io", "v1", [
    { plural: "csidrivers", kind: "CSIDriver", namespaced: false },
    { plural: "csinodes", kind: "CSINode", namespaced: false },
    { plural: "csistoragecapacities", kind: "CSIStorageCapacity", namespaced: true },
    { plural: "storageclasses", kind: "StorageClass", namespaced: false, shortNames: ["sc"] },
    {
      plural: "volumeattachments",
      kind: "VolumeAttachment",
      namespaced: false,
      subresources: [STATUS],
    },
    {
      plural: "volumeattributesclasses",
      kind: "VolumeAttributesClass",
      namespaced: false,
      shortNames: ["vac"],
    },
  ]),
  ...resources("admissionregistration.k8s.io", "v1", [
    {
      plural: "mutatingwebhookconfigurations",
      kind: "MutatingWebhookConfiguration",
      namespaced: false,
      categories: API_EXTENSIONS,
    },
    {
      plural: "validatingadmissionpolicies",
      kind: "ValidatingAdmissionPolicy",
      namespaced: false,
      categories: API_EXTENSIONS,
      subresources: [STATUS],
    },
    {
      plural: "validatingadmissionpolicybindings",
      kind: "ValidatingAdmissionPolicyBinding",
      namespaced: false,
      categories: API_EXTENSIONS,
    },
    {
      plural: "validatingwebhookconfigurations",
      kind: "ValidatingWebhookConfiguration",
      namespaced: false,
      categories: API_EXTENSIONS,
    },
  ]),
  ...resources("apiextensions.k8s.io", "v1", [
    {
      plural: "customresourcedefinitions",
      kind: "CustomResourceDefinition",
      namespaced: false,
      shortNames: ["crd", "crds"],
      categories: API_EXTENSIONS,
      subresources: [STATUS],
    },
  ]),
  ...resources("scheduling.k8s.io", "v1", [
    { plural: "priorityclasses", kind: "PriorityClass", namespaced: false, shortNames: ["pc"] },
  ]),
  ...resources("coordination.k8s.io", "v1", [
    { plural: "leases", kind: "Lease", namespaced: true },
  ]),
  ...resources("node.k8s.io", "v1", [
    { plural: "runtimeclasses", kind: "RuntimeClass", namespaced: false },
  ]),
  ...resources("discovery.k8s.io", "v1", [
    { plural: "endpointslices", kind: "EndpointSlice", namespaced: true },
  ]),
  ...resources("flowcontrol.apiserver.k8s.io", "v1", [
    { plural: "flowschemas", kind: "FlowSchema", namespaced: false, subresources: [STATUS] },
    {
      plural: "prioritylevelconfigurations",
      kind: "PriorityLevelConfiguration",
      namespaced: false,
      subresources: [STATUS],
    },
  ]),
];

function groupVersionsInTableOrder(): { group: string; versions: string[] }[] {
  const out: { group: string; versions: string[] }[] = [];
  for (const r of builtinResources) {
    if (r.group === "") continue;
    let entry = out.find((g) => g.group === r.group);
    if (!entry) {
      entry = { group: r.group, versions: [] };
      out.push(entry);
    }
    if (!entry.versions.includes(r.version)) entry.versions.push(r.version);
  }
  return out;
}

/**
 * The named groups with their served versions in preference order (first = preferred),
 * in the order kube-apiserver lists them in `/apis` (its APIService group priorities:
 * apiregistration.k8s.io, apps, events.k8s.io, authentication.k8s.io, ... flowcontrol).
 * The core group (`/api`, version `v1`) is not included.
 */
export const builtinGroupVersions: readonly {
  readonly group: string;
  readonly versions: readonly string[];
}[] = groupVersionsInTableOrder();

const byGvr = new Map<string, ResourceInfo>(
  builtinResources.map((r) => [`${r.group}/${r.version}/${r.plural}`, r]),
);

/**
 * The built-in resource with this group (`""` for core), version and plural, or `undefined`.
 * Matching is exact (case-sensitive); short names and kinds are not resolved here.
 */
export function findBuiltinResource(
  group: string,
  version: string,
  plural: string,
): ResourceInfo | undefined {
  return byGvr.get(`${group}/${version}/${plural}`);
}

/**
 * The discovery `storageVersionHash` of a resource: standard padded base64 of the first
 * 8 bytes of SHA-256 over `"{group}/{version}/{kind}"` (so `"/v1/Pod"` for the core group).
 * Pass the storage version. Clients may only compare these for equality.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  const digest = createHash("sha256").update(`${group}/${version}/${kind}`).digest();
  return digest.subarray(0, 8).toString("base64");
}
