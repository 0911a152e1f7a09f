/**
 * Read-your-writes for controllers: waiting until an informer's cache has caught up with a
 * write the controller made (the stale-read problem of controller-runtime#1464).
 */

/** What {@link waitForCacheToObserve} needs of an informer (a `SharedIndexInformer` has it). */
export interface ResourceVersionObservable {
  waitForCacheResourceVersion(
    check: (resourceVersion: string) => boolean,
    signal?: AbortSignal,
  ): Promise<boolean>;
}

const INTEGER = /^[0-9]+$/;

/**
 * Whether a cache at resourceVersion `current` has observed `target`. resourceVersions are
 * opaque strings to clients: they are compared as integers only when both are decimal
 * integers (what kube-apiserver issues, and what Kubernetes' own consistency checks
 * compare), otherwise only equality counts.
 */
export function resourceVersionObserved(current: string, target: string): boolean {
  if (INTEGER.test(current) && INTEGER.test(target)) return BigInt(current) >= BigInt(target);
  return current === target;
}

/**
 * Resolves `true` once the informer's cache has processed `resourceVersion` (typically the
 * resourceVersion a create, update or patch returned), so that a lister read afterwards sees
 * that write or something newer; at once if it already has. Resolves `false` when `signal`
 * aborts or the informer stops first. Event-driven: re-checked after each change the
 * informer applies to its cache, never polled.
 *
 * The rule (see {@link resourceVersionObserved}): when the cache's resourceVersion and
 * `resourceVersion` are both decimal integers, the cache has observed it once its own is
 * numerically greater or equal; otherwise they are opaque and only an exact match counts.
 *
 * Caveats: a write to another resource or namespace than the informer watches is never
 * observed by it until some later event or bookmark of its own carries a greater
 * resourceVersion: pass a signal with a deadline, e.g.
 * `AbortSignal.any([signal, AbortSignal.timeout(5_000)])`. With opaque resourceVersions the
 * cache can move past the exact value, and the wait then lasts until `signal` aborts. Exact
 * only with the informer's default in-order queue (see
 * `SharedIndexInformer.waitForCacheResourceVersion`).
 *
 * @throws {TypeError} (as a rejection) when `resourceVersion` is empty.
 */
export async function waitForCacheToObserve(
  informer: ResourceVersionObservable,
  resourceVersion: string,
  signal: AbortSignal,
): Promise<boolean> {
  if (typeof resourceVersion !== "string" || resourceVersion === "") {
    throw new TypeError("waitForCacheToObserve: resourceVersion must be a non-empty string");
  }
  return informer.waitForCacheResourceVersion(
    (current) => resourceVersionObserved(current, resourceVersion),
    signal,
  );
}
