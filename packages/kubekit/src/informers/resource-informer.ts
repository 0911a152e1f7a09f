/**
 * What an informer factory hands out for one resource: the shared informer and a lister
 * reading its cache.
 */
import type { Lister } from "../cache/lister.js";
import type { SharedIndexInformer } from "../cache/shared-index-informer.js";
import type { GroupVersionResource } from "../core/gvk.js";

/**
 * A resource as an informer factory needs to know it: whether the factory's namespace
 * applies (`namespaced`), or it is listed and watched cluster-wide.
 */
export interface InformerResource extends GroupVersionResource {
  readonly namespaced: boolean;
}

/**
 * The shared informer of one resource and a lister over its cache. Every call of the same
 * factory accessor returns the same informer; the lister is a fresh, stateless view of the
 * informer's cache (it hands out the cached objects themselves: do not mutate them).
 */
export interface ResourceInformer<T, L> {
  readonly informer: SharedIndexInformer<T>;
  readonly lister: L;
}

/**
 * The informer of a resource with the generic lister (client-go's `GenericInformer`):
 * `list(selector)`, `get(name)` for cluster-scoped resources and `namespace(ns)`.
 */
export type GenericInformer<T> = ResourceInformer<T, Lister<T>>;
