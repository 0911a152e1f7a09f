/**
 * The machinery every informer factory shares (client-go's `sharedInformerFactory`): one
 * informer per resource created on first use, `start`, `waitForCacheSync` and `shutdown`.
 */
import { setMaxListeners } from "node:events";
import type { ListerWatcher, ListerWatcherTarget } from "../cache/lister-watcher.js";
import { SharedIndexInformer } from "../cache/shared-index-informer.js";
import { waitForCacheSync } from "../cache/wait-for-cache-sync.js";
import { consoleLogger } from "../core/logger.js";
import type { Logger } from "../core/logger.js";
import { gvrKey, isGvrKey } from "./gvr-key.js";
import type { InformerFactoryOptions } from "./informer-factory-options.js";
import type { InformerResource } from "./resource-informer.js";

/** What a factory is built from: how to reach a resource, and the user's options. */
export interface InformerFactorySettings<TObj> {
  /**
   * The ListerWatcher of one resource; the target carries the factory's namespace (only for
   * namespaced resources) and tweak.
   */
  readonly newListerWatcher: (target: ListerWatcherTarget) => ListerWatcher<TObj>;
  readonly options?: InformerFactoryOptions;
  /** Applied by every informer to every object before it is cached (client-go's `WithTransform`). */
  readonly transform?: (obj: TObj) => TObj;
}

/** Where generated accessors get their informers from: {@link BaseInformerFactory.informerFor}. */
export interface InformerSource<TObj> {
  informerFor<T extends TObj>(resource: InformerResource): SharedIndexInformer<T>;
}

interface FactoryEntry<TObj> {
  readonly informer: SharedIndexInformer<TObj>;
  /** Set when this factory started the informer: settles when its `run()` has settled. */
  stopped?: Promise<void>;
}

/**
 * Owns the informers of one factory, one per `group/version/resource`.
 *
 * Guarantees:
 * - {@link informerFor} creates an informer on first use and returns the same one afterwards,
 *   with the factory's namespace (namespaced resources only), tweak, transform, informer
 *   options, and the resource's `customResyncMs` entry or else `resyncPeriodMs`.
 * - {@link start} runs only the informers it has not started yet: call it again after
 *   asking for new informers. After {@link shutdown} it does nothing.
 * - {@link shutdown} stops every informer it started and resolves once all their `run()`
 *   promises have settled.
 *
 * Caveat: an informer already running (its `run()` called from outside the factory) is not
 * started, waited for, or stopped by the factory.
 */
export class BaseInformerFactory<TObj> implements InformerSource<TObj> {
  readonly #settings: InformerFactorySettings<TObj>;
  readonly #entries = new Map<string, FactoryEntry<TObj>>();
  readonly #stop = new AbortController();
  readonly #logger: Logger;
  #shuttingDown = false;

  /**
   * @throws {RangeError} when a `customResyncMs` key is not `group/version/resource`
   *   (the core group's keys start with `/`: `/v1/pods`).
   */
  constructor(settings: InformerFactorySettings<TObj>) {
    for (const key of Object.keys(settings.options?.customResyncMs ?? {})) {
      if (!isGvrKey(key)) {
        throw new RangeError(
          `customResyncMs key ${JSON.stringify(key)} is not "group/version/resource" (core resources: "/v1/pods")`,
        );
      }
    }
    this.#settings = settings;
    this.#logger = settings.options?.informerOptions?.logger ?? consoleLogger;
  }

  /** The namespace informers of namespaced resources watch; `""` for every namespace. */
  get namespace(): string {
    return this.#settings.options?.namespace ?? "";
  }

  /** Whether {@link shutdown} has been called. */
  get isShuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /**
   * The factory's informer of `resource`, created (not started) on first call (client-go's
   * `InformerFor`). `T` is asserted: the caller vouches that the resource's objects are `T`.
   */
  informerFor<T extends TObj>(resource: InformerResource): SharedIndexInformer<T> {
    const key = gvrKey(resource);
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { informer: this.#newInformer(resource, key) };
      this.#entries.set(key, entry);
    }
    // One map holds the informers of every resource; the caller names the object type.
    return entry.informer as unknown as SharedIndexInformer<T>;
  }

  /**
   * Runs every informer created so far and not started yet, until `signal` aborts or
   * {@link shutdown} is called. Returns at once; does nothing after {@link shutdown}. A
   * `run()` that rejects is logged.
   */
  start(signal: AbortSignal): void {
    if (this.#shuttingDown) return;
    const pending = [...this.#entries].filter(
      ([, entry]) => entry.stopped === undefined && !entry.informer.isStarted,
    );
    if (pending.length === 0) return;
    const runSignal = AbortSignal.any([signal, this.#stop.signal]);
    // Every informer (and each of its loops) listens to it: a factory of more than a few
    // informers goes past Node's default of 10 listeners, which would print a leak warning.
    setMaxListeners(0, runSignal);
    for (const [key, entry] of pending) {
      entry.stopped = entry.informer.run(runSignal).catch((error: unknown) => {
        this.#logger.error("informer stopped with an error", { informer: key, error });
      });
    }
  }

  /**
   * Waits until every informer this factory started has synced (its initial list is in the
   * cache), or `signal` aborts, or the factory shuts down, or the informer stops. Resolves
   * with one entry per started informer, keyed `group/version/resource`: `true` when synced.
   * Informers never started are not included. Handlers may still be processing the initial
   * adds: use each registration's `hasSynced()` for that.
   */
  async waitForCacheSync(signal: AbortSignal): Promise<Map<string, boolean>> {
    const started = [...this.#entries].filter(([, entry]) => entry.stopped !== undefined);
    const waitSignal = AbortSignal.any([signal, this.#stop.signal]);
    setMaxListeners(0, waitSignal);
    const results = await Promise.all(
      started.map(
        async ([key, entry]) => [key, await waitForCacheSync(waitSignal, entry.informer)] as const,
      ),
    );
    return new Map(results);
  }

  /**
   * Stops every informer this factory started and resolves when each has stopped (its
   * `run()` settled: reflector, queue and handler loops ended). From then on {@link start}
   * does nothing. Unlike client-go's `Shutdown`, which waits for the caller to close the
   * start channel, this stops the informers itself. Idempotent; must not be awaited from inside an event handler of one of
   * the factory's informers (the handler loop would wait for itself).
   */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    this.#stop.abort();
    await Promise.all([...this.#entries.values()].map((entry) => entry.stopped));
  }

  #newInformer(resource: InformerResource, key: string): SharedIndexInformer<TObj> {
    const options = this.#settings.options ?? {};
    const namespace = resource.namespaced ? (options.namespace ?? "") : "";
    const listerWatcher = this.#settings.newListerWatcher({
      group: resource.group,
      version: resource.version,
      resource: resource.resource,
      ...(namespace !== "" ? { namespace } : {}),
      ...(options.tweakListOptions !== undefined ? { tweak: options.tweakListOptions } : {}),
    });
    const resyncPeriodMs = options.customResyncMs?.[key] ?? options.resyncPeriodMs ?? 0;
    return new SharedIndexInformer<TObj>({
      ...options.informerOptions,
      listerWatcher,
      name: key,
      resyncPeriodMs,
      ...(this.#settings.transform !== undefined ? { transform: this.#settings.transform } : {}),
    });
  }
}
