/**
 * The controller: informer notifications → keys → a rate-limited work queue → N workers
 * calling a reconciler (controller-runtime's `pkg/internal/controller/controller.go`, the
 * loop of client-go's `examples/workqueue`).
 */
import type { ObjectWithMetadata } from "../client/kube-object.js";
import type { EventHandlerRegistration } from "../cache/resource-event-handler.js";
import type { SharedIndexInformer } from "../cache/shared-index-informer.js";
import { waitForCacheSync } from "../cache/wait-for-cache-sync.js";
import type { Clock } from "../core/clock.js";
import { realClock } from "../core/clock.js";
import { EventLoopSlice } from "../core/event-loop-slice.js";
import type { Logger } from "../core/logger.js";
import { consoleLogger } from "../core/logger.js";
import { objectKey } from "../core/object-key.js";
import type { RateLimiter } from "../workqueue/index.js";
import { RateLimitingQueue } from "../workqueue/index.js";
import { ControllerLifecycleError } from "./controller-errors.js";
import type {
  ControllerMetricsProvider,
  ReconcileMetrics,
  ReconcileOutcome,
} from "./metrics/controller-metrics.js";
import type { MapFunc, OwnerKind } from "./handler/enqueue-handler.js";
import { controllerOwnerKeys, enqueueHandler } from "./handler/enqueue-handler.js";
import type { Predicate } from "./handler/predicate.js";
import type { ReconcileResult, Reconciler } from "./reconciler.js";
import { isTerminalError } from "./terminal-error.js";
import type { AwaitedInformer, ManagerDefaults } from "./manager/manager-injection.js";
import { onManagerAdd } from "./manager/manager-injection.js";

/**
 * How long {@link Controller.run} waits for its informers to sync by default: 2 minutes,
 * controller-runtime's default `CacheSyncTimeout` (`pkg/internal/controller/controller.go`).
 */
export const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;

/** Settings of a {@link Controller}. */
export interface ControllerOptions {
  /** Names the controller in logs and errors, and its queue in metrics, e.g. `"replicaset"`. */
  readonly name: string;
  /** Called with each key taken from the queue (see {@link Reconciler}). */
  readonly reconcile: Reconciler;
  /**
   * How many reconciles may run at once, on different keys (default 1, controller-runtime's
   * `MaxConcurrentReconciles`).
   */
  readonly workers?: number;
  /**
   * The delays of requeues after errors and `{ requeue: true }` (default client-go's
   * `defaultControllerRateLimiter`: per key 5 ms doubling to 1000 s, and overall 10 per second
   * with bursts of 100).
   */
  readonly rateLimiter?: RateLimiter<string>;
  /**
   * Time source of the queue's delays, of the default rate limiter and of the cache sync
   * timeout (default: the clock of the {@link Manager} it is added to, else the real clock).
   */
  readonly clock?: Clock;
  /** Where the controller logs (default: the {@link Manager}'s logger, else the console logger). */
  readonly logger?: Logger;
  /**
   * How long {@link Controller.run} waits for the watched informers to sync before it
   * rejects with `CacheSyncTimeout` naming the informers that have not (default
   * {@link DEFAULT_CACHE_SYNC_TIMEOUT_MS}, 2 minutes, controller-runtime's), on the
   * controller's clock.
   */
  readonly cacheSyncTimeoutMs?: number;
  /**
   * Where the work queue's metrics go, under the controller's name (client-go's workqueue
   * metric set: depth, adds, latency, work duration, unfinished work, retries), and, when the
   * provider has `newReconcileMetrics` (e.g. a {@link Manager}'s `metrics`), the reconcile
   * metrics (controller-runtime's: outcomes, errors, durations on the controller's clock,
   * workers). Default: the {@link Manager}'s `metrics` when the controller is added to one,
   * else none.
   */
  readonly metrics?: ControllerMetricsProvider;
}

/** Options of {@link Controller.watch}. */
export interface ControllerWatchOptions<T> {
  /** Maps an object to the keys to reconcile (default: the object's own key, `ns/name`). */
  readonly map?: MapFunc<T>;
  /** Filters of the notifications; all must let one through (default: none, all pass). */
  readonly predicates?: readonly Predicate<T>[];
}

/** Options of {@link Controller.watchOwned}: the owner kind, and filters. */
export interface WatchOwnedOptions<T> extends OwnerKind {
  /** Filters of the owned objects' notifications; all must let one through. */
  readonly predicates?: readonly Predicate<T>[];
}

/** What a controller needs of an informer: a `SharedIndexInformer` (e.g. from a factory). */
export type WatchedInformer<T> = Pick<SharedIndexInformer<T>, "name" | "addEventHandler">;

/**
 * Runs a {@link Reconciler} for the keys of the objects it watches, with client-go's and
 * controller-runtime's guarantees:
 *
 * - **Keys, not events**: notifications become keys (`ns/name`) in a de-duplicating,
 *   rate-limited work queue; a key changed ten times while waiting is reconciled once.
 * - **One reconcile per key at a time**: a key is never reconciled twice concurrently (the
 *   queue hands it to one worker; an add while it runs queues it once more afterwards). Up
 *   to `workers` different keys are reconciled concurrently.
 * - **Outcomes** (controller-runtime's `reconcileHandler`): nothing returned → the key's
 *   backoff is forgotten; `{ requeueAfterMs }` → forgotten, then re-added after the delay;
 *   `{ requeue: true }` → re-added with the rate limiter's delay; an error (thrown or
 *   rejected) → logged with the key and re-added with the rate limiter's delay (5 ms, 10 ms,
 *   20 ms, … per key with the default limiter); a `TerminalError` → logged and forgotten.
 *   Nothing a reconcile does stops a worker.
 * - **Start**: {@link run} waits until every watched informer has synced and delivered its
 *   initial objects, so the first reconcile sees a complete cache.
 * - **Stop**: aborting `run`'s signal stops the workers from taking keys and aborts the
 *   signal each running reconcile received; `run` resolves once they have all settled and
 *   the queue is shut down (its pending delays are cancelled, so no timer is left behind).
 *
 * - **Sync timeout**: when a watched informer has not synced `cacheSyncTimeoutMs` (default
 *   2 minutes) after `run` began, `run` rejects with `CacheSyncTimeout` naming it.
 * - **In a {@link Manager}**: added to one, the controller takes the manager's metrics,
 *   logger and clock unless its options set them, and while it waits for its informers the
 *   manager's `/readyz` fails, naming them in its log.
 *
 * The controller does not start informers: start them yourself (e.g. `factory.start`, or
 * add the factory to the manager), before or after calling `run`. Add watches before `run`
 * (a watch added later is not waited for). Keys enqueued before `run` wait in the queue and
 * are reconciled after the sync. The queue is created by the first key (or `run`), with the
 * metrics and clock known then: add the controller to its manager before enqueueing.
 *
 * @example
 * A controller that gives every Deployment a ConfigMap it owns, applied server-side so that
 * each reconcile is idempotent:
 *
 * ```ts
 * import {
 *   Clientset,
 *   Controller,
 *   KubeConfig,
 *   SharedInformerFactory,
 *   generationChanged,
 *   isNotFound,
 *   setControllerReference,
 *   signalHandler,
 *   splitKey,
 * } from "kubekit";
 *
 * const clientset = new Clientset((await KubeConfig.load()).restConfig());
 * const factory = new SharedInformerFactory(clientset);
 * const deployments = factory.appsV1.deployments();
 *
 * const controller = new Controller({
 *   name: "deployment-settings",
 *   workers: 2,
 *   reconcile: async (key, signal) => {
 *     const { namespace, name } = splitKey(key);
 *     let deployment;
 *     try {
 *       deployment = deployments.lister.deployments(namespace).get(name);
 *     } catch (err) {
 *       if (isNotFound(err)) return; // deleted: the garbage collector removes its ConfigMap
 *       throw err; // retried with the rate limiter's backoff
 *     }
 *     // Objects from a lister carry no apiVersion/kind: name the owner's type.
 *     const settings = setControllerReference(
 *       deployment,
 *       {
 *         metadata: { name: `${name}-settings`, namespace },
 *         data: { replicas: String(deployment.spec?.replicas ?? 1) },
 *       },
 *       { apiVersion: "apps/v1", kind: "Deployment" },
 *     );
 *     await clientset.coreV1
 *       .configMaps(namespace)
 *       .apply(settings, { fieldManager: "deployment-settings", force: true, signal });
 *   },
 * });
 * // Spec changes of the Deployments, and any change to the ConfigMaps they own.
 * controller.watch(deployments.informer, { predicates: [generationChanged] });
 * controller.watchOwned(factory.coreV1.configMaps().informer, {
 *   group: "apps",
 *   kind: "Deployment",
 * });
 *
 * const stop = signalHandler(); // aborts on SIGTERM or SIGINT
 * factory.start(stop);
 * await controller.run(stop); // resolves once the running reconciles have settled
 * ```
 */
export class Controller {
  /** The controller's name. */
  readonly name: string;
  /** The number of workers {@link run} starts. */
  readonly workers: number;
  readonly #reconcile: Reconciler;
  readonly #options: ControllerOptions;
  readonly #cacheSyncTimeoutMs: number;
  /** Created on first use ({@link #workQueue}), with the metrics and clock known then. */
  #queue: RateLimitingQueue<string> | undefined;
  #logger: Logger;
  #clock: Clock;
  #metricsProvider: ControllerMetricsProvider | undefined;
  #metrics: ReconcileMetrics | undefined;
  #awaitInformers: ManagerDefaults["awaitInformers"] | undefined;
  readonly #sources: {
    readonly informer: string;
    readonly registration: EventHandlerRegistration;
  }[] = [];
  #state: "new" | "running" | "stopped" = "new";
  /** Logs to the current {@link #logger}, which a manager may replace after a watch was added. */
  readonly #log: Logger = {
    debug: (message, fields) => this.#logger.debug(message, fields),
    info: (message, fields) => this.#logger.info(message, fields),
    warn: (message, fields) => this.#logger.warn(message, fields),
    error: (message, fields) => this.#logger.error(message, fields),
  };

  /**
   * @throws {TypeError} when `name` is empty or `reconcile` is not a function.
   * @throws {RangeError} when `workers` is not an integer >= 1, or `cacheSyncTimeoutMs` not
   *   a positive number.
   */
  constructor(options: ControllerOptions) {
    if (typeof options.name !== "string" || options.name === "") {
      throw new TypeError("a controller needs a non-empty name");
    }
    if (typeof options.reconcile !== "function") {
      throw new TypeError(`controller ${options.name}: reconcile must be a function`);
    }
    const workers = options.workers ?? 1;
    if (!Number.isInteger(workers) || workers < 1) {
      throw new RangeError(
        `controller ${options.name}: workers must be an integer >= 1, got ${workers}`,
      );
    }
    const cacheSyncTimeoutMs = options.cacheSyncTimeoutMs ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS;
    if (!(cacheSyncTimeoutMs > 0)) {
      throw new RangeError(
        `controller ${options.name}: cacheSyncTimeoutMs must be > 0, got ${cacheSyncTimeoutMs}`,
      );
    }
    this.name = options.name;
    this.workers = workers;
    this.#reconcile = options.reconcile;
    this.#options = options;
    this.#cacheSyncTimeoutMs = cacheSyncTimeoutMs;
    this.#logger = options.logger ?? consoleLogger;
    this.#clock = options.clock ?? realClock;
    if (options.metrics !== undefined) this.#useMetrics(options.metrics);
    onManagerAdd(this, (defaults) => this.#inject(defaults));
  }

  /**
   * Reconciles the keys of `informer`'s objects: by default each object's own key (a
   * deletion inferred from a relist enqueues its tombstone's key), or the keys `map` gives
   * (`watch(informer, map)` or `watch(informer, { map, predicates })`). Predicates filter the
   * notifications first.
   *
   * @throws {ControllerLifecycleError} (`Stopped`) once {@link run} has finished.
   * @throws {InformerLifecycleError} (`Stopped`) when the informer has stopped.
   */
  watch<T extends ObjectWithMetadata>(
    informer: WatchedInformer<T>,
    mapOrOptions: MapFunc<T> | ControllerWatchOptions<T> = {},
  ): void {
    const options: ControllerWatchOptions<T> =
      typeof mapOrOptions === "function" ? { map: mapOrOptions } : mapOrOptions;
    const map = options.map;
    this.#addSource(informer, {
      map: map ?? ((obj: T) => [objectKey(obj)]),
      mapsToOwnKey: map === undefined,
      predicates: options.predicates ?? [],
    });
  }

  /**
   * Reconciles the owners of `informer`'s objects: the key of each object's controller owner
   * reference (`controller: true`) whose group and kind are `owner.group` and `owner.kind`
   * (controller-runtime's `Owns`). An update enqueues the owners of both the old and the new
   * object, so an owner that lost the object hears of it too. Objects without such an owner
   * are ignored, as are tombstones without a last known state. The owner is looked up in
   * the object's namespace, unless `owner.clusterScoped`.
   *
   * @throws {TypeError} when `owner.kind` is not a non-empty string or `owner.group` not a
   *   string (`""` is the core group): controller-runtime's `EnqueueRequestForOwner` refuses
   *   an owner type without a kind the same way.
   * @throws {ControllerLifecycleError} (`Stopped`) once {@link run} has finished.
   * @throws {InformerLifecycleError} (`Stopped`) when the informer has stopped.
   */
  watchOwned<T extends ObjectWithMetadata>(
    informer: WatchedInformer<T>,
    owner: WatchOwnedOptions<T>,
  ): void {
    // The types say so already; a call from JavaScript or through a cast may not.
    const { group, kind: ownerKind } = owner as Partial<OwnerKind>;
    if (typeof ownerKind !== "string" || ownerKind === "" || typeof group !== "string") {
      throw new TypeError(
        `controller ${this.name}: watchOwned needs the owner's group (a string, "" for the core group) and kind (a non-empty string)`,
      );
    }
    const kind: OwnerKind = {
      group: owner.group,
      kind: owner.kind,
      ...(owner.clusterScoped !== undefined ? { clusterScoped: owner.clusterScoped } : {}),
    };
    this.#addSource(informer, {
      map: (obj: T) => controllerOwnerKeys(obj, kind),
      mapsToOwnKey: false,
      predicates: owner.predicates ?? [],
    });
  }

  /** Queues `key` for a reconcile (ignored once {@link run} has finished). */
  enqueue(key: string): void {
    this.#workQueue().add(key);
  }

  /**
   * Queues `key` for a reconcile in `ms` milliseconds (at once when `ms <= 0`); a key already
   * waiting keeps the earlier time. Ignored once {@link run} has finished. The wait is a timer
   * on the controller's clock that keeps the process alive until it fires or `run` ends.
   */
  enqueueAfter(key: string, ms: number): void {
    this.#workQueue().addAfter(key, ms);
  }

  /**
   * Waits for the watched informers to sync, then reconciles with {@link workers} workers
   * until `signal` aborts; resolves once every running reconcile has settled and the queue
   * is shut down. Never rejects because of a reconcile. Resolves at once (without
   * reconciling) when `signal` aborts while waiting for the sync.
   *
   * @throws {ControllerLifecycleError} (as a rejection) `AlreadyStarted` when called again;
   *   `CacheSyncFailed` when a watched informer stops before it synced; `CacheSyncTimeout`
   *   when they have not all synced within `cacheSyncTimeoutMs` (its `informers` name the
   *   ones that have not).
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#state !== "new") {
      throw new ControllerLifecycleError(
        "AlreadyStarted",
        this.name,
        "run() may only be called once",
      );
    }
    this.#state = "running";
    const queue = this.#workQueue();
    const context = { controller: this.name };
    const awaited: AwaitedInformer[] = this.#sources.map(({ informer, registration }) => ({
      informer,
      hasSynced: () => registration.hasSynced(),
    }));
    const stopAwaiting = this.#awaitInformers?.(this.name, awaited);
    try {
      await this.#waitForSources(signal);
      if (signal.aborted) return;
      this.#logger.info("controller: starting workers", { ...context, workers: this.workers });
      const workers = Array.from({ length: this.workers }, () => this.#work(signal));
      await Promise.all(workers);
      this.#logger.info("controller: all workers finished", context);
    } finally {
      stopAwaiting?.();
      for (const { registration } of this.#sources) registration.remove();
      queue.shutDown();
      this.#state = "stopped";
    }
  }

  /**
   * Takes the manager's metrics, logger and clock where the options set none. The queue (and
   * the metrics and clock it uses) exists once a key was enqueued: then only the logger and
   * the readiness registration apply, and a warning says so.
   */
  #inject(defaults: ManagerDefaults): void {
    this.#awaitInformers = defaults.awaitInformers;
    if (this.#options.logger === undefined) this.#logger = defaults.logger;
    if (this.#queue !== undefined) {
      this.#logger.warn(
        "controller: added to a manager after its queue was created: the manager's metrics and clock do not apply",
        { controller: this.name },
      );
      return;
    }
    if (this.#options.clock === undefined) this.#clock = defaults.clock;
    if (this.#metricsProvider === undefined) this.#useMetrics(defaults.metrics);
  }

  /** Sets the metrics provider; the reconcile metrics exist from then on. */
  #useMetrics(provider: ControllerMetricsProvider): void {
    this.#metricsProvider = provider;
    this.#metrics = provider.newReconcileMetrics?.(this.name);
    this.#metrics?.setMaxConcurrentReconciles(this.workers);
  }

  /** The work queue, created on first use. */
  #workQueue(): RateLimitingQueue<string> {
    if (this.#queue === undefined) {
      const { rateLimiter } = this.#options;
      const metrics = this.#metricsProvider;
      this.#queue = new RateLimitingQueue<string>({
        clock: this.#clock,
        name: this.name,
        ...(rateLimiter !== undefined ? { rateLimiter } : {}),
        ...(metrics !== undefined ? { metrics } : {}),
      });
    }
    return this.#queue;
  }

  /**
   * Waits until every watched informer synced, `signal` aborts (then resolves), or the
   * cache sync timeout passes on the controller's clock (controller-runtime's
   * `CacheSyncTimeout`, `pkg/internal/controller/controller.go`).
   *
   * @throws {ControllerLifecycleError} `CacheSyncFailed` or `CacheSyncTimeout`, naming the
   *   informers that have not synced.
   */
  async #waitForSources(signal: AbortSignal): Promise<void> {
    const registrations = this.#sources.map((source) => source.registration);
    if (registrations.every((registration) => registration.hasSynced())) return;
    const timedOut = new AbortController();
    const timer = this.#clock.setTimer(this.#cacheSyncTimeoutMs, () => timedOut.abort());
    let synced: boolean;
    try {
      synced = await waitForCacheSync(AbortSignal.any([signal, timedOut.signal]), ...registrations);
    } finally {
      timer.cancel();
    }
    if (synced || signal.aborted) return;
    const pending = this.#sources
      .filter(({ registration }) => !registration.hasSynced())
      .map(({ informer }) => informer);
    if (timedOut.signal.aborted) {
      throw new ControllerLifecycleError(
        "CacheSyncTimeout",
        this.name,
        `timed out after ${this.#cacheSyncTimeoutMs} ms waiting for the caches of informer(s) ${pending.join(", ")} to sync (is their informer factory started, or added to the manager?)`,
        pending,
      );
    }
    throw new ControllerLifecycleError(
      "CacheSyncFailed",
      this.name,
      `informer(s) ${pending.join(", ")} stopped before their caches synced`,
      pending,
    );
  }

  #addSource<T>(
    informer: WatchedInformer<T>,
    source: { map: MapFunc<T>; mapsToOwnKey: boolean; predicates: readonly Predicate<T>[] },
  ): void {
    if (this.#state === "stopped") {
      throw new ControllerLifecycleError("Stopped", this.name, "the controller has stopped");
    }
    const handler = enqueueHandler<T>({
      ...source,
      enqueue: (key) => this.#workQueue().add(key),
      logger: this.#log,
      context: { controller: this.name, informer: informer.name },
    });
    this.#sources.push({
      informer: informer.name,
      registration: informer.addEventHandler(handler),
    });
  }

  /**
   * One worker: takes keys until `signal` aborts or the queue is shut down. While keys are
   * queued and reconciles complete without I/O, every `await` resolves in a microtask, so
   * the worker yields to the event loop once it has held it for a slice (`EventLoopSlice`):
   * a backlog never blocks timers, sockets or health probes for longer.
   */
  async #work(signal: AbortSignal): Promise<void> {
    const slice = new EventLoopSlice(this.#clock);
    while (!signal.aborted) {
      if (slice.due) await slice.yield();
      let key: string;
      try {
        const [item, shutdown] = await this.#workQueue().get(signal);
        if (shutdown) return;
        key = item;
      } catch {
        return; // get() rejects only when `signal` aborts.
      }
      this.#metrics?.activeWorkers.inc();
      try {
        if (!signal.aborted) await this.#reconcileKey(key, signal);
      } finally {
        this.#metrics?.activeWorkers.dec();
        this.#workQueue().done(key);
      }
    }
  }

  /** Runs the reconciler for `key`, applies its outcome to the queue and records it; never throws. */
  async #reconcileKey(key: string, signal: AbortSignal): Promise<void> {
    const startedAt = this.#metrics !== undefined ? this.#clock.now() : 0;
    const [outcome, terminal] = await this.#runReconcile(key, signal);
    this.#metrics?.reconciled(outcome, (this.#clock.now() - startedAt) / 1000, terminal);
  }

  /** Runs the reconciler and applies its outcome; resolves with the outcome's metric label and whether it was a terminal error. */
  async #runReconcile(key: string, signal: AbortSignal): Promise<[ReconcileOutcome, boolean]> {
    const fields = { controller: this.name, key };
    let result: ReconcileResult | void;
    try {
      result = await this.#reconcile(key, signal);
    } catch (error) {
      if (isTerminalError(error)) {
        this.#logger.error("reconcile failed with a terminal error; not requeued", {
          ...fields,
          error,
        });
        this.#workQueue().forget(key);
        return ["error", true];
      } else if (signal.aborted && error === signal.reason) {
        this.#logger.debug("reconcile aborted: the controller is stopping", fields);
      } else {
        this.#logger.error("reconcile failed; requeued with backoff", {
          ...fields,
          error,
          requeues: this.#workQueue().numRequeues(key),
        });
        this.#workQueue().addRateLimited(key);
      }
      return ["error", false];
    }
    const after = result?.requeueAfterMs;
    if (typeof after === "number" && after > 0) {
      this.#workQueue().forget(key);
      this.#workQueue().addAfter(key, after);
      return ["requeue_after", false];
    }
    if (result?.requeue === true) {
      this.#workQueue().addRateLimited(key);
      return ["requeue", false];
    }
    this.#workQueue().forget(key);
    return ["success", false];
  }
}
