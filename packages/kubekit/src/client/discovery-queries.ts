/**
 * The discovery queries every implementation shares (client-go's `ServerGroupsAndResources`
 * and `ServerPreferredResources` helpers): built on a {@link DiscoverySource}'s primitives, they
 * fetch what the group list did not bring, in parallel with a bound, and collect per-group-
 * version failures into a {@link GroupDiscoveryFailedError}.
 */
import type { APIGroup } from "kubernetes-types/meta/v1.js";
import { GroupDiscoveryFailedError } from "./discovery-errors.js";
import type {
  DiscoveredResource,
  DiscoveredResourceList,
  DiscoverySource,
  GroupsAndMaybeResources,
  GroupsAndResources,
} from "./discovery-types.js";

/** Default bound on concurrent per-group-version requests of legacy discovery. */
export const DEFAULT_DISCOVERY_CONCURRENCY = 16;

/** The primitives the queries need. */
export type DiscoveryPrimitives = Pick<
  DiscoverySource,
  "groupsAndMaybeResources" | "serverResourcesForGroupVersion"
>;

/** Groups and resources with the failures kept apart (the queries throw them at the end). */
interface Collected {
  readonly groups: readonly APIGroup[];
  readonly lists: ReadonlyMap<string, DiscoveredResourceList>;
  readonly failures: ReadonlyMap<string, Error>;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Runs `task` on each item with at most `limit` running at once, rejecting with the first
 * rejection; once `signal` is aborted no further task starts.
 */
async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal | undefined,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      signal?.throwIfAborted();
      const index = next++;
      const item = items[index];
      if (index >= items.length || item === undefined) return;
      await task(item);
    }
  };
  const workers = Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker);
  await Promise.all(workers);
}

async function collect(
  source: DiscoveryPrimitives,
  concurrency: number,
  signal: AbortSignal | undefined,
): Promise<Collected> {
  const answer = await source.groupsAndMaybeResources(signal);
  const groups = answer.groups.groups;
  const lists = new Map(answer.resources);
  const failures = new Map(answer.failures);
  const missing = groups
    .flatMap((g) => g.versions.map((v) => v.groupVersion))
    .filter((gv) => !lists.has(gv) && !failures.has(gv));
  await forEachBounded(missing, concurrency, signal, async (groupVersion) => {
    try {
      lists.set(groupVersion, await source.serverResourcesForGroupVersion(groupVersion, signal));
    } catch (err) {
      signal?.throwIfAborted();
      failures.set(groupVersion, asError(err));
    }
  });
  return { groups, lists, failures };
}

/** The lists of `collected` in group order, then version order. */
function orderedLists(collected: Collected): DiscoveredResourceList[] {
  return collected.groups.flatMap((g) =>
    g.versions.flatMap((v) => {
      const list = collected.lists.get(v.groupVersion);
      return list === undefined ? [] : [list];
    }),
  );
}

/**
 * Every group with the resources of each of its versions: the lists the group list came with,
 * and one `serverResourcesForGroupVersion` per other group version, at most `concurrency` at a
 * time.
 *
 * @throws {GroupDiscoveryFailedError} when some group versions failed (or were stale); it
 *   carries the groups and every list that did load.
 * @throws the group list's error, or `signal.reason` once aborted.
 */
export async function queryGroupsAndResources(
  source: DiscoveryPrimitives,
  concurrency: number,
  signal?: AbortSignal,
): Promise<GroupsAndResources> {
  const collected = await collect(source, concurrency, signal);
  const resources = orderedLists(collected);
  if (collected.failures.size > 0) {
    throw new GroupDiscoveryFailedError(collected.failures, collected.groups, resources);
  }
  return { groups: collected.groups, resources };
}

/**
 * For each group resource, its entry in the preferred version of its group when that version
 * serves it, else in the first version (in preference order) that does; optionally only
 * namespaced resources. Lists come in group order, then version order, resources in the
 * server's order; lists left empty are omitted.
 *
 * @throws {GroupDiscoveryFailedError} when some group versions failed; it carries the preferred
 *   lists computed from what did load.
 */
export async function queryPreferredResources(
  source: DiscoveryPrimitives,
  concurrency: number,
  namespacedOnly: boolean,
  signal?: AbortSignal,
): Promise<DiscoveredResourceList[]> {
  const collected = await collect(source, concurrency, signal);
  const result: DiscoveredResourceList[] = [];
  for (const group of collected.groups) {
    const preferred = group.preferredVersion?.version;
    const versionOf = new Map<string, string>();
    for (const v of group.versions) {
      for (const r of collected.lists.get(v.groupVersion)?.resources ?? []) {
        if (!versionOf.has(r.name) || v.version === preferred) versionOf.set(r.name, v.version);
      }
    }
    for (const v of group.versions) {
      const list = collected.lists.get(v.groupVersion);
      if (list === undefined) continue;
      const chosen: DiscoveredResource[] = list.resources.filter(
        (r) => versionOf.get(r.name) === v.version && (!namespacedOnly || r.namespaced),
      );
      if (chosen.length > 0) result.push({ ...list, resources: chosen });
    }
  }
  if (collected.failures.size > 0) {
    throw new GroupDiscoveryFailedError(collected.failures, collected.groups, result);
  }
  return result;
}

/**
 * The discovery queries derived from the two primitives, shared by {@link DiscoveryClient}
 * and both caches: a subclass supplies `groupsAndMaybeResources`,
 * `serverResourcesForGroupVersion` and the bound on concurrent per-group-version requests.
 */
export abstract class DiscoveryQueries implements DiscoveryPrimitives {
  /** How many group versions are fetched at once. */
  protected abstract readonly queryConcurrency: number;

  abstract groupsAndMaybeResources(signal?: AbortSignal): Promise<GroupsAndMaybeResources>;

  abstract serverResourcesForGroupVersion(
    groupVersion: string,
    signal?: AbortSignal,
  ): Promise<DiscoveredResourceList>;

  /** Every group and the resources of each version; see {@link DiscoveryInterface}. */
  serverGroupsAndResources(signal?: AbortSignal): Promise<GroupsAndResources> {
    return queryGroupsAndResources(this, this.queryConcurrency, signal);
  }

  /** The preferred version's entry of every resource; see {@link DiscoveryInterface}. */
  serverPreferredResources(signal?: AbortSignal): Promise<DiscoveredResourceList[]> {
    return queryPreferredResources(this, this.queryConcurrency, false, signal);
  }

  /** {@link serverPreferredResources} of namespaced resources only. */
  serverPreferredNamespacedResources(signal?: AbortSignal): Promise<DiscoveredResourceList[]> {
    return queryPreferredResources(this, this.queryConcurrency, true, signal);
  }
}
