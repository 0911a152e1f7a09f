/**
 * Listers: typed, read-only views of an informer's cache (client-go's `ListAll`,
 * `ListAllByNamespace` and the generated listers' `List`/`Get`).
 */
import type { GroupResource } from "../core/gvk.js";
import { LabelSelector } from "../core/label-selector.js";
import { labelsOf, namespaceOf } from "../core/object-metadata.js";
import { newNotFound } from "../core/status-builders.js";
import { NAMESPACE_INDEX } from "./namespace-index.js";
import type { Indexer } from "./store.js";

/** What `list` accepts: a parsed selector, or selector text (`app=web,tier in (fe,be)`). */
export type ListerSelector = LabelSelector | string;

function toSelector(selector: ListerSelector | undefined): LabelSelector | undefined {
  if (selector === undefined) return undefined;
  return typeof selector === "string" ? LabelSelector.parse(selector) : selector;
}

/** The objects of `objects` that `selector` matches; all of them (the same array) when it is empty. */
function select<T>(objects: T[], selector: LabelSelector | undefined): T[] {
  if (selector === undefined || selector.isEmpty()) return objects;
  return objects.filter((obj) => selector.matches(labelsOf(obj)));
}

/**
 * Reads one namespace of a cache (client-go's generated `<Kind>NamespaceLister`). Namespace
 * `""` (all namespaces) lists everything and gets by plain name.
 *
 * Returned objects are the cache's own, shared with every reader: never mutate them.
 */
export class NamespaceLister<T> {
  readonly #indexer: Indexer<T>;
  readonly #resource: GroupResource;
  /** The namespace read. */
  readonly namespace: string;

  constructor(indexer: Indexer<T>, resource: GroupResource, namespace: string) {
    this.#indexer = indexer;
    this.#resource = resource;
    this.namespace = namespace;
  }

  /**
   * The cached objects of this namespace that `selector` matches (all of them without one),
   * in a fresh array. Uses the namespace index when the cache has it, a full scan otherwise.
   *
   * @throws {SelectorParseError} when `selector` is text that does not parse.
   */
  list(selector?: ListerSelector): T[] {
    const parsed = toSelector(selector);
    const namespace = this.namespace;
    if (namespace === "") return select(this.#indexer.list(), parsed);
    if (Object.hasOwn(this.#indexer.getIndexers(), NAMESPACE_INDEX)) {
      return select(this.#indexer.byIndex(NAMESPACE_INDEX, namespace), parsed);
    }
    return select(
      this.#indexer.list().filter((obj) => namespaceOf(obj) === namespace),
      parsed,
    );
  }

  /**
   * The cached object `namespace/name`.
   *
   * @throws {StatusError} NotFound (`pods "web" not found`, with the lister's group and
   *   resource) when it is not cached.
   */
  get(name: string): T {
    const key = this.namespace === "" ? name : `${this.namespace}/${name}`;
    const obj = this.#indexer.getByKey(key);
    if (obj === undefined) throw newNotFound(this.#resource, name);
    return obj;
  }
}

/**
 * Reads a cache (client-go's generated `<Kind>Lister`): every object, cluster-scoped objects
 * by name, and namespaces through {@link Lister.namespace}. It reads the cache as it is now:
 * before the informer has synced it may be incomplete.
 *
 * Returned objects are the cache's own, shared with every reader: never mutate them.
 */
export class Lister<T> {
  readonly #indexer: Indexer<T>;
  /** The group and resource named in NotFound errors. */
  readonly resource: GroupResource;

  constructor(indexer: Indexer<T>, resource: GroupResource) {
    this.#indexer = indexer;
    this.resource = { group: resource.group, resource: resource.resource };
  }

  /** The cache it reads (e.g. to build a view of it, such as `withBodies`). */
  get indexer(): Indexer<T> {
    return this.#indexer;
  }

  /**
   * Every cached object (of every namespace) that `selector` matches, all of them without
   * one, in a fresh array.
   *
   * @throws {SelectorParseError} when `selector` is text that does not parse.
   */
  list(selector?: ListerSelector): T[] {
    return select(this.#indexer.list(), toSelector(selector));
  }

  /**
   * The cached cluster-scoped object `name` (for namespaced objects use
   * {@link Lister.namespace}).
   *
   * @throws {StatusError} NotFound (`namespaces "x" not found`) when it is not cached.
   */
  get(name: string): T {
    const obj = this.#indexer.getByKey(name);
    if (obj === undefined) throw newNotFound(this.resource, name);
    return obj;
  }

  /** A lister of one namespace (`""` = all namespaces). */
  namespace(namespace: string): NamespaceLister<T> {
    return new NamespaceLister(this.#indexer, this.resource, namespace);
  }
}
