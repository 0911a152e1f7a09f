/**
 * The typed model of API discovery (client-go's `discovery` package): what the server serves,
 * group by group and resource by resource, in one shape whether the server answered with
 * aggregated discovery (`apidiscovery.k8s.io`) or the legacy per-group-version documents.
 */
import type { APIGroup, APIGroupList } from "kubernetes-types/meta/v1.js";
import type { Info } from "kubernetes-types/version.js";

export type { APIGroup, APIGroupList, GroupVersionForDiscovery } from "kubernetes-types/meta/v1.js";

/** The answer of `GET /version` (`version.Info`): every field is a string, `""` when absent. */
export type ServerVersionInfo = Info;

/**
 * A subresource of a {@link DiscoveredResource}, e.g. `status` or `scale`. `group`/`version`/
 * `kind` name what the subresource returns (for `deployments/scale`: autoscaling/v1 `Scale`);
 * they are always filled in, also where the server left them implicit.
 */
export interface DiscoveredSubresource {
  /** The subresource name alone, without the parent: `status`, `scale`, `log`. */
  readonly name: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly verbs: readonly string[];
}

/**
 * One resource served in a group version (an `APIResource` of the legacy format, or an
 * `APIResourceDiscovery` of the aggregated one), with its subresources nested under it.
 *
 * `group`/`version`/`kind` are those of the objects the resource returns; they are always
 * filled in (the formats leave them out, or send `""`, when they equal the containing group
 * version). Both formats convert to the same value, except that only the legacy format carries
 * `storageVersionHash`, and legacy servers may leave `singularName` empty.
 */
export interface DiscoveredResource {
  /** The plural resource name, e.g. `deployments`. */
  readonly name: string;
  /** The singular name, e.g. `deployment`; `""` when the server did not send one. */
  readonly singularName: string;
  /** Whether objects live in namespaces (scope `Namespaced`) rather than at the cluster level. */
  readonly namespaced: boolean;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly verbs: readonly string[];
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** The subresources, in the order the server listed them. */
  readonly subresources: readonly DiscoveredSubresource[];
  /** The storage version hash (legacy discovery only; compare for equality only). */
  readonly storageVersionHash?: string;
}

/** The resources of one group version (an `APIResourceList`). */
export interface DiscoveredResourceList {
  /** `v1` for the core group, `group/version` otherwise. */
  readonly groupVersion: string;
  readonly group: string;
  readonly version: string;
  /** The main resources in the server's order; subresources are nested in them. */
  readonly resources: readonly DiscoveredResource[];
}

/**
 * Groups and resources as one discovery round returns them.
 *
 * - `groups`: every served group with at least one usable version, the core group (name `""`)
 *   first; versions in preference order (the first is `preferredVersion`).
 * - `resources`: per group version, the lists that came with the answer. Aggregated discovery
 *   answers with all of them; legacy discovery with none (each group version is fetched on its
 *   own); a cache may hold some.
 * - `failures`: group versions whose resources are known to be unavailable (a stale group
 *   version in aggregated discovery). They are left out of `groups[].versions`.
 */
export interface GroupsAndMaybeResources {
  readonly groups: APIGroupList;
  readonly resources: ReadonlyMap<string, DiscoveredResourceList>;
  readonly failures: ReadonlyMap<string, Error>;
}

/** Every group and the resources of each of its versions (`serverGroupsAndResources`). */
export interface GroupsAndResources {
  readonly groups: readonly APIGroup[];
  /** One list per group version, in group order then version preference order. */
  readonly resources: readonly DiscoveredResourceList[];
}

/**
 * The primitive operations discovery is built from; {@link DiscoveryClient} implements them
 * against the server, and the caches implement them (and take a source to delegate to).
 */
export interface DiscoverySource {
  /** The server URL (`RestConfig.host`) the documents describe; caches are keyed by it. */
  readonly host: string;
  /** `GET /version`. */
  serverVersion(signal?: AbortSignal): Promise<ServerVersionInfo>;
  /** The group list and whatever resources came with it (see {@link GroupsAndMaybeResources}). */
  groupsAndMaybeResources(signal?: AbortSignal): Promise<GroupsAndMaybeResources>;
  /** The resources of one group version (`v1` or `group/version`). */
  serverResourcesForGroupVersion(
    groupVersion: string,
    signal?: AbortSignal,
  ): Promise<DiscoveredResourceList>;
  /** Present on caching sources: drop what is cached (see {@link CachedDiscoveryInterface}). */
  invalidate?(): void;
}

/**
 * What API discovery answers (client-go's `DiscoveryInterface`). Every method takes an
 * optional AbortSignal; aborting rejects the call with `signal.reason`.
 *
 * Methods that read several group versions throw {@link GroupDiscoveryFailedError} when some of
 * them failed; the error carries the per-group-version errors and everything that did load.
 */
export interface DiscoveryInterface {
  /** `GET /version`. */
  serverVersion(signal?: AbortSignal): Promise<ServerVersionInfo>;
  /** Every group, the core group first (name `""`, version `v1`), as `kubectl api-versions` sees them. */
  serverGroups(signal?: AbortSignal): Promise<APIGroupList>;
  /** The resources of one group version, `v1` or `group/version`. */
  serverResourcesForGroupVersion(
    groupVersion: string,
    signal?: AbortSignal,
  ): Promise<DiscoveredResourceList>;
  /** Every group and the resources of every version of it. */
  serverGroupsAndResources(signal?: AbortSignal): Promise<GroupsAndResources>;
  /**
   * For each resource, its entry in the most preferred version of its group that serves it
   * (as `kubectl api-resources` lists them). Lists are in group order, then version preference
   * order; group versions that contribute nothing are left out.
   */
  serverPreferredResources(signal?: AbortSignal): Promise<DiscoveredResourceList[]>;
  /** {@link serverPreferredResources} restricted to namespaced resources. */
  serverPreferredNamespacedResources(signal?: AbortSignal): Promise<DiscoveredResourceList[]>;
}

/** Discovery answered from a cache (client-go's `CachedDiscoveryInterface`). */
export interface CachedDiscoveryInterface extends DiscoveryInterface {
  /**
   * Whether what the cache answered since the last {@link invalidate} came from the server
   * during this cache's lifetime (false once it answered from older data). A consumer that
   * misses something in fresh data need not refresh.
   */
  fresh(): boolean;
  /** Forgets the cached documents: the next call asks the server again. */
  invalidate(): void;
}
