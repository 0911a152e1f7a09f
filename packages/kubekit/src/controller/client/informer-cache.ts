/**
 * The Manager's informer cache (controller-runtime's `pkg/cache` informer cache): one shared
 * informer per kind, typed or unstructured, created on first use, started with the manager
 * (or at once when it already runs), and read by the cache-backed client and watched by the
 * controllers the builder makes.
 */
import { setMaxListeners } from "node:events";
import type { ListerWatcher } from "../../cache/lister-watcher.js";
import { listerWatcherFor } from "../../cache/lister-watcher.js";
import type { LazyObject } from "../../cache/lazy-object.js";
import { lazyListerWatcherFor } from "../../cache/lazy/lazy-lister-watcher.js";
import type { SharedIndexInformer } from "../../cache/shared-index-informer.js";
import type { CacheSyncSource } from "../../cache/wait-for-cache-sync.js";
import { waitForCacheSync } from "../../cache/wait-for-cache-sync.js";
import type { KubeObject, ObjectWithMetadata } from "../../client/kube-object.js";
import { BaseInformerFactory } from "../../informers/base-informer-factory.js";
import { TypedInformerFactory } from "../../informers/generated/typed-informers.js";
import { gvrKey } from "../../informers/gvr-key.js";
import type { InformerTuning } from "../../informers/informer-factory-options.js";
import type { RESTClient } from "../../rest/rest-client.js";
import { CacheReadError } from "./cache-read-error.js";
import type { AnyKindReference, KindReference, LazyKind, ResolvedKind } from "./kind-reference.js";
import { resolveKind } from "./kind-reference.js";

/** controller-runtime's field index name prefix (`pkg/cache/internal`): `field:<field>`. */
export const FIELD_INDEX_PREFIX = "field:";
/** controller-runtime's pseudo-namespace of field index values across namespaces. */
export const ALL_NAMESPACES_INDEX_NAMESPACE = "__all_namespaces";

/** The field index value of `value` in `namespace` (controller-runtime's `KeyToNamespacedKey`). */
export function fieldIndexValue(namespace: string, value: string): string {
  return `${namespace !== "" ? namespace : ALL_NAMESPACES_INDEX_NAMESPACE}/${value}`;
}

/** Extracts the values of a field for {@link InformerCache.indexField} (controller-runtime's `IndexerFunc`). */
export type FieldExtractor<T> = (obj: T) => readonly string[];

/** Settings of the Manager's informer cache (`ManagerOptions.cache`). */
export interface InformerCacheOptions {
  /**
   * Cache only this namespace's objects of namespaced kinds (controller-runtime's
   * `cache.Options.DefaultNamespaces` with one namespace); default every namespace.
   * Cluster-scoped kinds are cached whole (a custom resource is taken as namespaced unless
   * named with `namespaced: false`).
   */
  readonly namespace?: string;
  /** The resync period of every informer, in ms (default 0: none). */
  readonly resyncPeriodMs?: number;
  /** Settings of every informer (logger, clock, reflector tuning, mutation detector). */
  readonly informerOptions?: InformerTuning;
}

/**
 * The ListerWatcher `build` makes over the RESTClient found on the first list or watch
 * (after the manager loaded its kubeconfig).
 */
function deferredListerWatcher<T>(
  restClient: () => RESTClient,
  build: (client: RESTClient) => ListerWatcher<T>,
): ListerWatcher<T> {
  let resolved: ListerWatcher<T> | undefined;
  const get = (): ListerWatcher<T> => (resolved ??= build(restClient()));
  return {
    list: (options, signal) => get().list(options, signal),
    watch: (options, signal, watchOptions) => get().watch(options, signal, watchOptions),
  };
}

/**
 * The informers of a Manager, one per kind:
 *
 * - {@link informer} creates a kind's informer on first use (typed accessors in a typed
 *   factory, resources in an unstructured one: the same resource asked both ways has two
 *   informers) and, once {@link start} has run, starts it at once.
 * - {@link start}, {@link waitForCacheSync}, {@link shutdown}: as an informer factory's (the
 *   manager calls them).
 * - Objects in the informers are shared with every reader: never mutate them.
 */
export class InformerCache {
  readonly #typed: TypedInformerFactory;
  readonly #dynamic: BaseInformerFactory<KubeObject>;
  /** The informers of kinds named with `lazyKind`, one per resource however it is named. */
  readonly #lazy: BaseInformerFactory<LazyObject<unknown>>;
  /** The informers asked for so far, by their kind's key. */
  readonly #informers = new Map<string, SharedIndexInformer<unknown>>();
  #signal: AbortSignal | undefined;
  #stopped = false;
  /** Set by {@link starting}: settles with the signal {@link start} receives, or the stop. */
  #started:
    | {
        readonly promise: Promise<AbortSignal>;
        resolve(signal: AbortSignal): void;
        reject(error: Error): void;
      }
    | undefined;

  /**
   * @param restClient gives the client lists and watches go through; called on an informer's
   *   first list, never before the manager runs.
   * @param options the namespace, resync period and informer settings of every informer.
   */
  constructor(restClient: () => RESTClient, options: InformerCacheOptions = {}) {
    this.#typed = new TypedInformerFactory({
      newListerWatcher: (target) =>
        deferredListerWatcher(restClient, (client) =>
          listerWatcherFor<ObjectWithMetadata>(client, target),
        ),
      options,
    });
    this.#dynamic = new BaseInformerFactory<KubeObject>({
      newListerWatcher: (target) =>
        deferredListerWatcher(restClient, (client) => listerWatcherFor<KubeObject>(client, target)),
      options,
    });
    this.#lazy = new BaseInformerFactory<LazyObject<unknown>>({
      newListerWatcher: (target) =>
        deferredListerWatcher(restClient, (client) =>
          lazyListerWatcherFor<unknown>(client, target),
        ),
      options,
    });
  }

  /** Whether {@link start} has run (and {@link shutdown} not yet). */
  get isRunning(): boolean {
    return this.#signal !== undefined && !this.#stopped;
  }

  /**
   * Whether an informer that can serve reads of `kind` exists (was asked for), without
   * creating one: the kind's own, or another informer of its resource (see {@link reader}).
   */
  has(kind: ResolvedKind): boolean {
    return this.#existingReader(kind) !== undefined;
  }

  /**
   * The shared informer of `kind`, created on the first call; started at once when the cache
   * runs. `T` is asserted: a typed accessor's type, or `KubeObject` for a resource; a
   * `lazyKind`'s informer holds `LazyObject<T>`.
   *
   * @throws {TypeError} for a kind that does not resolve (see `resolveKind`).
   */
  informer<T>(kind: LazyKind<T>): SharedIndexInformer<LazyObject<T>>;
  informer<T>(kind: KindReference<T> | ResolvedKind): SharedIndexInformer<T>;
  informer<T>(kind: KindReference<T> | LazyKind<T> | ResolvedKind): SharedIndexInformer<T> {
    const resolved = isResolved(kind) ? kind : resolveKind(kind);
    let informer = this.#informers.get(resolved.key);
    if (informer === undefined) {
      const factory = this.#factoryOf(resolved);
      informer = factory.informerFor(resolved) as SharedIndexInformer<unknown>;
      this.#informers.set(resolved.key, informer);
      if (this.isRunning && this.#signal !== undefined) factory.start(this.#signal);
    }
    // One map holds the informers of every kind; the kind reference names the object type.
    return informer as SharedIndexInformer<T>;
  }

  /**
   * The informer reads of `kind` go to: the kind's own when it exists, else another informer
   * of the same resource that exists (the lazy one for a plain name, or the plain one for a
   * lazy name: reads return bodies either way, with `bodyOf`), else the kind's own, created
   * and started as {@link informer} does. So a kind watched lazily and read by its plain
   * name (or the reverse) keeps one informer and one watch.
   */
  reader<T>(kind: ResolvedKind): SharedIndexInformer<T | LazyObject<T>> {
    return (this.#existingReader(kind) ?? this.informer(kind)) as SharedIndexInformer<
      T | LazyObject<T>
    >;
  }

  #existingReader(kind: ResolvedKind): SharedIndexInformer<unknown> | undefined {
    const gvr = gvrKey(kind);
    for (const key of [kind.key, `lazy:${gvr}`, `typed:${gvr}`, `dynamic:${gvr}`]) {
      const informer = this.#informers.get(key);
      if (informer !== undefined) return informer;
    }
    return undefined;
  }

  #factoryOf(kind: ResolvedKind): BaseInformerFactory<unknown> {
    // The factories differ only in the object type they assert.
    const factory = kind.lazy ? this.#lazy : kind.typed ? this.#typed : this.#dynamic;
    return factory as BaseInformerFactory<unknown>;
  }

  /**
   * Adds the field index `field` to the informer of `kind` (controller-runtime's
   * `FieldIndexer.IndexField`): `list` with a field selector `field=value` reads it. Values
   * are indexed per namespace and across namespaces, as controller-runtime's are.
   *
   * @throws {IndexerError} `IndexerConflict` when `field` is indexed already.
   */
  indexField<T>(kind: LazyKind<T>, field: string, extract: FieldExtractor<LazyObject<T>>): void;
  indexField<T>(
    kind: KindReference<T> | ResolvedKind,
    field: string,
    extract: FieldExtractor<T>,
  ): void;
  indexField<T>(
    kind: KindReference<T> | LazyKind<T> | ResolvedKind,
    field: string,
    extract: FieldExtractor<T>,
  ): void {
    this.informer<T>(kind as KindReference<T> | ResolvedKind).addIndexers({
      [`${FIELD_INDEX_PREFIX}${field}`]: (obj: T) => {
        const namespace = (obj as ObjectWithMetadata).metadata?.namespace ?? "";
        const values = extract(obj);
        const indexed = values.map((value) => fieldIndexValue(namespace, value));
        if (namespace !== "") indexed.push(...values.map((value) => fieldIndexValue("", value)));
        return indexed;
      },
    });
  }

  /**
   * Resolves once `informer` has synced (at once when it has).
   *
   * @throws {CacheReadError} `NotStarted` before {@link start}; `Stopped` when the cache stops
   *   first. `signal`'s reason when it aborts first.
   */
  async waitForInformer(
    informer: CacheSyncSource & { readonly name: string },
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (informer.hasSynced()) return;
    const running = this.#signal ?? (await this.#untilStarted(informer.name, signal));
    signal?.throwIfAborted();
    const wait = signal !== undefined ? AbortSignal.any([signal, running]) : running;
    if (await waitForCacheSync(wait, informer)) return;
    signal?.throwIfAborted();
    throw new CacheReadError("Stopped", `the cache stopped before ${informer.name} synced`);
  }

  /**
   * The signal of {@link start}, once it has run; waited for when {@link starting} announced
   * it.
   *
   * @throws {CacheReadError} `NotStarted` when no start is coming; `Stopped` when the cache
   *   stopped first. `signal`'s reason when it aborts first.
   */
  async #untilStarted(informer: string, signal: AbortSignal | undefined): Promise<AbortSignal> {
    const started = this.#started;
    if (started === undefined) {
      throw new CacheReadError(
        "NotStarted",
        `the cache is not started, can not read objects of ${informer} (start the manager first)`,
      );
    }
    if (signal === undefined) return started.promise;
    signal.throwIfAborted();
    let onAbort = (): void => undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
    });
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await Promise.race([started.promise, aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Announces that {@link start} is coming (the manager's `start` has begun and is loading its
   * kubeconfig or binding its ports): reads wait for it instead of failing with `NotStarted`.
   */
  starting(): void {
    if (this.#started !== undefined) return;
    let resolve: (signal: AbortSignal) => void = () => undefined;
    let reject: (error: Error) => void = () => undefined;
    const promise = new Promise<AbortSignal>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => undefined); // a stop before the start may find no reader waiting
    this.#started = { promise, resolve, reject };
  }

  /** Starts every informer created so far, and from then on each one at its creation, until `signal` aborts. */
  start(signal: AbortSignal): void {
    if (this.#stopped) return;
    this.#signal = signal;
    this.#started?.resolve(signal);
    setMaxListeners(0, signal);
    this.#typed.start(signal);
    this.#dynamic.start(signal);
    this.#lazy.start(signal);
  }

  /** Waits for the informers started so far to sync; one entry per informer, `true` when synced. */
  async waitForCacheSync(signal: AbortSignal): Promise<Map<string, boolean>> {
    const [typed, dynamic, lazy] = await Promise.all([
      this.#typed.waitForCacheSync(signal),
      this.#dynamic.waitForCacheSync(signal),
      this.#lazy.waitForCacheSync(signal),
    ]);
    return new Map([
      ...typed,
      ...[...dynamic].map(([key, synced]) => [`dynamic:${key}`, synced] as const),
      ...[...lazy].map(([key, synced]) => [`lazy:${key}`, synced] as const),
    ]);
  }

  /** Stops every informer and resolves once they have stopped. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    this.#started?.reject(new CacheReadError("Stopped", "the cache stopped before it started"));
    await Promise.all([this.#typed.shutdown(), this.#dynamic.shutdown(), this.#lazy.shutdown()]);
  }
}

function isResolved(kind: AnyKindReference | ResolvedKind): kind is ResolvedKind {
  return typeof kind === "object" && "key" in kind && "typed" in kind;
}
