/**
 * The controller: informer notifications → keys → a rate-limited work queue → N workers
 * calling a reconciler (controller-runtime's `pkg/internal/controller/controller.go`, the
 * loop of client-go's `examples/workqueue`).
 */
import { randomUUID } from "node:crypto";
import type { MetadataView } from "./handler/metadata-view.js";
import type { CacheSyncSource } from "../cache/wait-for-cache-sync.js";
import { waitForCacheSync } from "../cache/wait-for-cache-sync.js";
import type { Clock } from "../core/clock.js";
import { realClock } from "../core/clock.js";
import { EventLoopSlice } from "../core/event-loop-slice.js";
import type { Logger } from "../core/logger.js";
import { consoleLogger, withLogFields } from "../core/logger.js";
import { splitObjectKey } from "../core/object-key.js";
import type { QueueAddOptions, RateLimiter } from "../workqueue/index.js";
import { PriorityQueue, RateLimitingQueue } from "../workqueue/index.js";
import { ControllerLifecycleError } from "./controller-errors.js";
import type {
  ControllerMetricsProvider,
  ReconcileMetrics,
  ReconcileOutcome,
} from "./metrics/controller-metrics.js";
import type { EventHandler, ReconcileQueue } from "./handler/event-handler.js";
import type { EnqueueForOwnerOptions, MapFunc } from "./handler/enqueue-handler.js";
import { enqueueForObject, enqueueForOwner, enqueueFromMap } from "./handler/enqueue-handler.js";
import type { Predicate } from "./handler/predicate.js";
import type { ReconcileContext, ReconcileResult, Reconciler } from "./reconciler.js";
import { isReconcilePanic } from "./reconcile-panic.js";
import type { WatchedInformer } from "./source/kind-source.js";
import { kindSource } from "./source/kind-source.js";
import type { Source, SourceContext } from "./source/source.js";
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
  /**
   * How long a reconcile may run (controller-runtime's `ReconciliationTimeout`; default: no
   * limit). When it has passed, the signal the reconcile received aborts with a
   * `TimeoutError` DOMException, `controller_runtime_reconcile_timeouts_total` counts it, and
   * a reconcile that then rejects is retried with the rate limiter's backoff (its result is
   * used if it completes anyway). On the controller's clock.
   */
  readonly reconcileTimeoutMs?: number;
  /**
   * Use the priority queue (controller-runtime's `UsePriorityQueue`, default false): keys
   * are handed out highest priority first. The built-in handlers add the objects of an
   * informer's initial list (the state found at start, e.g. after a restart) and updates
   * that changed nothing (resyncs) at `LOW_PRIORITY`, so that changes made meanwhile are
   * reconciled first; a requeue keeps the key's priority unless the result sets `priority`.
   */
  readonly priorityQueue?: boolean;
  /**
   * Whether a {@link Manager} with leader election runs the controller only while its
   * replica leads (default true; controller-runtime's `NeedLeaderElection`). `false`: every
   * replica runs it (e.g. a controller that only reads, or writes per-replica state).
   */
  readonly needLeaderElection?: boolean;
}

/** Options of {@link Controller.watch}. */
export interface ControllerWatchOptions<T> {
  /** Maps an object to the keys to reconcile (default: the object's own key, `ns/name`). */
  readonly map?: MapFunc<T>;
  /**
   * Turns the notifications into keys (default: `enqueueFromMap(map)` with `map`, else
   * `enqueueForObject()`); not together with `map`.
   */
  readonly handler?: EventHandler<T>;
  /** Filters of the notifications; all must let one through (default: none, all pass). */
  readonly predicates?: readonly Predicate<T>[];
}

/**
 * Options of {@link Controller.watchOwned}: the owner kind, which owner references count
 * (`onlyController`, default true), and filters.
 */
export interface WatchOwnedOptions<T> extends EnqueueForOwnerOptions {
  /** Filters of the owned objects' notifications; all must let one through. */
  readonly predicates?: readonly Predicate<T>[];
}

/** The queue of a controller: the plain rate-limiting one, or the priority queue. */
type WorkQueue = RateLimitingQueue<string> | PriorityQueue<string>;

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
 * - **Per reconcile**: a new `reconcileID` (a UUID) and a child logger with the fields
 *   `controller`, `namespace`, `name` and `reconcileID`, given to the reconciler in its
 *   {@link ReconcileContext} and used for the controller's own messages about the reconcile;
 *   an optional `reconcileTimeoutMs` aborts the reconcile's signal.
 * - **Panics**: a reconcile that throws a non-`Error` or an ECMAScript programming error
 *   (`TypeError`, `ReferenceError`, ...; see `reconcile-panic.ts`), and any throw of a
 *   predicate, handler or map function, are recovered, logged and counted in
 *   `controller_runtime_reconcile_panics_total`; a reconcile's panic is retried as an error.
 * - **Start**: {@link run} starts the sources given to {@link watchSource}, then waits until
 *   every watched informer (and syncing source) has synced and delivered its initial
 *   objects, so the first reconcile sees a complete cache.
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
  /** Whether a manager runs it on the leader only (the `needLeaderElection` option). */
  readonly needLeaderElection: boolean;
  readonly #reconcile: Reconciler;
  readonly #options: ControllerOptions;
  readonly #cacheSyncTimeoutMs: number;
  readonly #reconcileTimeoutMs: number | undefined;
  /** Created on first use ({@link #workQueue}), with the metrics and clock known then. */
  #queue: WorkQueue | undefined;
  #logger: Logger;
  #clock: Clock;
  #metricsProvider: ControllerMetricsProvider | undefined;
  #metrics: ReconcileMetrics | undefined;
  #awaitInformers: ManagerDefaults["awaitInformers"] | undefined;
  /** Every source: started ones and those {@link run} starts. */
  readonly #sources: Source[] = [];
  /** Sources given to {@link watchSource} before {@link run}: started by `run`. */
  readonly #unstarted: Source[] = [];
  /** Aborted when {@link run} ends: stops every started source. */
  readonly #lifetime = new AbortController();
  #state: "new" | "running" | "stopped" = "new";
  /** Logs to the current {@link #logger}, which a manager may replace after a watch was added. */
  readonly #log: Logger = {
    debug: (message, fields) => this.#logger.debug(message, fields),
    info: (message, fields) => this.#logger.info(message, fields),
    warn: (message, fields) => this.#logger.warn(message, fields),
    error: (message, fields) => this.#logger.error(message, fields),
  };
  /** The queue as sources and handlers see it. */
  readonly #sourceQueue: ReconcileQueue = {
    add: (key, options) => this.#add(key, options),
  };

  /**
   * @throws {TypeError} when `name` is empty or `reconcile` is not a function.
   * @throws {RangeError} when `workers` is not an integer >= 1, or `cacheSyncTimeoutMs` or
   *   `reconcileTimeoutMs` not a positive number.
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
    const reconcileTimeoutMs = options.reconcileTimeoutMs;
    if (reconcileTimeoutMs !== undefined && !(reconcileTimeoutMs > 0)) {
      throw new RangeError(
        `controller ${options.name}: reconcileTimeoutMs must be > 0, got ${reconcileTimeoutMs}`,
      );
    }
    this.name = options.name;
    this.workers = workers;
    this.needLeaderElection = options.needLeaderElection ?? true;
    this.#reconcile = options.reconcile;
    this.#options = options;
    this.#cacheSyncTimeoutMs = cacheSyncTimeoutMs;
    this.#reconcileTimeoutMs = reconcileTimeoutMs;
    this.#logger = options.logger ?? consoleLogger;
    this.#clock = options.clock ?? realClock;
    if (options.metrics !== undefined) this.#useMetrics(options.metrics);
    onManagerAdd(this, (defaults) => this.#inject(defaults));
  }

  /**
   * Reconciles the keys of `informer`'s objects: by default each object's own key (a
   * deletion inferred from a relist enqueues its tombstone's key), or the keys `map` gives
   * (`watch(informer, map)` or `watch(informer, { map, predicates })`), or those of any
   * `handler`. Predicates filter the notifications first. The handler is registered on the
   * informer at once (`kindSource`), and removed when {@link run} ends. The informer may be
   * a lazy one (objects `LazyObject<T>`): the built-in handlers and predicates read only the
   * metadata, so no body is parsed to enqueue keys.
   *
   * @throws {TypeError} when both `map` and `handler` are given.
   * @throws {ControllerLifecycleError} (`Stopped`) once {@link run} has finished.
   * @throws {InformerLifecycleError} (`Stopped`) when the informer has stopped.
   */
  watch<T extends MetadataView>(
    informer: WatchedInformer<T>,
    mapOrOptions: MapFunc<T> | ControllerWatchOptions<T> = {},
  ): void {
    const options: ControllerWatchOptions<T> =
      typeof mapOrOptions === "function" ? { map: mapOrOptions } : mapOrOptions;
    const { map, handler } = options;
    if (map !== undefined && handler !== undefined) {
      throw new TypeError(`controller ${this.name}: watch takes a map or a handler, not both`);
    }
    const chosen = handler ?? (map !== undefined ? enqueueFromMap(map) : enqueueForObject<T>());
    this.#startNow(kindSource(informer, chosen, { predicates: options.predicates ?? [] }));
  }

  /**
   * Reconciles the owners of `informer`'s objects (controller-runtime's `Owns`, with
   * `enqueueForOwner`): the key of each object's controller owner reference
   * (`controller: true`) whose group and kind are `owner.group` and `owner.kind`, or of every
   * owner reference of that kind with `onlyController: false`. An update enqueues the owners
   * of both the old and the new object, so an owner that lost the object hears of it too.
   * Objects without such an owner are ignored, as are tombstones without a last known state.
   * The owner is looked up in the object's namespace, unless `owner.clusterScoped`.
   *
   * @throws {TypeError} when `owner.kind` is not a non-empty string or `owner.group` not a
   *   string (`""` is the core group): controller-runtime's `EnqueueRequestForOwner` refuses
   *   an owner type without a kind the same way.
   * @throws {ControllerLifecycleError} (`Stopped`) once {@link run} has finished.
   * @throws {InformerLifecycleError} (`Stopped`) when the informer has stopped.
   */
  watchOwned<T extends MetadataView>(
    informer: WatchedInformer<T>,
    owner: WatchOwnedOptions<T>,
  ): void {
    let handler: EventHandler<T>;
    try {
      handler = enqueueForOwner<T>(owner);
    } catch (error) {
      throw new TypeError(`controller ${this.name}: ${(error as Error).message}`);
    }
    this.#startNow(kindSource(informer, handler, { predicates: owner.predicates ?? [] }));
  }

  /**
   * Adds a source of keys (controller-runtime's `Controller.Watch`): a `kindSource`, a
   * `channelSource`, a `funcSource` or any {@link Source}. Given before {@link run}, it is
   * started when `run` begins (a failure to start rejects `run` with `SourceStartFailed`) and,
   * when it syncs, waited for with the informers; given while running, it is started at once
   * (a failure is logged) and not waited for.
   *
   * @throws {TypeError} when `source` has no `name` or no `start` function.
   * @throws {ControllerLifecycleError} (`Stopped`) once {@link run} has finished.
   */
  watchSource(source: Source): void {
    const candidate = source as Partial<Source> | null | undefined;
    if (typeof candidate?.name !== "string" || typeof candidate.start !== "function") {
      throw new TypeError(
        `controller ${this.name}: watchSource needs a Source (a name and a start function)`,
      );
    }
    this.#ensureNotStopped();
    this.#sources.push(source);
    if (this.#state === "new") {
      this.#unstarted.push(source);
      return;
    }
    this.#startSource(source).catch((error: unknown) =>
      this.#logger.error("controller: a source failed to start", {
        controller: this.name,
        source: source.name,
        error,
      }),
    );
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
   * Starts the sources given to {@link watchSource}, waits for the watched informers and
   * syncing sources to sync, then reconciles with {@link workers} workers until `signal`
   * aborts; resolves once every running reconcile has settled, the sources are stopped and
   * the queue is shut down. Never rejects because of a reconcile. Resolves at once (without
   * reconciling) when `signal` aborts while waiting for the sync.
   *
   * @throws {ControllerLifecycleError} (as a rejection) `AlreadyStarted` when called again;
   *   `SourceStartFailed` when a source failed to start; `CacheSyncFailed` when a watched
   *   informer stops before it synced; `CacheSyncTimeout` when they have not all synced
   *   within `cacheSyncTimeoutMs` (its `informers` name the ones that have not).
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
    const awaited: AwaitedInformer[] = this.#syncing().map((source) => ({
      informer: source.name,
      hasSynced: () => source.hasSynced(),
    }));
    const stopAwaiting = this.#awaitInformers?.(this.name, awaited);
    try {
      for (const source of this.#unstarted.splice(0)) await this.#startSource(source);
      await this.#waitForSources(signal);
      if (signal.aborted) return;
      this.#logger.info("controller: starting workers", { ...context, workers: this.workers });
      const workers = Array.from({ length: this.workers }, () => this.#work(signal));
      await Promise.all(workers);
      this.#logger.info("controller: all workers finished", context);
    } finally {
      stopAwaiting?.();
      this.#lifetime.abort();
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
  #workQueue(): WorkQueue {
    if (this.#queue === undefined) {
      const { rateLimiter } = this.#options;
      const metrics = this.#metricsProvider;
      const options = {
        clock: this.#clock,
        name: this.name,
        ...(rateLimiter !== undefined ? { rateLimiter } : {}),
        ...(metrics !== undefined ? { metrics } : {}),
      };
      this.#queue =
        this.#options.priorityQueue === true
          ? new PriorityQueue<string>(options)
          : new RateLimitingQueue<string>(options);
    }
    return this.#queue;
  }

  /** Adds `key` as `options` say; the plain queue ignores the priority. */
  #add(key: string, options: QueueAddOptions | undefined): void {
    const queue = this.#workQueue();
    if (queue instanceof PriorityQueue) {
      queue.addWithOptions(options ?? {}, key);
    } else if (options?.rateLimited === true) {
      queue.addRateLimited(key);
    } else if (options?.afterMs !== undefined && options.afterMs > 0) {
      queue.addAfter(key, options.afterMs);
    } else {
      queue.add(key); // not addAfter(key, 0): that counts a retry in the metrics
    }
  }

  #ensureNotStopped(): void {
    if (this.#state === "stopped") {
      throw new ControllerLifecycleError("Stopped", this.name, "the controller has stopped");
    }
  }

  /** Starts an informer source at once (its start is synchronous and throws synchronously). */
  #startNow(source: Source): void {
    this.#ensureNotStopped();
    void source.start(this.#sourceQueue, this.#lifetime.signal, this.#sourceContext(source));
    this.#sources.push(source);
  }

  /** Starts `source`; rejects with `SourceStartFailed` when it throws or rejects. */
  async #startSource(source: Source): Promise<void> {
    this.#logger.info("controller: starting source", {
      controller: this.name,
      source: source.name,
    });
    try {
      await source.start(this.#sourceQueue, this.#lifetime.signal, this.#sourceContext(source));
    } catch (error) {
      throw new ControllerLifecycleError(
        "SourceStartFailed",
        this.name,
        `source ${source.name} failed to start: ${String(error)}`,
        [source.name],
        { cause: error },
      );
    }
  }

  /** What `source` is started with: a logger naming it, and the panic recovery. */
  #sourceContext(source: Source): SourceContext {
    const fields = { controller: this.name, source: source.name };
    return {
      logger: withLogFields(this.#log, fields),
      recover: (error, event) => {
        this.#metrics?.panicked();
        this.#logger.error(
          "controller: observed a panic in a source's predicate or handler; event dropped",
          {
            ...fields,
            event,
            error,
          },
        );
      },
    };
  }

  /** The sources the controller waits on: those that sync. */
  #syncing(): (Source & CacheSyncSource)[] {
    return this.#sources.filter(
      (source): source is Source & CacheSyncSource => typeof source.hasSynced === "function",
    );
  }

  /**
   * Waits until every syncing source synced, `signal` aborts (then resolves), or the
   * cache sync timeout passes on the controller's clock (controller-runtime's
   * `CacheSyncTimeout`, `pkg/internal/controller/controller.go`).
   *
   * @throws {ControllerLifecycleError} `CacheSyncFailed` or `CacheSyncTimeout`, naming the
   *   informers that have not synced.
   */
  async #waitForSources(signal: AbortSignal): Promise<void> {
    const syncing = this.#syncing();
    if (syncing.every((source) => source.hasSynced())) return;
    const timedOut = new AbortController();
    const timer = this.#clock.setTimer(this.#cacheSyncTimeoutMs, () => timedOut.abort());
    let synced: boolean;
    try {
      synced = await waitForCacheSync(AbortSignal.any([signal, timedOut.signal]), ...syncing);
    } finally {
      timer.cancel();
    }
    if (synced || signal.aborted) return;
    const pending = syncing.filter((source) => !source.hasSynced()).map(({ name }) => name);
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

  /**
   * One worker: takes keys until `signal` aborts or the queue is shut down. While keys are
   * queued and reconciles complete without I/O, every `await` resolves in a microtask, so
   * the worker yields to the event loop once it has held it for a slice (`EventLoopSlice`):
   * a backlog never blocks timers, sockets or health probes for longer.
   */
  async #work(signal: AbortSignal): Promise<void> {
    const slice = new EventLoopSlice(this.#clock);
    const queue = this.#workQueue();
    while (!signal.aborted) {
      if (slice.due) await slice.yield();
      let key: string;
      let priority = 0;
      try {
        if (queue instanceof PriorityQueue) {
          const [item, itemPriority, shutdown] = await queue.getWithPriority(signal);
          if (shutdown) return;
          key = item;
          priority = itemPriority;
        } else {
          const [item, shutdown] = await queue.get(signal);
          if (shutdown) return;
          key = item;
        }
      } catch {
        return; // get() rejects only when `signal` aborts.
      }
      this.#metrics?.activeWorkers.inc();
      try {
        if (!signal.aborted) await this.#reconcileKey(key, priority, signal);
      } finally {
        this.#metrics?.activeWorkers.dec();
        queue.done(key);
      }
    }
  }

  /** Runs the reconciler for `key`, applies its outcome to the queue and records it; never throws. */
  async #reconcileKey(key: string, priority: number, signal: AbortSignal): Promise<void> {
    const startedAt = this.#metrics !== undefined ? this.#clock.now() : 0;
    const context = this.#reconcileContext(key, priority);
    const [outcome, terminal] = await this.#runReconcile(context, key, signal);
    this.#metrics?.reconciled(outcome, (this.#clock.now() - startedAt) / 1000, terminal);
  }

  /** A new reconcile's ID and child logger (controller-runtime's `reconcileHandler`). */
  #reconcileContext(key: string, priority: number): ReconcileContext {
    let namespace = "";
    let name = key;
    try {
      ({ namespace, name } = splitObjectKey(key));
    } catch {
      // A key enqueued by hand that is not `ns/name`: logged whole as the name.
    }
    const reconcileID = randomUUID();
    const logger = withLogFields(this.#logger, {
      controller: this.name,
      namespace,
      name,
      reconcileID,
    });
    return { controller: this.name, namespace, name, reconcileID, logger, priority };
  }

  /**
   * Calls the reconciler with its signal: `signal`, and the reconcile timeout when set (a
   * timeout is counted in the metrics). Resolves with what it returned, or rejects with what
   * it threw.
   */
  async #callReconciler(
    context: ReconcileContext,
    key: string,
    signal: AbortSignal,
  ): Promise<ReconcileResult | void> {
    const timeoutMs = this.#reconcileTimeoutMs;
    if (timeoutMs === undefined) return await this.#reconcile(key, signal, context);
    const aborter = new AbortController();
    const onStop = (): void => aborter.abort(signal.reason);
    if (signal.aborted) onStop();
    else signal.addEventListener("abort", onStop, { once: true });
    let timedOut = false;
    const timer = this.#clock.setTimer(timeoutMs, () => {
      timedOut = true;
      aborter.abort(new DOMException(`reconcile timed out after ${timeoutMs} ms`, "TimeoutError"));
    });
    try {
      return await this.#reconcile(key, aborter.signal, context);
    } finally {
      timer.cancel();
      signal.removeEventListener("abort", onStop);
      if (timedOut) this.#metrics?.timedOut();
    }
  }

  /** Runs the reconciler and applies its outcome; resolves with the outcome's metric label and whether it was a terminal error. */
  async #runReconcile(
    context: ReconcileContext,
    key: string,
    signal: AbortSignal,
  ): Promise<[ReconcileOutcome, boolean]> {
    const queue = this.#workQueue();
    const log = context.logger;
    let result: ReconcileResult | void;
    try {
      result = await this.#callReconciler(context, key, signal);
    } catch (error) {
      if (isTerminalError(error)) {
        log.error("reconcile failed with a terminal error; not requeued", { error });
        queue.forget(key);
        return ["error", true];
      }
      if (signal.aborted && error === signal.reason) {
        log.debug("reconcile aborted: the controller is stopping");
        return ["error", false];
      }
      if (isReconcilePanic(error)) {
        this.#metrics?.panicked();
        log.error("observed a panic in reconciler; requeued with backoff", {
          error,
          requeues: queue.numRequeues(key),
        });
      } else {
        log.error("reconcile failed; requeued with backoff", {
          error,
          requeues: queue.numRequeues(key),
        });
      }
      this.#add(key, { rateLimited: true, priority: context.priority });
      return ["error", false];
    }
    const priority = result?.priority ?? context.priority;
    const after = result?.requeueAfterMs;
    if (typeof after === "number" && after > 0) {
      queue.forget(key);
      this.#add(key, { afterMs: after, priority });
      return ["requeue_after", false];
    }
    if (result?.requeue === true) {
      this.#add(key, { rateLimited: true, priority });
      return ["requeue", false];
    }
    queue.forget(key);
    return ["success", false];
  }
}
