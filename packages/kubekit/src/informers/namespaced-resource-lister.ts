/**
 * The base of the typed listers of namespaced resources (client-go's generated
 * `PodLister`): list across namespaces, or narrow to one.
 */
import type { Indexer } from "../cache/store.js";
import { Lister } from "../cache/lister.js";
import type { NamespaceLister } from "../cache/lister.js";
import type { GroupResource } from "../core/gvk.js";
import type { LabelSelector } from "../core/label-selector.js";

/**
 * Reads a namespaced resource from an informer's cache. Generated subclasses add a namespace
 * accessor named after the resource (`pods(ns)`, `configMaps(ns)`), equal to
 * {@link namespace}. Objects are the cached ones, shared with every reader: do not mutate them.
 */
export class NamespacedResourceLister<T> {
  readonly #lister: Lister<T>;

  /** A lister over `indexer`; `resource` names the resource in NotFound errors. */
  constructor(indexer: Indexer<T>, resource: GroupResource) {
    this.#lister = new Lister<T>(indexer, resource);
  }

  /** Every cached object in every namespace the informer watches, matching `selector` when given. */
  list(selector?: LabelSelector | string): T[] {
    return this.#lister.list(selector);
  }

  /** The lister of one namespace: `list(selector)` and `get(name)` (NotFound `StatusError` when absent). */
  namespace(namespace: string): NamespaceLister<T> {
    return this.#lister.namespace(namespace);
  }
}
