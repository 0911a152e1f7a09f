/**
 * The Manager's cache-backed client (controller-runtime's default client) and the informer
 * cache behind it. Which piece to use when:
 *
 * - `mgr.client` ({@link CachedClient}): in a reconciler, `resource(kind, namespace)` gives a
 *   {@link CachedResourceClient} whose `get`/`list` read the manager's informers (started on
 *   first use and waited for) and whose writes go to the API server; `indexField` for
 *   `list` by field; `informer(kind)` for the shared informer itself.
 * - {@link KindReference}: how a kind is named, here and to the controller builder: a typed
 *   informer accessor (`(i) => i.appsV1.deployments()`) or a {@link ResourceKind}
 *   (`{ group, version, resource, kind }`, unstructured objects); {@link lazyKind} wraps
 *   either to cache the kind in a lazy (metadata-first) informer.
 * - {@link CacheReadError}: a read the cache cannot answer (not started, non-exact field
 *   selector, missing index).
 *
 * - {@link InformerCache}: the Manager's informers behind both (controller-runtime's
 *   `cache.Cache`); the Manager makes and runs its own.
 *
 * @packageDocumentation
 */
export { CachedClient, type CachedClientOptions } from "./cached-client.js";
export {
  CachedResourceClient,
  type CachedList,
  type CachedListOptions,
  type ReadPolicy,
} from "./cached-resource-client.js";
export {
  type AnyKindReference,
  type InformerAccessor,
  type KindReference,
  type LazyKind,
  type ResolvedKind,
  type ResourceKind,
  lazyKind,
} from "./kind-reference.js";
export { InformerCache, type FieldExtractor, type InformerCacheOptions } from "./informer-cache.js";
export { CacheReadError, type CacheReadErrorReason } from "./cache-read-error.js";
