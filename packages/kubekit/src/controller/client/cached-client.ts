/**
 * The Manager's cache-backed client (controller-runtime's default client, `mgr.GetClient()`):
 * reads from the Manager's informers, writes to the API server.
 */
import type { LazyObject } from "../../cache/lazy-object.js";
import type { SharedIndexInformer } from "../../cache/shared-index-informer.js";
import type { KubeObject, ObjectWithMetadata } from "../../client/kube-object.js";
import { ResourceClient } from "../../client/resource-client.js";
import type { ResourceInfo } from "../../core/resource-table.js";
import { gvrKey } from "../../informers/gvr-key.js";
import type { RESTClient } from "../../rest/rest-client.js";
import { CachedResourceClient } from "./cached-resource-client.js";
import type { ReadPolicy } from "./cached-resource-client.js";
import type { FieldExtractor, InformerCache } from "./informer-cache.js";
import type {
  AnyKindReference,
  InformerAccessor,
  KindReference,
  LazyKind,
  ResolvedKind,
  ResourceKind,
} from "./kind-reference.js";
import { resolveKind } from "./kind-reference.js";

/** Options of the Manager's cache-backed client (`ManagerOptions.client`). */
export interface CachedClientOptions {
  /**
   * Kinds always read from the API server, never cached (controller-runtime's
   * `client.Options.Cache.DisableFor`): e.g. Secrets a controller reads once, that should not
   * be held in memory. Matched by group, version and resource, whichever way they are named.
   */
  readonly uncached?: readonly AnyKindReference[];
  /**
   * Whether a read of a kind nothing watches yet (no controller watches it and nothing read
   * it from the cache before) creates and starts its informer (default `true`,
   * controller-runtime's). With `false`, such reads go to the API server, and only the kinds
   * the controllers watch are cached.
   */
  readonly cacheUnwatched?: boolean;
}

/**
 * Reads from the Manager's informers, writes to the API server (controller-runtime's default
 * client): a reconciler never wires a lister by hand. Get it from `mgr.client`.
 *
 * - {@link resource} gives the typed client of one kind in one namespace
 *   (`client.resource((i) => i.appsV1.deployments(), "default")`), or of a custom resource
 *   as unstructured objects (`client.resource({ group, version, resource, kind })`).
 * - The first read of a kind creates its informer in the Manager's cache, starts it (when
 *   the manager runs) and waits for it to sync; later reads are map lookups. Reads before
 *   the manager started reject with `CacheReadError` `NotStarted`.
 * - Objects read from the cache are shared with every reader and controller: never mutate
 *   them; copy first (`createOrUpdate` and `createOrPatch` do).
 * - A kind named with `lazyKind(kind)` has a lazy informer (metadata-first: `LazyObject`s);
 *   reads of it still return `T`, parsing only the objects returned (a `get` parses one
 *   object, a `list` with a selector the matching ones). A read of a kind's plain name is
 *   served by its lazy informer when that is the only informer of the resource.
 * - Writes go through the manager's rate-limited `clientset` (20 qps, burst 30 by default).
 *
 * @example
 * ```ts
 * import { KubeConfig, Manager, signalHandler } from "kubekit";
 *
 * const mgr = new Manager({ kubeConfig: await KubeConfig.load() });
 * mgr.client.indexField((i) => i.coreV1.pods(), "spec.nodeName", (pod) =>
 *   pod.spec?.nodeName ? [pod.spec.nodeName] : [],
 * );
 * const stop = signalHandler();
 * const running = mgr.start(stop);
 * const deployments = mgr.client.resource((i) => i.appsV1.deployments(), "default");
 * const web = await deployments.get("web"); // from the cache (shared: do not mutate)
 * console.log(web.spec?.replicas);
 * await deployments.patch("web", "application/merge-patch+json", { spec: { replicas: 3 } });
 * const onNode = await mgr.client
 *   .resource((i) => i.coreV1.pods())
 *   .list({ fieldSelector: "spec.nodeName=node-1" }); // from the field index
 * console.log(onNode.items.length);
 * await running;
 * ```
 */
export class CachedClient {
  readonly #cache: InformerCache;
  readonly #restClient: () => RESTClient;
  readonly #uncached: ReadonlySet<string>;
  readonly #unwatched: ReadPolicy;

  /**
   * @param cache the Manager's informer cache.
   * @param restClient gives the client writes go through (and uncached reads).
   * @throws {TypeError} for an `uncached` kind that does not resolve.
   */
  constructor(
    cache: InformerCache,
    restClient: () => RESTClient,
    options: CachedClientOptions = {},
  ) {
    this.#cache = cache;
    this.#restClient = restClient;
    this.#uncached = new Set((options.uncached ?? []).map((kind) => gvrKey(resolveKind(kind))));
    this.#unwatched = options.cacheUnwatched === false ? "cache-if-watched" : "cache";
  }

  /**
   * The client of `kind` in `namespace` (`""`, the default: every namespace for reads, and
   * cluster-scoped kinds). A typed accessor types the objects; a resource reads
   * `KubeObject`s (or the type you name, asserted); a `lazyKind` reads the type of the kind
   * it wraps, from the lazy informer.
   *
   * @throws {TypeError} for a kind that does not resolve.
   */
  resource<T>(
    kind: InformerAccessor<T> | LazyKind<T>,
    namespace?: string,
  ): CachedResourceClient<T & ObjectWithMetadata>;
  resource<T extends ObjectWithMetadata = KubeObject>(
    kind: ResourceKind | ResourceInfo,
    namespace?: string,
  ): CachedResourceClient<T>;
  resource<T extends ObjectWithMetadata>(
    kind: KindReference<T> | LazyKind<T>,
    namespace = "",
  ): CachedResourceClient<T> {
    const resolved = resolveKind(kind);
    const server = (): ResourceClient<T> =>
      new ResourceClient<T>(this.#restClient(), {
        group: resolved.group,
        version: resolved.version,
        resource: resolved.resource,
        namespace,
        ...(resolved.kind !== undefined ? { kind: resolved.kind } : {}),
      });
    return new CachedResourceClient<T>(
      this.#cache,
      resolved,
      namespace,
      server,
      this.#policy(resolved),
    );
  }

  /**
   * The shared informer of `kind` in the Manager's cache (controller-runtime's
   * `cache.GetInformer`), created on first use and started when the manager runs: to add
   * handlers, or to `waitForCacheToObserve` a write. A `lazyKind`'s informer holds
   * `LazyObject<T>`s.
   *
   * @throws {TypeError} for a kind that does not resolve.
   */
  informer<T>(kind: LazyKind<T>): SharedIndexInformer<LazyObject<T>>;
  informer<T>(kind: InformerAccessor<T>): SharedIndexInformer<T>;
  informer<T = KubeObject>(kind: ResourceKind | ResourceInfo): SharedIndexInformer<T>;
  informer<T>(
    kind: KindReference<T> | LazyKind<T>,
  ): SharedIndexInformer<T> | SharedIndexInformer<LazyObject<T>> {
    return this.#cache.informer(kind as KindReference<T>);
  }

  /**
   * Indexes `field` of `kind`'s cached objects with `extract` (controller-runtime's
   * `FieldIndexer.IndexField`), so that `list({ fieldSelector: "field=value" })` answers
   * from the index, within a namespace or across them. Call it before the reads that use it
   * (typically before starting the manager).
   *
   * @throws {IndexerError} `IndexerConflict` when the field is indexed already.
   */
  indexField<T>(kind: LazyKind<T>, field: string, extract: FieldExtractor<LazyObject<T>>): void;
  indexField<T>(kind: InformerAccessor<T>, field: string, extract: FieldExtractor<T>): void;
  indexField<T = KubeObject>(
    kind: ResourceKind | ResourceInfo,
    field: string,
    extract: FieldExtractor<T>,
  ): void;
  indexField<T>(
    kind: KindReference<T> | LazyKind<T>,
    field: string,
    extract: FieldExtractor<T>,
  ): void {
    this.#cache.indexField(kind as KindReference<T>, field, extract);
  }

  #policy(kind: ResolvedKind): ReadPolicy {
    return this.#uncached.has(gvrKey(kind)) ? "server" : this.#unwatched;
  }
}
