import { isNotFound } from "kubekit";

/**
 * The object `name` as `lister`'s cache has it now, or `undefined` when the cache does not
 * have it (deleted, or not yet seen): what a reconcile reads its key with, returning at once
 * on `undefined`. Errors other than NotFound propagate.
 */
export function cachedObject<T>(lister: { get(name: string): T }, name: string): T | undefined {
  try {
    return lister.get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
