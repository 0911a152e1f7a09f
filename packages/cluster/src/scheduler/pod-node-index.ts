import type { Pod } from "kubernetes-types/core/v1.js";
import type { SharedIndexInformer } from "kubekit";

/**
 * The name of the pod cache index by `spec.nodeName` (`""` for pods not bound yet), as
 * kube-scheduler's and the kubelet's caches index pods by node
 * (`pkg/scheduler/backend/cache/cache.go` keeps pods per node).
 */
export const POD_NODE_NAME_INDEX = "kubekit.dev/spec.nodeName";

/**
 * Adds the {@link POD_NODE_NAME_INDEX} index to a pod informer unless it has it already, so
 * several components may call it on the shared informer. Allowed while the informer runs.
 */
export function ensurePodNodeNameIndex(informer: SharedIndexInformer<Pod>): void {
  if (informer.indexer.getIndexers()[POD_NODE_NAME_INDEX] !== undefined) return;
  informer.addIndexers({ [POD_NODE_NAME_INDEX]: (pod: Pod) => [pod.spec?.nodeName ?? ""] });
}

/**
 * The cached pods bound to `nodeName` (`""`: the pods no node has yet). The objects are the
 * cache's: never mutate them.
 *
 * @throws {IndexerError} when {@link ensurePodNodeNameIndex} was not called on the informer.
 */
export function podsOnNode(informer: SharedIndexInformer<Pod>, nodeName: string): Pod[] {
  return informer.indexer.byIndex(POD_NODE_NAME_INDEX, nodeName);
}
