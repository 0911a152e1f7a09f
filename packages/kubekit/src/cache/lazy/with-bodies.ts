/**
 * `withBodies()`: views of a lazy informer, its cache and its listers that hand out the
 * objects' bodies (`T`) instead of {@link LazyObject}s, parsing each body when it is first
 * handed out (issue 24 §2).
 */
import type { EventHandlerRegistration, ResourceEventHandler } from "../resource-event-handler.js";
import type { LazyObject } from "../lazy-object.js";
import { Lister } from "../lister.js";
import type { SharedIndexInformer } from "../shared-index-informer.js";
import type { IndexFunc, Indexer, Indexers } from "../store.js";
import { DeletedFinalStateUnknown } from "../tombstone.js";
import { LazyJsonObject } from "./lazy-json-object.js";
import { lazyObjectMetaOf } from "./lazy-object-meta.js";

/** What every informer offers, eager or a {@link withBodies} view: `SharedIndexInformer`'s public surface. */
export type SharedInformerView<T> = Pick<
  SharedIndexInformer<T>,
  | "name"
  | "indexer"
  | "isStarted"
  | "isStopped"
  | "lastSyncResourceVersion"
  | "resyncCheckPeriodMs"
  | "addEventHandler"
  | "removeEventHandler"
  | "run"
  | "hasSynced"
  | "waitForSync"
  | "waitForCacheResourceVersion"
  | "addIndexers"
  | "setTransform"
  | "setWatchErrorHandler"
>;

/** `obj` as a lazy object (already parsed), for the lazy cache's key and index functions. */
function asLazy<T>(obj: T): LazyObject<T> {
  return LazyJsonObject.fromBody(obj, lazyObjectMetaOf(obj));
}

function bodies<T>(items: readonly LazyObject<T>[]): T[] {
  return items.map((item) => item.object());
}

/** A tombstone of the view: the same key, the last state's body. */
function bodyTombstone<T>(
  obj: LazyObject<T> | DeletedFinalStateUnknown<LazyObject<T>>,
): T | DeletedFinalStateUnknown<T> {
  if (!(obj instanceof DeletedFinalStateUnknown)) return obj.object();
  return new DeletedFinalStateUnknown<T>(obj.key, obj.obj?.object());
}

/** An index function over bodies, run on lazy objects (it parses each). */
function lazyIndexFunc<T>(index: IndexFunc<T>): IndexFunc<LazyObject<T>> {
  return (lazy) => index(lazy.object());
}

/** A transform over bodies applied to a lazy object: when its body is parsed, if it can wait. */
function lazyTransform<T>(transform: (obj: T) => T): (lazy: LazyObject<T>) => LazyObject<T> {
  return (lazy) =>
    lazy instanceof LazyJsonObject
      ? LazyJsonObject.withBodyTransform(lazy as LazyJsonObject<T>, transform)
      : asLazy(transform(lazy.object()));
}

/**
 * The cache of a lazy informer as an `Indexer<T>`: every read hands out bodies (parsed on
 * first access, the same instance afterwards), keys and the indices as they are. Objects
 * written through the view (which an informer's cache should not be) are stored as parsed
 * lazy objects; index functions added through it run on bodies, parsing every cached object.
 */
class BodiesIndexer<T> implements Indexer<T> {
  readonly #lazy: Indexer<LazyObject<T>>;

  constructor(lazy: Indexer<LazyObject<T>>) {
    this.#lazy = lazy;
  }

  get lastSyncResourceVersion(): string {
    return this.#lazy.lastSyncResourceVersion;
  }

  keyOf(obj: T | DeletedFinalStateUnknown<T>): string {
    return obj instanceof DeletedFinalStateUnknown ? obj.key : this.#lazy.keyOf(asLazy(obj));
  }

  add(obj: T): void {
    this.#lazy.add(asLazy(obj));
  }

  update(obj: T): void {
    this.#lazy.update(asLazy(obj));
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const key = this.keyOf(obj);
    const cached = this.#lazy.getByKey(key);
    if (cached !== undefined) this.#lazy.delete(cached);
  }

  list(): T[] {
    return bodies(this.#lazy.list());
  }

  listKeys(): string[] {
    return this.#lazy.listKeys();
  }

  get(obj: T | DeletedFinalStateUnknown<T>): T | undefined {
    return this.getByKey(this.keyOf(obj));
  }

  getByKey(key: string): T | undefined {
    return this.#lazy.getByKey(key)?.object();
  }

  replace(list: readonly T[], resourceVersion: string): void {
    this.#lazy.replace(
      list.map((obj) => asLazy(obj)),
      resourceVersion,
    );
  }

  resync(): void {
    this.#lazy.resync();
  }

  bookmark(resourceVersion: string): void {
    this.#lazy.bookmark(resourceVersion);
  }

  index(indexName: string, obj: T): T[] {
    return bodies(this.#lazy.index(indexName, asLazy(obj)));
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    return this.#lazy.indexKeys(indexName, indexedValue);
  }

  listIndexFuncValues(indexName: string): string[] {
    return this.#lazy.listIndexFuncValues(indexName);
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    return bodies(this.#lazy.byIndex(indexName, indexedValue));
  }

  getIndexers(): Indexers<T> {
    const out: Record<string, IndexFunc<T>> = {};
    for (const [name, index] of Object.entries(this.#lazy.getIndexers())) {
      out[name] = (obj) => index(asLazy(obj));
    }
    return out;
  }

  addIndexers(indexers: Indexers<T>): void {
    const lazy: Record<string, IndexFunc<LazyObject<T>>> = {};
    for (const [name, index] of Object.entries(indexers)) lazy[name] = lazyIndexFunc(index);
    this.#lazy.addIndexers(lazy);
  }
}

/**
 * A lazy informer seen with bodies: the same informer (one cache, one reflector, the same
 * lifecycle), its handlers and its `indexer` given `T` (each body parsed when first handed
 * out, then the same instance). Handlers keep every guarantee of the informer: order, cache
 * before handlers, tombstones (with the last state's body), resync.
 */
class BodiesInformer<T> implements SharedInformerView<T> {
  readonly #lazy: SharedIndexInformer<LazyObject<T>>;
  readonly indexer: Indexer<T>;

  constructor(lazy: SharedIndexInformer<LazyObject<T>>) {
    this.#lazy = lazy;
    this.indexer = new BodiesIndexer<T>(lazy.indexer);
  }

  get name(): string {
    return this.#lazy.name;
  }

  get isStarted(): boolean {
    return this.#lazy.isStarted;
  }

  get isStopped(): boolean {
    return this.#lazy.isStopped;
  }

  get lastSyncResourceVersion(): string {
    return this.#lazy.lastSyncResourceVersion;
  }

  get resyncCheckPeriodMs(): number {
    return this.#lazy.resyncCheckPeriodMs;
  }

  addEventHandler(
    handler: ResourceEventHandler<T>,
    options?: { readonly resyncPeriodMs?: number },
  ): EventHandlerRegistration {
    const lazyHandler: ResourceEventHandler<LazyObject<T>> = {
      onAdd: (obj, isInInitialList) => handler.onAdd?.(obj.object(), isInInitialList),
      onUpdate: (oldObj, newObj) => handler.onUpdate?.(oldObj.object(), newObj.object()),
      onDelete: (obj) => handler.onDelete?.(bodyTombstone(obj)),
    };
    return this.#lazy.addEventHandler(lazyHandler, options);
  }

  removeEventHandler(registration: EventHandlerRegistration): void {
    this.#lazy.removeEventHandler(registration);
  }

  run(signal: AbortSignal): Promise<void> {
    return this.#lazy.run(signal);
  }

  hasSynced(): boolean {
    return this.#lazy.hasSynced();
  }

  waitForSync(signal?: AbortSignal): Promise<boolean> {
    return this.#lazy.waitForSync(signal);
  }

  waitForCacheResourceVersion(
    check: (resourceVersion: string) => boolean,
    signal?: AbortSignal,
  ): Promise<boolean> {
    return this.#lazy.waitForCacheResourceVersion(check, signal);
  }

  addIndexers(indexers: Indexers<T>): void {
    const lazy: Record<string, IndexFunc<LazyObject<T>>> = {};
    for (const [name, index] of Object.entries(indexers)) lazy[name] = lazyIndexFunc(index);
    this.#lazy.addIndexers(lazy);
  }

  setTransform(transform: (obj: T) => T): void {
    this.#lazy.setTransform(lazyTransform(transform));
  }

  setWatchErrorHandler(handler: (error: unknown) => void): void {
    this.#lazy.setWatchErrorHandler(handler);
  }
}

/**
 * A view of a lazy informer, cache or lister that hands out bodies: `T` where the lazy one
 * hands out `LazyObject<T>`, each parsed on first access (and cached: the same instance for
 * every later reader). Use it for code written for eager informers; keep the lazy object
 * where only metadata is read, which is what saves the parsing.
 *
 * - an informer: the same informer (running or stopping one runs or stops both), whose
 *   handlers receive bodies (tombstones carry the last state's body) and whose `indexer` is
 *   the cache below. `setTransform(t)` runs `t` on each body when it is parsed: it must not
 *   change the fields of `LazyObjectMeta` (keys, indices and selectors read the metadata
 *   as received). Index functions added through the view run on bodies (parsing every
 *   object they index).
 * - an indexer: reads hand out bodies; keys and index values are the lazy cache's.
 * - a lister: a lister of the same cache and resource, handing out bodies.
 */
export function withBodies<T>(informer: SharedIndexInformer<LazyObject<T>>): SharedInformerView<T>;
export function withBodies<T>(indexer: Indexer<LazyObject<T>>): Indexer<T>;
export function withBodies<T>(lister: Lister<LazyObject<T>>): Lister<T>;
export function withBodies<T>(
  lazy: SharedIndexInformer<LazyObject<T>> | Indexer<LazyObject<T>> | Lister<LazyObject<T>>,
): SharedInformerView<T> | Indexer<T> | Lister<T> {
  if (lazy instanceof Lister)
    return new Lister<T>(new BodiesIndexer<T>(lazy.indexer), lazy.resource);
  if ("addEventHandler" in lazy) return new BodiesInformer<T>(lazy);
  return new BodiesIndexer<T>(lazy);
}
