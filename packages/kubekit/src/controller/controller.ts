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
  /** Time source of the queue's delays and of the default rate limiter (default: the real clock). */
  readonly clock?: Clock;
  /** Where the controller logs (default: the console logger). */
  readonly logger?: Logger;
  /**
   * Where the work queue's metrics go, under the controller's name (client-go's workqueue
   * metric set: depth, adds, latency, work duration, unfinished work, retries), and, when the
   * provider has `newReconcileMetrics` (e.g. a {@link Manager}'s `metrics`), the reconcile
   * metrics (controller-runtime's: outcomes, errors, durations on the controller's clock,
   * workers); default none.
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
 * The controller does not start informers: start them yourself (e.g. `factory.start`),
 * before or after calling `run`. Add watches before `run` (a watch added later is not waited
 * for). Keys enqueued before `run` wait in the queue and are reconciled after the sync.
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
  readonly #queue: RateLimitingQueue<string>;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #metrics: ReconcileMetrics | undefined;
  readonly #registrations: EventHandlerRegistration[] = [];
  #state: "new" | "running" | "stopped" = "new";

  /**
   * @throws {TypeError} when `name` is empty or `reconcile` is not a function.
   * @throws {RangeError} when `workers` is not an integer >= 1.
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
    this.name = options.name;
    this.workers = workers;
    this.#reconcile = options.reconcile;
    this.#logger = options.logger ?? consoleLogger;
    this.#clock = options.clock ?? realClock;
    this.#metrics = options.metrics?.newReconcileMetrics?.(options.name);
    this.#metrics?.setMaxConcurrentReconciles(workers);
    this.#queue = new RateLimitingQueue<string>({
      clock: this.#clock,
      name: options.name,
      ...(options.rateLimiter !== undefined ? { rateLimiter: options.rateLimiter } : {}),
      ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
    });
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
   * @throws {ControllerLifecycleError} (`Stopped`) once {@link run} has finished.
   * @throws {InformerLifecycleError} (`Stopped`) when the informer has stopped.
   */
  watchOwned<T extends ObjectWithMetadata>(
    informer: WatchedInformer<T>,
    owner: WatchOwnedOptions<T>,
  ): void {
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
    this.#queue.add(key);
  }

  /**
   * Queues `key` for a reconcile in `ms` milliseconds (at once when `ms <= 0`); a key already
   * waiting keeps the earlier time. Ignored once {@link run} has finished. The wait is a timer
   * on the controller's clock that keeps the process alive until it fires or `run` ends.
   */
  enqueueAfter(key: string, ms: number): void {
    this.#queue.addAfter(key, ms);
  }

  /**
   * Waits for the watched informers to sync, then reconciles with {@link workers} workers
   * until `signal` aborts; resolves once every running reconcile has settled and the queue
   * is shut down. Never rejects because of a reconcile. Resolves at once (without
   * reconciling) when `signal` aborts while waiting for the sync.
   *
   * @throws {ControllerLifecycleError} (as a rejection) `AlreadyStarted` when called again;
   *   `CacheSyncFailed` when a watched informer stops before it synced.
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
    const context = { controller: this.name };
    try {
      const synced = await waitForCacheSync(signal, ...this.#registrations);
      if (signal.aborted) return;
      if (!synced) {
        throw new ControllerLifecycleError(
          "CacheSyncFailed",
          this.name,
          "a watched informer stopped before its cache synced",
        );
      }
      this.#logger.info("controller: starting workers", { ...context, workers: this.workers });
      const workers = Array.from({ length: this.workers }, () => this.#work(signal));
      await Promise.all(workers);
      this.#logger.info("controller: all workers finished", context);
    } finally {
      for (const registration of this.#registrations) registration.remove();
      this.#queue.shutDown();
      this.#state = "stopped";
    }
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
      enqueue: (key) => this.#queue.add(key),
      logger: this.#logger,
      context: { controller: this.name, informer: informer.name },
    });
    this.#registrations.push(informer.addEventHandler(handler));
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
        const [item, shutdown] = await this.#queue.get(signal);
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
        this.#queue.done(key);
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
        this.#queue.forget(key);
        return ["error", true];
      } else if (signal.aborted && error === signal.reason) {
        this.#logger.debug("reconcile aborted: the controller is stopping", fields);
      } else {
        this.#logger.error("reconcile failed; requeued with backoff", {
          ...fields,
          error,
          requeues: this.#queue.numRequeues(key),
        });
        this.#queue.addRateLimited(key);
      }
      return ["error", false];
    }
    const after = result?.requeueAfterMs;
    if (typeof after === "number" && after > 0) {
      this.#queue.forget(key);
      this.#queue.addAfter(key, after);
      return ["requeue_after", false];
    }
    if (result?.requeue === true) {
      this.#queue.addRateLimited(key);
      return ["requeue", false];
    }
    this.#queue.forget(key);
    return ["success", false];
  }
}
