/**
 * `RESTMapper`: resource names and kinds resolved through discovery, refreshed once on a miss
 * (client-go's `DeferredDiscoveryRESTMapper` with kubectl's short-name and category expansion).
 */
import type {
  GroupKind,
  GroupResource,
  GroupVersionKind,
  GroupVersionResource,
} from "../core/gvk.js";
import { qualifiedResource } from "../core/gvk.js";
import type { Logger } from "../core/logger.js";
import { consoleLogger } from "../core/logger.js";
import { GroupDiscoveryFailedError } from "./discovery-errors.js";
import type {
  CachedDiscoveryInterface,
  DiscoveryInterface,
  GroupsAndResources,
} from "./discovery-types.js";
import { NoMatchError } from "./rest-mapper-errors.js";
import type { ResourceMatch } from "./rest-mapper-index.js";
import { RESTMapperIndex } from "./rest-mapper-index.js";
import type { PartialResource, RESTMapping } from "./rest-mapper-types.js";
import { SingleFlight } from "./single-flight.js";

/** Options of a {@link RESTMapper}. */
export interface RESTMapperOptions {
  /** Where partial discovery failures and ambiguous short names are reported (default: console). */
  readonly logger?: Logger;
}

/** The index of one discovery round and whether it can be trusted to be current. */
interface Snapshot {
  readonly index: RESTMapperIndex;
  /** Complete, and fetched from the server (not answered from an older cache) when loaded. */
  readonly fresh: boolean;
}

function isCached(
  discovery: DiscoveryInterface | CachedDiscoveryInterface,
): discovery is CachedDiscoveryInterface {
  const candidate = discovery as Partial<CachedDiscoveryInterface>;
  return typeof candidate.fresh === "function" && typeof candidate.invalidate === "function";
}

function checkPartial(partial: PartialResource): void {
  if (partial.resource === "") throw new TypeError("a resource must be present");
}

/**
 * Maps resource names to kinds and resources, and kinds to REST mappings, from discovery
 * (`serverGroupsAndResources`), loaded on first use and kept until a miss or {@link reset}.
 *
 * - Ranking: groups in discovery order (core first), the preferred version first, then the
 *   other versions in discovery order. The best-ranked match wins: `events` is the core
 *   group's. `resourceFor` accepts plural, singular (derived from the kind when discovery has
 *   none) or short name, case-insensitively; full names beat short names anywhere.
 * - A lookup that finds nothing refreshes once and tries again, unless the data it searched
 *   was loaded during the same call and fresh (fetched from the server, complete). Refreshing
 *   means {@link reset}: the discovery cache, if any, is invalidated and discovery is asked
 *   again. So a type created after the first lookup is found after one refresh, and a truly
 *   unknown type fails with {@link NoMatchError} after exactly one.
 * - Caveat: over a {@link CachedDiscoveryInterface}, data that cache reports as fresh is
 *   trusted: a miss in a memory cache filled by someone else, just loaded, does not refresh
 *   (client-go's rule); call {@link reset} when you know discovery changed.
 * - Partial discovery failures ({@link GroupDiscoveryFailedError}) are logged and what loaded is
 *   used; such a snapshot counts as not fresh.
 * - Concurrent calls share one discovery round; each call's signal only ends its own wait.
 */
export class RESTMapper {
  readonly #discovery: DiscoveryInterface | CachedDiscoveryInterface;
  readonly #logger: Logger;
  #snapshot: Snapshot | undefined;
  #flight = new SingleFlight<Snapshot>();
  #generation = 0;

  constructor(
    discovery: DiscoveryInterface | CachedDiscoveryInterface,
    options: RESTMapperOptions = {},
  ) {
    this.#discovery = discovery;
    this.#logger = options.logger ?? consoleLogger;
  }

  /**
   * The kind served by the best match of `partial`.
   *
   * @throws {TypeError} when `partial.resource` is empty.
   * @throws {NoMatchError} / {@link AmbiguousResourceError} as {@link resourceFor}.
   */
  async kindFor(partial: PartialResource, signal?: AbortSignal): Promise<GroupVersionKind> {
    checkPartial(partial);
    return this.#lookup(signal, (index) => this.#best(index, partial).kind);
  }

  /** The kinds of every match of `partial`, best first. @throws {NoMatchError} */
  async kindsFor(partial: PartialResource, signal?: AbortSignal): Promise<GroupVersionKind[]> {
    checkPartial(partial);
    return this.#lookup(signal, (index) => index.kindsFor(partial));
  }

  /**
   * The best match of `partial` (plural, singular or short name, optionally narrowed by group
   * and version). A short name that also names resources of lower-ranked groups logs kubectl's
   * warning.
   *
   * @throws {TypeError} when `partial.resource` is empty.
   * @throws {NoMatchError} when nothing matches, after one refresh (see the class).
   * @throws {AmbiguousResourceError} when the best-ranked group version has several matches.
   */
  async resourceFor(partial: PartialResource, signal?: AbortSignal): Promise<GroupVersionResource> {
    checkPartial(partial);
    return this.#lookup(signal, (index) => this.#best(index, partial).resource);
  }

  /** Every match of `partial`, best first. @throws {NoMatchError} */
  async resourcesFor(
    partial: PartialResource,
    signal?: AbortSignal,
  ): Promise<GroupVersionResource[]> {
    checkPartial(partial);
    return this.#lookup(signal, (index) => index.resourcesFor(partial));
  }

  /**
   * The REST mapping of a kind: with `versions`, the first of them that serves it; else its
   * preferred version. The kind may be given exactly or in lower case.
   *
   * @throws {NoMatchError} `no matches for kind "Widget" in group "example.com"` (after one
   *   refresh).
   */
  async restMapping(
    groupKind: GroupKind,
    versions?: readonly string[],
    signal?: AbortSignal,
  ): Promise<RESTMapping> {
    const [first] = await this.restMappings(groupKind, versions, signal);
    if (first === undefined) {
      throw new NoMatchError({ type: "kind", groupKind, versions: versions ?? [] });
    }
    return first;
  }

  /** Every REST mapping of a kind, best first (one with `versions`, see {@link restMapping}). */
  async restMappings(
    groupKind: GroupKind,
    versions?: readonly string[],
    signal?: AbortSignal,
  ): Promise<RESTMapping[]> {
    return this.#lookup(signal, (index) => index.restMappings(groupKind, versions));
  }

  /**
   * The group resources of a category (e.g. `all` for `kubectl get all`), best-ranked first;
   * `[]` for an unknown category (no refresh: a category is not required to exist).
   */
  async expandCategory(category: string, signal?: AbortSignal): Promise<GroupResource[]> {
    const { snapshot } = await this.#current(signal);
    return snapshot.index.expandCategory(category);
  }

  /** Forgets the loaded discovery and invalidates the discovery cache, if it is one. */
  reset(): void {
    this.#snapshot = undefined;
    this.#generation++;
    this.#flight.forget();
    if (isCached(this.#discovery)) this.#discovery.invalidate();
  }

  #best(index: RESTMapperIndex, partial: PartialResource): ResourceMatch {
    const match = index.resourceFor(partial);
    for (const other of match.shadowedShortNameMatches) {
      this.#logger.warn(
        `short name ${JSON.stringify(partial.resource)} could also match lower priority resource ${qualifiedResource(other)}`,
      );
    }
    return match;
  }

  async #lookup<T>(
    signal: AbortSignal | undefined,
    find: (index: RESTMapperIndex) => T,
  ): Promise<T> {
    const first = await this.#current(signal);
    try {
      return find(first.snapshot.index);
    } catch (err) {
      if (!(err instanceof NoMatchError) || (first.loadedNow && first.snapshot.fresh)) throw err;
      if (this.#snapshot === first.snapshot) this.reset();
      const second = await this.#current(signal);
      return find(second.snapshot.index);
    }
  }

  /** The current snapshot, loading one when there is none; `loadedNow` when this call waited for it. */
  async #current(
    signal: AbortSignal | undefined,
  ): Promise<{ snapshot: Snapshot; loadedNow: boolean }> {
    if (this.#snapshot !== undefined) return { snapshot: this.#snapshot, loadedNow: false };
    const generation = this.#generation;
    const snapshot = await this.#flight.run(async (loadSignal) => {
      const loaded = await this.#load(loadSignal);
      if (generation === this.#generation) this.#snapshot = loaded;
      return loaded;
    }, signal);
    return { snapshot, loadedNow: true };
  }

  async #load(signal: AbortSignal): Promise<Snapshot> {
    let discovered: GroupsAndResources;
    let complete = true;
    try {
      discovered = await this.#discovery.serverGroupsAndResources(signal);
    } catch (err) {
      if (!(err instanceof GroupDiscoveryFailedError)) throw err;
      this.#logger.warn(err.message);
      discovered = err;
      complete = false;
    }
    const fresh = complete && (!isCached(this.#discovery) || this.#discovery.fresh());
    return { index: RESTMapperIndex.fromDiscovery(discovered.groups, discovered.resources), fresh };
  }
}
