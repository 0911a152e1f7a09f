import { type ObjectWithMetadata, type SharedIndexInformer, controllerOf } from "kubekit";
import { namespaceOf } from "kubekit/apimachinery";

/**
 * The name of the cache index by the uid of an object's controller owner reference
 * (`controller: true`); objects without one are not in it. kube-controller-manager's
 * controllers keep the same index (`pkg/controller/controller_utils.go`
 * AddPodControllerUIDIndexer) so that a sync reads the objects of one owner, not a namespace.
 */
export const CONTROLLER_UID_INDEX = "kubekit.dev/controller-uid";

/**
 * The name of the cache index of orphans (objects without a controller owner reference) by
 * namespace: the candidates a controller may adopt (`pkg/controller/controller_ref_manager.go`
 * ClaimObject adopts only orphans).
 */
export const ORPHAN_NAMESPACE_INDEX = "kubekit.dev/orphans-by-namespace";

/**
 * Adds {@link CONTROLLER_UID_INDEX} and {@link ORPHAN_NAMESPACE_INDEX} to an informer unless
 * it has them already, so several components may call it on a shared informer. Allowed while
 * the informer runs.
 */
export function ensureControllerRefIndexes<T extends ObjectWithMetadata>(
  informer: SharedIndexInformer<T>,
): void {
  const existing = informer.indexer.getIndexers();
  const missing: Record<string, (obj: T) => string[]> = {};
  if (existing[CONTROLLER_UID_INDEX] === undefined) {
    missing[CONTROLLER_UID_INDEX] = (obj) => {
      const uid = controllerOf(obj)?.uid;
      return uid ? [uid] : [];
    };
  }
  if (existing[ORPHAN_NAMESPACE_INDEX] === undefined) {
    missing[ORPHAN_NAMESPACE_INDEX] = (obj) =>
      controllerOf(obj) === undefined ? [namespaceOf(obj)] : [];
  }
  if (Object.keys(missing).length > 0) informer.addIndexers(missing);
}

/**
 * The cached objects whose controller owner reference has `uid`. The objects are the
 * cache's: never mutate them.
 *
 * @throws {IndexerError} when {@link ensureControllerRefIndexes} was not called on the informer.
 */
export function controlledBy<T>(informer: SharedIndexInformer<T>, uid: string): T[] {
  return informer.indexer.byIndex(CONTROLLER_UID_INDEX, uid);
}

/**
 * The cached objects of `namespace` that have no controller owner reference. The objects
 * are the cache's: never mutate them.
 *
 * @throws {IndexerError} when {@link ensureControllerRefIndexes} was not called on the informer.
 */
export function orphansIn<T>(informer: SharedIndexInformer<T>, namespace: string): T[] {
  return informer.indexer.byIndex(ORPHAN_NAMESPACE_INDEX, namespace);
}
