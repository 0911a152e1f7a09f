import { type LabelSelector, controllerOf, objectKey, type ObjectWithMetadata } from "kubekit";
import { namespaceOf } from "kubekit/apimachinery";

/**
 * The keys (`namespace/name`) of the owners that may adopt `orphan` (kube's
 * `getPodReplicaSets`, `getPodDaemonSets`, `getPodStatefulSets`, `getPodJobs`,
 * `getDeploymentsForReplicaSet`): none when `orphan` has a controller, else those of
 * `candidates` (the owners of its namespace) whose selector matches its labels. A controller
 * maps an orphan's events to these keys so one of them adopts it.
 *
 * @param selectorOf - an owner's selector; `undefined` selects nothing.
 */
export function orphanAdopterKeys<O extends ObjectWithMetadata>(
  orphan: ObjectWithMetadata,
  candidates: (namespace: string) => readonly O[],
  selectorOf: (owner: NoInfer<O>) => LabelSelector | undefined,
): string[] {
  if (controllerOf(orphan) !== undefined) return [];
  const labels = orphan.metadata?.labels;
  return candidates(namespaceOf(orphan))
    .filter((owner) => selectorOf(owner)?.matches(labels) === true)
    .map((owner) => objectKey(owner));
}
