import type { ResourceInfo } from "kubekit";

/** The group version metrics-server serves through the aggregator. */
export const METRICS_GROUP_VERSION = { group: "metrics.k8s.io", version: "v1beta1" } as const;

const READ_ONLY = ["get", "list"];

/**
 * The resources of `metrics.k8s.io/v1beta1` as metrics-server's discovery lists them
 * (`sigs.k8s.io/metrics-server/pkg/api`): `nodes` (NodeMetrics, cluster-scoped) and `pods`
 * (PodMetrics), read-only (`get`, `list`).
 */
export const METRICS_RESOURCES: readonly ResourceInfo[] = [
  { plural: "nodes", kind: "NodeMetrics", namespaced: false },
  { plural: "pods", kind: "PodMetrics", namespaced: true },
].map((r) => ({
  ...METRICS_GROUP_VERSION,
  kind: r.kind,
  listKind: `${r.kind}List`,
  plural: r.plural,
  singular: "",
  namespaced: r.namespaced,
  verbs: READ_ONLY,
  shortNames: [],
  categories: [],
  subresources: [],
}));
