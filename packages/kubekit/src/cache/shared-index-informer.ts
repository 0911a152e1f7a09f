/**
 * The SharedIndexInformer (client-go's `tools/cache.sharedIndexInformer`): one Reflector
 * feeding one queue, a cache (Indexer) updated from it, and any number of independently
 * buffered event handlers.
 */
import type { Clock } from "../core/clock.js";
import { realClock } from "../core/clock.js";
import { EventLoopSlice } from "../core/event-loop-slice.js";
import type { Logger } from "../core/logger.js";
import { consoleLogger } from "../core/logger.js";
import { hasMetadata, resourceVersionOf } from "../core/object-metadata.js";
import type { Deltas, ReplacedAllInfo } from "./delta.js";
import { DeltaFIFO } from "./delta-fifo.js";
import type { CacheIndexer } from "./indexer.js";
import { createIndexer } from "./indexer.js";
import { InformerLifecycleError } from "./informer-errors.js";
import type { InformerQueue, PopProcessFunc } from "./informer-queue.js";
import { QUEUE_CLOSED } from "./informer-queue.js";
import type { ListerWatcher } from "./lister-watcher.js";
import { freezeCached } from "./lazy/lazy-json-object.js";
import { NAMESPACE_INDEX, namespaceIndexFunc } from "./namespace-index.js";
import type { DeltaHandler } from "./process-deltas.js";
import { processDeltas, processReplacedAllSliced } from "./process-deltas.js";
import { ProcessorListener } from "./processor-listener.js";
import { RealFIFO } from "./real-fifo.js";
import type { BackoffPolicy } from "../core/backoff.js";
import { Reflector } from "./reflector.js";
import type { ReflectorStore } from "./reflector-store.js";
import type { EventHandlerRegistration, ResourceEventHandler } from "./resource-event-handler.js";
import {
  MINIMUM_RESYNC_PERIOD_MS,
  SharedProcessor,
  determineResyncPeriod,
} from "./shared-processor.js";
import type { IndexFunc, Indexer, Indexers, KeyFunc } from "./store.js";
import { SyncWaiters } from "./sync-waiters.js";
import type { DeletedFinalStateUnknown } from "./tombstone.js";
import { deletionHandlingKey } from "./tombstone.js";

export type { EventHandlerRegistration, ResourceEventHandler } from "./resource-event-handler.js";
export { DeletedFinalStateUnknown } from "./tombstone.js";
export { stripManagedFields } from "./strip-managed-fields.js";
export { InformerLifecycleError } from "./informer-errors.js";

/** Reflector settings an informer passes through (see `ReflectorOptions`); durations in ms. */
export interface InformerReflectorOptions {
  /** Start each (re)list with a streaming list (WatchList), retried or falling back to a list (default false). */
  readonly useWatchList?: boolean;
  /** Page size of lists (default: client-go's rule, 500 or unpaginated at a specific RV). */
  readonly pageSize?: number;
  /** Watches last a random time in [min, 2×min) (default 5 minutes). */
  readonly minWatchTimeoutMs?: number;
  /** Grace beyond a watch's timeout before a silent watch counts as half-open (default 30 s). */
  readonly idleGraceMs?: number;
  /** How long a WatchList may take to send its end bookmark before falling back (default 30 s). */
  readonly watchListEndTimeoutMs?: number;
  /** The reflector's retry backoff (default client-go's: 800 ms doubling to 30 s, jittered, reset after 2 min). */
  readonly backoff?: BackoffPolicy;
}

/** Settings of a {@link SharedIndexInformer}. */
export interface SharedIndexInformerOptions<T> {
  /** Where objects come from (e.g. `listerWatcherFor(client, { group, version, resource })`). */
  readonly listerWatcher: ListerWatcher<T>;
  /** Used in log messages and errors, e.g. `"pods"` (default `"informer"`). */
  readonly name?: string;
  /**
   * The informer's resync period, in ms: the default period of handlers and the initial
   * resync check period (default 0 = never resync, whatever handlers ask for).
   */
  readonly resyncPeriodMs?: number;
  /**
   * Extra indices of the cache. The namespace index (`NAMESPACE_INDEX`) is always added; an
   * entry with that name here replaces its function.
   */
  readonly indexers?: Indexers<T>;
  /**
   * The queue between reflector and cache: `"in-order"` (default; client-go's RealFIFO in
   * atomic mode: one entry per event in arrival order, a relist applied to the cache at once)
   * or `"delta-fifo"` (the classic DeltaFIFO: changes grouped per key, so changes to
   * different keys are reordered).
   */
  readonly queue?: "in-order" | "delta-fifo";
  /** Applied to every object before it is cached (see {@link SharedIndexInformer.setTransform}). */
  readonly transform?: (obj: T) => T;
  /**
   * Development mode: deep-freeze every object as it enters the cache, so that mutating an
   * object handed out by the cache, a lister or a handler throws a `TypeError` (in strict
   * code, which every ES module is). Default false. A lazy object (`LazyObject`) has its
   * metadata frozen as it enters, and its body when it is parsed; its bytes are never
   * handed out.
   */
  readonly detectMutations?: boolean;
  /** Time source of resync and of the reflector's backoff (default: the real clock). */
  readonly clock?: Clock;
  /** Where diagnostics go (default: the console logger). */
  readonly logger?: Logger;
  /** Reflector settings. */
  readonly reflector?: InformerReflectorOptions;
}

/**
 * Where an informer is in its life, which decides what each method may do:
 * - `new`: {@link SharedIndexInformer.run} not called yet; `setTransform`,
 *   `setWatchErrorHandler` and handlers with a shorter resync period are still accepted;
 * - `running`: listing and watching; a new handler first gets the cached objects replayed;
 * - `stopping`: the reflector and the queue processing have ended (`run`'s signal aborted, or
 *   its start failed) and the handlers' delivery loops are being stopped; no handler can be
 *   added;
 * - `stopped`: everything stopped, `run` is resolving; no handler or index can be added, and
 *   sync waits resolve `false`.
 * A phase only moves forward, in this order.
 */
type InformerPhase = "new" | "running" | "stopping" | "stopped";

/**
 * An update that did not change the resourceVersion: a resync, or a relist of an unchanged
 * object. As client-go's processDeltas, two objects with metadata and no resourceVersion
 * count as unchanged; an object without metadata never does.
 */
function isResyncUpdate(oldObj: unknown, newObj: unknown): boolean {
  return (
    hasMetadata(oldObj) &&
    hasMetadata(newObj) &&
    resourceVersionOf(oldObj) === resourceVersionOf(newObj)
  );
}

/** The registration handed out by {@link SharedIndexInformer.addEventHandler}. */
class HandlerRegistration<T> implements EventHandlerRegistration {
  readonly #listener: ProcessorListener<T>;
  readonly #remove: () => void;
  readonly #waiters: SyncWaiters;
  readonly #informerStopped: () => boolean;

  constructor(
    listener: ProcessorListener<T>,
    remove: () => void,
    waiters: SyncWaiters,
    informerStopped: () => boolean,
  ) {
    this.#listener = listener;
    this.#remove = remove;
    this.#waiters = waiters;
    this.#informerStopped = informerStopped;
  }

  get backlog(): number {
    return this.#listener.backlog;
  }

  get resyncPeriodMs(): number {
    return this.#listener.resyncPeriodMs;
  }

  hasSynced(): boolean {
    return this.#listener.hasSynced();
  }

  waitForSync(signal?: AbortSignal): Promise<boolean> {
    return this.#waiters.wait(() => {
      if (this.#listener.hasSynced()) return true;
      if (this.#listener.stopped || this.#informerStopped()) return false;
      return undefined;
    }, signal);
  }

  remove(): void {
    this.#remove();
  }
}

/**
 * Lists and watches one resource into a local cache ({@link indexer}) and notifies any
 * number of handlers of the changes, with client-go's semantics:
 *
 * - **Cache first**: every change is applied to the cache before any handler hears of it,
 *   so a handler (or a lister) reading the cache sees at least that state.
 * - **Independent handlers**: each handler has its own unbounded buffer and is called in
 *   order, one notification at a time, a returned promise being awaited. A slow handler
 *   delays only itself: never another handler, the queue or the reflector (watch its
 *   {@link EventHandlerRegistration.backlog}). Buffers are unbounded: a handler that cannot
 *   keep up grows memory.
 * - **Late handlers**: a handler added after {@link run} first receives every cached object
 *   as `onAdd(obj, true)`, before any later notification and atomically with respect to
 *   event processing (no change can slip between the replay and the live stream).
 * - **Sync**: {@link hasSynced} turns true once the first list has been processed (in-order
 *   queue: after the cache and the handler fan-out of the whole list; DeltaFIFO: when its last
 *   key is popped). A registration's `hasSynced()` additionally waits for that handler to have
 *   finished every initial add.
 * - **Resync**: handler periods (default: the informer's) are raised to 1 s at least; before
 *   `run`, a handler period below the resync check period lowers the check period (and
 *   re-derives every handler's period); after `run`, it is raised to the check period; when
 *   the informer's period is 0 nobody resyncs. Every check period the reflector asks which
 *   handlers are due; if any, every cached object is re-delivered as `onUpdate(obj, obj)` to
 *   the handlers that are due only. Updates that keep the resourceVersion (e.g. a relist of
 *   an unchanged object) are likewise delivered only to handlers flagged at the last check
 *   (every handler until the first check).
 * - **Deletions seen by relist**: objects missing from a relist are deleted from the cache
 *   and delivered as `onDelete(DeletedFinalStateUnknown)`.
 * - **Relists as one step**: with the in-order queue, a relist's new cache content is built
 *   in slices that yield to the event loop (listers and late handlers see the previous,
 *   complete content meanwhile, and no later change is applied), then swapped in at once,
 *   right before its notifications are handed out.
 * - **Failures**: a handler that throws or rejects is logged and the informer goes on
 *   (client-go crashes the process by default). The reflector never gives up (see
 *   `Reflector`); its errors go to the watch error handler.
 *
 * Objects in the cache are shared with every handler and lister: never mutate them (turn on
 * `detectMutations` in development to catch it).
 */
export class SharedIndexInformer<T> {
  /** The informer's name (log messages and errors). */
  readonly name: string;
  /**
   * The cache. Keys are `namespace/name` (or `name`); it always has the namespace index.
   * Treat it as read-only: a write bypasses the handlers and is overwritten by the informer.
   * Its `lastSyncResourceVersion` is the resourceVersion the cache has caught up to (see
   * {@link waitForCacheResourceVersion}).
   */
  readonly indexer: Indexer<T>;
  /** {@link indexer}, with the methods that build a relist's content aside. */
  readonly #cache: CacheIndexer<T>;
  readonly #listerWatcher: ListerWatcher<T>;
  readonly #queue: InformerQueue<T>;
  readonly #processor = new SharedProcessor<T>();
  readonly #waiters = new SyncWaiters();
  readonly #registrations = new WeakSet<EventHandlerRegistration>();
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #reflectorOptions: InformerReflectorOptions;
  readonly #detectMutations: boolean;
  readonly #defaultHandlerResyncPeriodMs: number;
  readonly #deltaHandler: DeltaHandler<T>;
  #resyncCheckPeriodMs: number;
  #transform: ((obj: T) => T) | undefined;
  #watchErrorHandler: ((error: unknown) => void) | undefined;
  #reflector: Reflector<T> | undefined;
  #phase: InformerPhase = "new";

  /** @throws {RangeError} when `resyncPeriodMs` is negative or not finite, or `queue` is unknown. */
  constructor(options: SharedIndexInformerOptions<T>) {
    const resyncPeriodMs = options.resyncPeriodMs ?? 0;
    checkPeriod("resyncPeriodMs", resyncPeriodMs);
    const queueKind = options.queue ?? "in-order";
    if (queueKind !== "in-order" && queueKind !== "delta-fifo") {
      throw new RangeError(`queue must be "in-order" or "delta-fifo", got ${String(queueKind)}`);
    }
    this.name = options.name ?? "informer";
    this.#listerWatcher = options.listerWatcher;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? consoleLogger;
    this.#reflectorOptions = options.reflector ?? {};
    this.#detectMutations = options.detectMutations ?? false;
    this.#transform = options.transform;
    this.#defaultHandlerResyncPeriodMs = resyncPeriodMs;
    this.#resyncCheckPeriodMs = resyncPeriodMs;
    this.#cache = createIndexer<T>({
      keyFunc: deletionHandlingKey as KeyFunc<T>,
      indexers: {
        [NAMESPACE_INDEX]: namespaceIndexFunc as IndexFunc<T>,
        ...options.indexers,
      },
    });
    this.indexer = this.#cache;
    // The reflector applies the transform (see #reflectorStore), so the queue does not.
    this.#queue =
      queueKind === "in-order"
        ? new RealFIFO<T>()
        : new DeltaFIFO<T>({ knownObjects: this.indexer });
    const processor = this.#processor;
    this.#deltaHandler = {
      onAdd: (obj, isInInitialList) =>
        processor.distribute({ type: "add", obj, isInInitialList }, false),
      onUpdate: (oldObj, newObj) =>
        processor.distribute({ type: "update", oldObj, newObj }, isResyncUpdate(oldObj, newObj)),
      onDelete: (obj: T | DeletedFinalStateUnknown<T>) =>
        processor.distribute({ type: "delete", obj }, false),
    };
  }

  /** Whether {@link run} was called. */
  get isStarted(): boolean {
    return this.#phase !== "new";
  }

  /** Whether {@link run} has finished: reflector, queue processing and every handler stopped. */
  get isStopped(): boolean {
    return this.#phase === "stopped";
  }

  /**
   * The resourceVersion the reflector has received up to (last list, watch event or
   * bookmark); `""` before the first list. The queue and the cache may still be behind it:
   * `indexer.lastSyncResourceVersion` is what the cache holds.
   */
  get lastSyncResourceVersion(): string {
    return this.#reflector?.lastSyncResourceVersion ?? "";
  }

  /**
   * How often (ms) the reflector asks which handlers are due for a resync; 0 = never. Fixed
   * once {@link run} has been called.
   */
  get resyncCheckPeriodMs(): number {
    return this.#resyncCheckPeriodMs;
  }

  /**
   * Registers a handler (see the class description for ordering, resync and late-handler
   * semantics). `options.resyncPeriodMs` defaults to the informer's resync period; 0 means
   * this handler never gets resync notifications.
   *
   * @throws {InformerLifecycleError} (`Stopped`) once the informer is stopping or stopped.
   * @throws {RangeError} when `resyncPeriodMs` is negative or not finite.
   */
  addEventHandler(
    handler: ResourceEventHandler<T>,
    options: { readonly resyncPeriodMs?: number } = {},
  ): EventHandlerRegistration {
    if (this.#phase === "stopping" || this.#phase === "stopped") {
      throw new InformerLifecycleError(
        "Stopped",
        this.name,
        "the informer has stopped; no handler can be added",
      );
    }
    let period = options.resyncPeriodMs ?? this.#defaultHandlerResyncPeriodMs;
    checkPeriod("resyncPeriodMs", period);
    if (period > 0) {
      if (period < MINIMUM_RESYNC_PERIOD_MS) {
        this.#logger.info(`${this.name}: resync period raised to the 1 s minimum`, {
          desiredMs: period,
        });
        period = MINIMUM_RESYNC_PERIOD_MS;
      }
      if (period < this.#resyncCheckPeriodMs) {
        if (this.#phase === "running") {
          this.#logger.info(
            `${this.name}: the informer has started; resync period raised to its resync check period`,
            { desiredMs: period, checkPeriodMs: this.#resyncCheckPeriodMs },
          );
          period = this.#resyncCheckPeriodMs;
        } else {
          this.#resyncCheckPeriodMs = period;
          this.#processor.resyncCheckPeriodChanged(period, this.#logger, this.name);
        }
      }
    }
    const listener: ProcessorListener<T> = new ProcessorListener<T>({
      handler,
      requestedResyncPeriodMs: period,
      resyncPeriodMs: determineResyncPeriod(
        period,
        this.#resyncCheckPeriodMs,
        this.#logger,
        this.name,
      ),
      now: this.#clock.now(),
      upstreamHasSynced: () => this.hasSynced(),
      onInitialAddsDelivered: () => this.#waiters.notify(),
      logger: this.#logger,
      clock: this.#clock,
      name: this.name,
    });
    const registration = new HandlerRegistration<T>(
      listener,
      () => {
        this.#processor.remove(listener);
        this.#waiters.notify();
      },
      this.#waiters,
      () => this.#phase === "stopped",
    );
    this.#registrations.add(registration);
    // Synchronous from here on: no delta can be processed between the replay and the
    // registration, so the handler sees the cache, then every later change.
    this.#processor.add(listener);
    if (this.#phase === "running") {
      for (const obj of this.indexer.list()) {
        listener.add({ type: "add", obj, isInInitialList: true });
      }
    }
    return registration;
  }

  /**
   * Same as `registration.remove()`: stops delivery to that handler (idempotent).
   *
   * @throws {TypeError} when the registration was not returned by this informer.
   */
  removeEventHandler(registration: EventHandlerRegistration): void {
    if (!this.#registrations.has(registration)) {
      throw new TypeError(`${this.name}: the registration does not belong to this informer`);
    }
    registration.remove();
  }

  /**
   * Lists and watches until `signal` aborts, keeping the cache and handlers up to date. Resolves
   * once the reflector, the queue processing and every handler's delivery loop have stopped
   * (a handler callback in progress is awaited: one that never settles keeps `run` pending;
   * notifications still buffered are dropped). Never rejects for a failure of the server or a
   * handler.
   *
   * @throws {InformerLifecycleError} (`AlreadyStarted`, as a rejection) when called again.
   * @throws {RangeError} (as a rejection) for invalid reflector options.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#phase !== "new") {
      throw new InformerLifecycleError(
        "AlreadyStarted",
        this.name,
        "run() may only be called once",
      );
    }
    this.#phase = "running";
    try {
      const errorHandler = this.#watchErrorHandler;
      const reflector = new Reflector<T>({
        name: this.name,
        listerWatcher: this.#listerWatcher,
        store: this.#reflectorStore(),
        resyncPeriodMs: this.#resyncCheckPeriodMs,
        shouldResync: () => this.#processor.shouldResync(this.#clock.now()),
        clock: this.#clock,
        logger: this.#logger,
        ...this.#reflectorOptions,
        ...(errorHandler !== undefined ? { watchErrorHandler: (err) => errorHandler(err) } : {}),
      });
      this.#reflector = reflector;
      await Promise.all([reflector.run(signal), this.#processLoop(signal)]);
    } finally {
      this.#phase = "stopping";
      this.#queue.close();
      await this.#processor.stop();
      this.#phase = "stopped";
      this.#waiters.notify();
    }
  }

  /**
   * True once the first list has been processed into the cache (see the class description);
   * false before {@link run}. Does not wait for handlers: use a registration's `hasSynced()`.
   */
  hasSynced(): boolean {
    return this.#queue.hasSynced();
  }

  /**
   * Resolves `true` once {@link hasSynced}; `false` if `signal` aborts or the informer stops
   * first. Event-driven (no polling); used by `waitForCacheSync`.
   */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    return this.#waiters.wait(() => {
      if (this.hasSynced()) return true;
      if (this.#phase === "stopped") return false;
      return undefined;
    }, signal);
  }

  /**
   * Waits until the cache's resourceVersion (`indexer.lastSyncResourceVersion`, client-go's
   * `LastStoreSyncResourceVersion`) satisfies `check`: resolves `true` at once if it does now,
   * else as soon as a processed change makes it so; `false` when `signal` aborts or the
   * informer stops first. Rejects only with what `check` throws.
   *
   * The cache's resourceVersion moves with every change applied to the cache: a relist (to the
   * list's resourceVersion), a watch event's object (added, updated, or deleted with its last
   * state), a bookmark (in-order queue). When `check` first holds, the cache already contains
   * that change and every handler has it queued. This is how a controller waits until its
   * cache has observed its own write: `check` compares the write's resourceVersion with the
   * cache's (resourceVersions are opaque to the API; comparing them as integers is what
   * Kubernetes' own consistency checks do).
   *
   * Caveat: only the in-order queue (the default) applies changes in resourceVersion order. With
   * `queue: "delta-fifo"`, changes are grouped per key, so the cache's resourceVersion can
   * jump past a change to another key that is still queued, and a relist moves it to the
   * resourceVersion of each relisted object in turn.
   *
   * Event-driven: `check` runs after each change the informer processes, never on a timer.
   */
  waitForCacheResourceVersion(
    check: (resourceVersion: string) => boolean,
    signal?: AbortSignal,
  ): Promise<boolean> {
    let failure: { readonly error: unknown } | undefined;
    const waited = this.#waiters.wait(() => {
      try {
        if (check(this.indexer.lastSyncResourceVersion)) return true;
      } catch (error) {
        failure = { error };
        return false;
      }
      if (this.#phase === "stopped") return false;
      return undefined;
    }, signal);
    return waited.then((result) => {
      if (failure !== undefined) throw failure.error;
      return result;
    });
  }

  /**
   * Adds indices to the cache, filled from the objects already cached (allowed while running).
   *
   * @throws {IndexerError} (`IndexerConflict`, `IndexFuncFailed`) as `Indexer.addIndexers`.
   * @throws {InformerLifecycleError} (`Stopped`) once the informer has stopped.
   */
  addIndexers(indexers: Indexers<T>): void {
    if (this.#phase === "stopped") {
      throw new InformerLifecycleError("Stopped", this.name, "the informer has stopped");
    }
    this.indexer.addIndexers(indexers);
  }

  /**
   * Sets the function applied to every object before it is queued and cached (client-go's
   * `SetTransform`), e.g. {@link stripManagedFields}. It may return its argument modified
   * or a new object, must be idempotent, and is not applied to tombstones or resyncs. The
   * reflector applies it to each object as it arrives (list pages, WatchList initial events,
   * watch events), so only transformed objects are held, even during the initial sync. A
   * transform that throws makes the reflector skip that watch event or fail that list
   * (logged, relisted after a backoff).
   *
   * @throws {InformerLifecycleError} (`AlreadyStarted`) after {@link run}.
   */
  setTransform(transform: (obj: T) => T): void {
    if (this.#phase !== "new") {
      throw new InformerLifecycleError(
        "AlreadyStarted",
        this.name,
        "setTransform must be called before run()",
      );
    }
    this.#transform = transform;
  }

  /**
   * Sets the function called with every list/watch error before the reflector retries
   * (default: logged, quietly for expected disruptions, see `Reflector`). Must not throw.
   *
   * @throws {InformerLifecycleError} (`AlreadyStarted`) after {@link run}.
   */
  setWatchErrorHandler(handler: (error: unknown) => void): void {
    if (this.#phase !== "new") {
      throw new InformerLifecycleError(
        "AlreadyStarted",
        this.name,
        "setWatchErrorHandler must be called before run()",
      );
    }
    this.#watchErrorHandler = handler;
  }

  /**
   * The queue as the reflector writes to it, re-checking sync waiters after every write: a
   * DeltaFIFO can become synced without anything to pop (an empty first list). It exposes
   * the transform so that the reflector applies it to each object as it arrives (a WatchList's
   * initial events included), before anything is queued.
   */
  #reflectorStore(): ReflectorStore<T> {
    const queue = this.#queue;
    const waiters = this.#waiters;
    const bookmark = queue.bookmark?.bind(queue);
    return {
      transform: (obj) => this.#prepare(obj),
      add: (obj) => {
        queue.add(obj);
        waiters.notify();
      },
      update: (obj) => {
        queue.update(obj);
        waiters.notify();
      },
      delete: (obj) => {
        queue.delete(obj);
        waiters.notify();
      },
      replace: (list, resourceVersion) => {
        queue.replace(list, resourceVersion);
        waiters.notify();
      },
      resync: () => queue.resync(),
      ...(bookmark !== undefined ? { bookmark } : {}),
    };
  }

  /** The transform, then (with `detectMutations`) the deep freeze: what enters the queue. */
  #prepare(obj: T): T {
    const transform = this.#transform;
    const out = transform === undefined ? obj : transform(obj);
    return this.#detectMutations ? freezeCached(out) : out;
  }

  /**
   * Pops the queue until `signal` aborts: cache update, then fan-out to the handlers, a batch
   * of every queued item at a time (client-go's `PopBatch`); sync waiters are re-checked after
   * each item, so a wait on the cache's resourceVersion sees every step.
   */
  async #processLoop(signal: AbortSignal): Promise<void> {
    const waiters = this.#waiters;
    const apply = (deltas: Deltas<T>, isInInitialList: boolean): void => {
      processDeltas(this.#deltaHandler, this.indexer, deltas, isInInitialList);
      waiters.notify();
    };
    // A relist is applied cooperatively (processReplacedAllSliced): its lookups and the new
    // cache content are built in slices of EVENT_LOOP_SLICE_MS, starting in a task of its own
    // (not after the list's last page was parsed in the same one), while listers still see
    // the old content; then the content is swapped in and the notifications handed out in
    // one step. The queue stays held meanwhile, so nothing later is applied before it; a
    // handler added in between replays the cache as it was, then gets the relist's
    // notifications. A stop abandons the relist at its next slice.
    const applyRelist = async (info: ReplacedAllInfo<T>, isInInitialList: boolean) => {
      const slice = new EventLoopSlice(this.#clock);
      await slice.yield();
      await processReplacedAllSliced(
        this.#deltaHandler,
        this.#cache,
        info,
        isInInitialList,
        slice,
        signal,
      );
      waiters.notify();
    };
    const process: PopProcessFunc<T> = (deltas, isInInitialList) => {
      const first = deltas[0];
      return first?.type === "ReplacedAll" && deltas.length === 1
        ? applyRelist(first.object, isInInitialList)
        : apply(deltas, isInInitialList);
    };
    while (!signal.aborted) {
      try {
        const popped = await this.#queue.popBatch(process, signal);
        if (popped === QUEUE_CLOSED) return;
      } catch (err) {
        if (signal.aborted) return;
        this.#logger.error(`${this.name}: failed to apply a change to the cache`, {
          error: err,
        });
      }
      this.#waiters.notify();
    }
  }
}

function checkPeriod(label: string, value: number): void {
  if (!(value >= 0) || !Number.isFinite(value)) {
    throw new RangeError(`${label} must be a finite number >= 0, got ${value}`);
  }
}
