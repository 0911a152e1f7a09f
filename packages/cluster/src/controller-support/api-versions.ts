/*
 * The apiVersions of the kinds the simulated controllers write and reference (owner
 * references, Event subjects, created objects), stated once for every controller. Literals,
 * not `formatApiVersion` results: kubernetes-types types each kind's `apiVersion` as its
 * literal (`"apps/v1"`), which a formatted `string` does not satisfy.
 */

/** apps/v1: Deployments, ReplicaSets, StatefulSets, DaemonSets, ControllerRevisions. */
export const APPS_V1 = "apps/v1";
/** batch/v1: Jobs and CronJobs. */
export const BATCH_V1 = "batch/v1";
/** discovery.k8s.io/v1: EndpointSlices. */
export const DISCOVERY_V1 = "discovery.k8s.io/v1";
