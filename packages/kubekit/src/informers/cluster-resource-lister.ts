/**
 * The typed lister of cluster-scoped resources (client-go's generated `NodeLister`).
 */
import type { Indexer } from "../cache/store.js";
import { Lister } from "../cache/lister.js";
import type { GroupResource } from "../core/gvk.js";
import type { LabelSelector } from "../core/label-selector.js";

/**
 * Reads a cluster-scoped resource from an informer's cache. Objects are the cached ones,
 * shared with every reader: do not mutate them.
 */
export class ClusterResourceLister<T> {
  readonly #lister: Lister<T>;

  /** A lister over `indexer`; `resource` names the resource in NotFound errors. */
  constructor(indexer: Indexer<T>, resource: GroupResource) {
    this.#lister = new Lister<T>(indexer, resource);
  }

  /** Every cached object, matching `selector` when given. */
  list(selector?: LabelSelector | string): T[] {
    return this.#lister.list(selector);
  }

  /**
   * The cached object `name`.
   *
   * @throws {StatusError} NotFound (as the API server would answer) when it is not cached.
   */
  get(name: string): T {
    return this.#lister.get(name);
  }
}
