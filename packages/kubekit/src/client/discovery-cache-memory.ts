/**
 * `MemoryCachedDiscovery`: discovery held in memory after one full round (client-go's
 * `discovery/cached/memory`).
 */
import type { APIGroupList } from "kubernetes-types/meta/v1.js";
import { StatusError } from "../core/status.js";
import { RequestTimeoutError, TransportError } from "../rest/request-errors.js";
import { GroupDiscoveryFailedError } from "./discovery-errors.js";
import {
  DEFAULT_DISCOVERY_CONCURRENCY,
  DiscoveryQueries,
  queryGroupsAndResources,
} from "./discovery-queries.js";
import type {
  CachedDiscoveryInterface,
  DiscoveredResourceList,
  DiscoverySource,
  GroupsAndMaybeResources,
  GroupsAndResources,
  ServerVersionInfo,
} from "./discovery-types.js";
import { SingleFlight } from "./single-flight.js";

/** Options of a {@link MemoryCachedDiscovery}. */
export interface MemoryCachedDiscoveryOptions {
  /** At most this many per-group-version requests at once when filling (default 16). */
  readonly concurrency?: number;
}

/** One full discovery round: the groups and, per group version, its list or its error. */
interface CacheState {
  readonly groups: APIGroupList;
  readonly entries: Map<string, DiscoveredResourceList | Error>;
}

/**
 * Whether a failure may go away by asking again (client-go's `isTransientError`): a 5xx or
 * 429 answer, no response at all, or a timeout.
 */
function isTransient(err: Error): boolean {
  if (err instanceof StatusError) return err.code >= 500 || err.code === 429;
  return err instanceof TransportError || err instanceof RequestTimeoutError;
}

/**
 * Discovery cached in memory. The first call (or the first after {@link invalidate}) runs one
 * full discovery round through the delegate: the group list and every group version's
 * resources (two requests with aggregated discovery); later calls answer from memory.
 *
 * - Concurrent first calls share one round; each caller's signal only ends its own wait.
 * - A group version that failed stays failed (every call reports it through
 *   {@link GroupDiscoveryFailedError}) until {@link invalidate}, except transient failures
 *   (5xx, 429, no response, timeout), which are asked again whenever that group version is
 *   needed, as in client-go (so the call that fills the cache asks such a group version twice).
 * - `serverResourcesForGroupVersion` for a group version the cached groups do not list asks
 *   the delegate, without caching.
 * - `serverVersion` is never cached.
 * - {@link fresh} is true once a round completed since the last invalidation: the cache then
 *   only holds data it fetched itself (client-go's semantics; it says nothing about age).
 *
 * Returned lists and groups are shared with the cache: treat them as read-only.
 */
export class MemoryCachedDiscovery
  extends DiscoveryQueries
  implements CachedDiscoveryInterface, DiscoverySource
{
  readonly #delegate: DiscoverySource;
  protected readonly queryConcurrency: number;
  #state: CacheState | undefined;
  #flight = new SingleFlight<CacheState>();
  #generation = 0;

  /** @throws {RangeError} for a `concurrency` below 1. */
  constructor(delegate: DiscoverySource, options: MemoryCachedDiscoveryOptions = {}) {
    super();
    const concurrency = options.concurrency ?? DEFAULT_DISCOVERY_CONCURRENCY;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new RangeError(`concurrency must be an integer >= 1, got ${concurrency}`);
    }
    this.#delegate = delegate;
    this.queryConcurrency = concurrency;
  }

  /** The delegate's server URL. */
  get host(): string {
    return this.#delegate.host;
  }

  /** Whether a full round completed since construction or the last {@link invalidate}. */
  fresh(): boolean {
    return this.#state !== undefined;
  }

  /**
   * Drops everything cached (and invalidates a caching delegate). A round in progress is
   * detached: its callers still get its result, but it is not stored.
   */
  invalidate(): void {
    this.#state = undefined;
    this.#generation++;
    this.#flight.forget();
    this.#delegate.invalidate?.();
  }

  /** `GET /version` through the delegate (not cached). */
  serverVersion(signal?: AbortSignal): Promise<ServerVersionInfo> {
    return this.#delegate.serverVersion(signal);
  }

  /**
   * The cached groups with every cached list; failures that are not transient are reported,
   * transient ones are left out of both maps (so the queries ask for them again).
   */
  async groupsAndMaybeResources(signal?: AbortSignal): Promise<GroupsAndMaybeResources> {
    const state = await this.#load(signal);
    const resources = new Map<string, DiscoveredResourceList>();
    const failures = new Map<string, Error>();
    for (const [gv, entry] of state.entries) {
      if (!(entry instanceof Error)) resources.set(gv, entry);
      else if (!isTransient(entry)) failures.set(gv, entry);
    }
    return { groups: state.groups, resources, failures };
  }

  /** The cached groups. */
  async serverGroups(signal?: AbortSignal): Promise<APIGroupList> {
    return (await this.#load(signal)).groups;
  }

  /**
   * The cached list of a group version; a cached transient failure is asked again (and the
   * outcome cached); a cached permanent failure is thrown again.
   */
  async serverResourcesForGroupVersion(
    groupVersion: string,
    signal?: AbortSignal,
  ): Promise<DiscoveredResourceList> {
    const state = await this.#load(signal);
    const entry = state.entries.get(groupVersion);
    if (entry === undefined) {
      return this.#delegate.serverResourcesForGroupVersion(groupVersion, signal);
    }
    if (!(entry instanceof Error)) return entry;
    if (!isTransient(entry)) throw entry;
    try {
      const list = await this.#delegate.serverResourcesForGroupVersion(groupVersion, signal);
      state.entries.set(groupVersion, list);
      return list;
    } catch (err) {
      signal?.throwIfAborted();
      if (err instanceof Error) state.entries.set(groupVersion, err);
      throw err;
    }
  }

  async #load(signal: AbortSignal | undefined): Promise<CacheState> {
    if (this.#state !== undefined) return this.#state;
    const generation = this.#generation;
    return this.#flight.run(async (roundSignal) => {
      const state = await this.#round(roundSignal);
      if (generation === this.#generation) this.#state = state;
      return state;
    }, signal);
  }

  async #round(signal: AbortSignal): Promise<CacheState> {
    let groups: GroupsAndResources;
    const entries = new Map<string, DiscoveredResourceList | Error>();
    try {
      groups = await queryGroupsAndResources(this.#delegate, this.queryConcurrency, signal);
    } catch (err) {
      if (!(err instanceof GroupDiscoveryFailedError)) throw err;
      groups = err;
      for (const [gv, failure] of err.failures) entries.set(gv, failure);
    }
    for (const list of groups.resources) entries.set(list.groupVersion, list);
    return {
      groups: { kind: "APIGroupList", apiVersion: "v1", groups: [...groups.groups] },
      entries,
    };
  }
}
