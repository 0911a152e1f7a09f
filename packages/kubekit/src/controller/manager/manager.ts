/**
 * The Manager: runs controllers as a deployed process needs them run (controller-runtime's
 * `pkg/manager/manager.go`, `internal.go` and `runnable_group.go`): informer caches,
 * leader election, `/metrics`, `/healthz`, `/readyz` and a bounded graceful shutdown.
 */
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import type { Registry } from "prom-client";
import { Clientset } from "../../client/clientset.js";
import { KubeConfig } from "../../config/kube-config.js";
import type { RestConfig } from "../../config/rest-config.js";
import type { Clock, TimerHandle } from "../../core/clock.js";
import { realClock } from "../../core/clock.js";
import type { Logger } from "../../core/logger.js";
import { consoleLogger } from "../../core/logger.js";
import type { SettableGaugeMetric } from "../../core/metrics.js";
import type { BaseInformerFactory } from "../../informers/base-informer-factory.js";
import type { RequestMetrics } from "../../rest/index.js";
import type { ControllerMetricsProvider } from "../metrics/controller-metrics.js";
import { controllerMetricsProvider } from "../metrics/controller-metrics.js";
import type { CachedClientOptions } from "../client/cached-client.js";
import { CachedClient } from "../client/cached-client.js";
import type { InformerCacheOptions } from "../client/informer-cache.js";
import { InformerCache } from "../client/informer-cache.js";
import { ControllerBuilder } from "../controller-builder.js";
import type { EndpointHandler, EndpointResponse } from "./endpoint-server.js";
import { EndpointServer } from "./endpoint-server.js";
import type { HealthCheck } from "./health-checks.js";
import { HealthChecks } from "./health-checks.js";
import { leaderElectionStatusMetric } from "../leaderelection/leader-election-metrics.js";
import { LeaderElector } from "../leaderelection/leader-elector.js";
import { LeaseLock } from "../leaderelection/lease-lock.js";
import { LeaderHealthzAdaptor } from "../leaderelection/healthz-adaptor.js";
import { ManagerError } from "./manager-error.js";
import type { AwaitedInformer, ManagerDefaults } from "./manager-injection.js";
import { injectManagerDefaults } from "./manager-injection.js";
import { PrometheusMetricFactory } from "../metrics/prometheus-metric-factory.js";
import { restClientMetrics } from "../metrics/rest-client-metrics.js";

/** controller-runtime's client rate limit for controllers (`pkg/client/config`): 20 queries per second. */
export const MANAGER_DEFAULT_QPS = 20;
/** controller-runtime's client burst for controllers: 30. */
export const MANAGER_DEFAULT_BURST = 30;
/** controller-runtime's `defaultGracefulShutdownPeriod`: 30 s. */
export const DEFAULT_GRACEFUL_SHUTDOWN_MS = 30_000;

/** Leader election settings of a {@link Manager}. */
export interface ManagerLeaderElectionOptions {
  /** The namespace of the Lease. */
  readonly namespace: string;
  /** The Lease's name, shared by every replica; also the `name` label of `leader_election_master_status`. */
  readonly name: string;
  /** This replica's identity (default `<hostname>_<random UUID>`, controller-runtime's). */
  readonly identity?: string;
  /** Default 15000 (client-go's). */
  readonly leaseDurationMs?: number;
  /** Default 10000. */
  readonly renewDeadlineMs?: number;
  /** Default 2000. */
  readonly retryPeriodMs?: number;
  /**
   * Release the Lease when `start`'s signal aborts, after the controllers have stopped, so a
   * successor takes over at its next retry instead of after a lease duration. Default true
   * (controller-runtime's `LeaderElectionReleaseOnCancel` defaults to false because its
   * callers may keep working after `Start` returns; this manager releases only once its
   * leader-only work has stopped).
   */
  readonly releaseOnCancel?: boolean;
  /** Labels of the Lease (client-go's `LeaseLock.Labels`): set on create, merged on writes. */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * The manager's `/healthz` check `leaderElection` (a {@link LeaderHealthzAdaptor}) fails
   * when this replica leads but has not renewed the Lease for the lease duration plus this
   * long (default 20000, kube-controller-manager's).
   */
  readonly healthzToleranceMs?: number;
}

/** Settings of a {@link Manager}. */
export interface ManagerOptions {
  /**
   * Where the API server is and how to authenticate (default: `KubeConfig.load()` when
   * `start` runs: kubectl's loading rules, or the in-cluster config).
   */
  readonly kubeConfig?: KubeConfig;
  /** Run the leader-only runnables (controllers) only while holding this Lease. Default: no election. */
  readonly leaderElection?: ManagerLeaderElectionOptions;
  /** Serve `/metrics` on this port (0: any free port, see {@link Manager.metricsPort}). Default: not served. */
  readonly metricsPort?: number;
  /** Serve `/healthz` and `/readyz` on this port (0: any free port; may equal `metricsPort`). Default: not served. */
  readonly healthPort?: number;
  /**
   * The address the servers bind (default `127.0.0.1`; in a pod, `0.0.0.0` or the pod IP so
   * that Prometheus and the kubelet reach them).
   */
  readonly bindAddress?: string;
  /**
   * How long a stop waits for the runnables, the lease release and the informers (default
   * 30000, controller-runtime's); past it, `start` rejects with `GracefulShutdownTimeout`.
   */
  readonly gracefulShutdownMs?: number;
  /** The prom-client registry `/metrics` serves (default prom-client's global `register`). */
  readonly registry?: Registry;
  /** The client rate limit of {@link Manager.clientset} (default {@link MANAGER_DEFAULT_QPS}; negative: none). */
  readonly qps?: number;
  /** The client burst of {@link Manager.clientset} (default {@link MANAGER_DEFAULT_BURST}). */
  readonly burst?: number;
  /** Time source of leader election and of the shutdown deadline (default: the real clock). */
  readonly clock?: Clock;
  /** Where the manager and its leader election log (default: the console). */
  readonly logger?: Logger;
  /** Settings of the cache-backed {@link Manager.client}: kinds never cached, unwatched kinds. */
  readonly client?: CachedClientOptions;
  /**
   * Settings of the manager's informer cache, behind {@link Manager.client} and the
   * controllers of {@link Manager.controller}: one namespace, resync, informer settings
   * (default: every namespace, no resync, the manager's logger).
   */
  readonly cache?: InformerCacheOptions;
}

/**
 * Something the manager runs until its stop. A runnable without `needLeaderElection: false`
 * (a {@link Controller}, for one) runs only while this replica leads.
 */
export interface Runnable {
  /** Runs until `signal` aborts; a rejection stops the manager (`RunnableFailed`). */
  run(signal: AbortSignal): Promise<void>;
  /** Whether it runs only on the leader (default true, as in controller-runtime). */
  readonly needLeaderElection?: boolean;
}

/** What the manager needs of an informer factory: every factory of `kubekit` fits. */
export type InformerFactoryLike = Pick<
  BaseInformerFactory<unknown>,
  "start" | "waitForCacheSync" | "shutdown"
>;

/**
 * The readyz check the manager adds: every added informer factory has synced, and so has
 * every informer a running controller waits on (its failure, logged, names them).
 */
export const INFORMER_SYNC_CHECK = "informer-sync";

/**
 * Runs controllers the way replicas of a controller Deployment must run them (see the
 * example at the end).
 *
 * Guarantees of {@link start}:
 * - The metrics and health servers listen first, on every replica (a standby is scraped
 *   and probed too). `/readyz` fails until every added informer factory has synced, while
 *   a running controller waits for an informer to sync (e.g. one whose factory was never
 *   added or started: the controller then fails after its `cacheSyncTimeoutMs`, and the
 *   manager with `RunnableFailed`), and from the moment the stop begins.
 * - A {@link Controller} added takes the manager's {@link metrics}, logger and clock unless
 *   its own options set them (controller-runtime's injection of the manager's settings).
 * - Added informer factories start at once, before leader election, so a replica that takes
 *   over has a warm cache. Runnables with `needLeaderElection: false` start at once too.
 * - With `leaderElection`, controllers (and other leader runnables) start when this replica
 *   acquires the Lease, after the factories synced; `leader_election_master_status{name}`
 *   is 1 while it leads. Without it, they start after the factories synced.
 * - Stop (the signal aborts): runnables are aborted and awaited (in-flight reconciles
 *   settle), then the Lease is released (`releaseOnCancel`, default on), then the informers
 *   and servers stop; `start` resolves. All of it within `gracefulShutdownMs`, else `start`
 *   rejects with `GracefulShutdownTimeout`.
 * - Leadership lost: the controllers' signals abort at once (before another replica can
 *   acquire), the same stop runs, and `start` rejects with `LeaderElectionLost`; exit the
 *   process then (controller-runtime's `Start` returns "leader election lost" the same way;
 *   a manager never competes again).
 * - A runnable that rejects stops the manager, which rejects with `RunnableFailed`.
 * - When `start` settles, every timer, server and informer it started has stopped, so the
 *   process can exit by itself.
 *
 * @example
 * The main module of a controller Deployment: leader election, metrics on :8080, probes on
 * :8081, and a stop on SIGTERM.
 *
 * ```ts
 * import {
 *   Controller,
 *   KubeConfig,
 *   Manager,
 *   ManagerError,
 *   SharedInformerFactory,
 *   isNotFound,
 *   signalHandler,
 *   splitKey,
 * } from "kubekit";
 *
 * const mgr = new Manager({
 *   kubeConfig: await KubeConfig.load(), // in a pod: the service account's in-cluster config
 *   leaderElection: { namespace: "kube-system", name: "node-labeler" },
 *   metricsPort: 8080,
 *   healthPort: 8081,
 *   bindAddress: "0.0.0.0",
 * });
 * const factory = new SharedInformerFactory(mgr.clientset);
 * const nodes = factory.coreV1.nodes();
 *
 * const controller = new Controller({
 *   name: "node-labeler", // its queue and reconcile metrics appear on /metrics
 *   reconcile: async (key, signal) => {
 *     const { name } = splitKey(key);
 *     let node;
 *     try {
 *       node = nodes.lister.get(name);
 *     } catch (err) {
 *       if (isNotFound(err)) return;
 *       throw err;
 *     }
 *     const arch = node.status?.nodeInfo?.architecture;
 *     if (arch === undefined || node.metadata?.labels?.["example.com/arch"] === arch) return;
 *     const patch = { metadata: { labels: { "example.com/arch": arch } } };
 *     await mgr.clientset.coreV1
 *       .nodes()
 *       .patch(name, "application/merge-patch+json", patch, { signal });
 *   },
 * });
 * controller.watch(nodes.informer);
 * mgr.add(factory);
 * mgr.add(controller);
 *
 * try {
 *   await mgr.start(signalHandler()); // resolves after a graceful stop on SIGTERM or SIGINT
 * } catch (err) {
 *   // LeaderElectionLost, RunnableFailed or GracefulShutdownTimeout: exit, and let the
 *   // Deployment start a fresh replica.
 *   if (!(err instanceof ManagerError)) throw err;
 *   console.error(err.message);
 *   process.exitCode = 1;
 * }
 * ```
 */
export class Manager {
  /**
   * The metrics provider of the controllers: each {@link Controller} added takes it unless
   * its options name another, so its queue and reconcile metrics appear on `/metrics`.
   */
  readonly metrics: ControllerMetricsProvider;
  /** The request metrics of the manager's clients (give it to other clients as `RESTClientOptions.metrics`). */
  readonly requestMetrics: RequestMetrics;
  /** The kubekit metric factory over {@link registry}, for the program's own metrics. */
  readonly metricFactory: PrometheusMetricFactory;
  /** The prom-client registry `/metrics` serves. */
  readonly registry: Registry;
  readonly #options: ManagerOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #healthz: HealthChecks;
  /** The `/healthz` check of the leader election, when it is on. */
  readonly #leaderHealthz: LeaderHealthzAdaptor | undefined;
  readonly #readyz: HealthChecks;
  readonly #factories: InformerFactoryLike[] = [];
  /** The manager's own informers: those of the client and of the controllers it builds. */
  readonly #cache: InformerCache;
  readonly #client: CachedClient;
  readonly #runnables: Runnable[] = [];
  /** The informers each running controller waits on, by registration. */
  readonly #awaited = new Set<{
    readonly owner: string;
    readonly informers: readonly AwaitedInformer[];
  }>();
  readonly #running = new Set<Promise<void>>();
  readonly #leaderStatus: SettableGaugeMetric | undefined;
  #kubeConfig: KubeConfig | undefined;
  #clientset: Clientset | undefined;
  #elector: LeaderElector | undefined;
  /** The leader election's own client, closed once the election has ended. */
  #lockClient: Clientset | undefined;
  #state: "new" | "running" | "stopping" | "stopped" = "new";
  #cachesSynced = false;
  #failure: ManagerError | undefined;
  readonly #failed = new AbortController();
  #metricsPort: number | undefined;
  #healthPort: number | undefined;
  #elected!: () => void;
  readonly #electedPromise = new Promise<void>((resolve) => (this.#elected = resolve));

  /** @throws {ManagerError} `InvalidOptions` for a port or duration out of range. */
  constructor(options: ManagerOptions = {}) {
    for (const field of ["metricsPort", "healthPort"] as const) {
      const port = options[field];
      if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
        throw new ManagerError(
          "InvalidOptions",
          `${field} must be an integer port in 0..65535, got ${port}`,
        );
      }
    }
    const grace = options.gracefulShutdownMs ?? DEFAULT_GRACEFUL_SHUTDOWN_MS;
    if (!Number.isFinite(grace) || grace < 0) {
      throw new ManagerError("InvalidOptions", `gracefulShutdownMs must be >= 0, got ${grace}`);
    }
    this.#options = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? consoleLogger;
    this.metricFactory = new PrometheusMetricFactory(
      options.registry !== undefined ? { registry: options.registry } : {},
    );
    this.registry = this.metricFactory.registry;
    this.metrics = controllerMetricsProvider(this.metricFactory);
    this.requestMetrics = restClientMetrics(this.metricFactory);
    this.#leaderStatus =
      options.leaderElection !== undefined
        ? leaderElectionStatusMetric(this.metricFactory, options.leaderElection.name)
        : undefined;
    this.#kubeConfig = options.kubeConfig;
    this.#cache = new InformerCache(() => this.clientset.restClient, {
      ...options.cache,
      informerOptions: { logger: this.#logger, ...options.cache?.informerOptions },
    });
    this.#factories.push(this.#cache);
    this.#client = new CachedClient(this.#cache, () => this.clientset.restClient, options.client);
    this.#healthz = new HealthChecks("healthz", this.#logger);
    this.#leaderHealthz =
      options.leaderElection !== undefined
        ? new LeaderHealthzAdaptor(options.leaderElection.healthzToleranceMs ?? 20_000)
        : undefined;
    if (this.#leaderHealthz !== undefined) {
      this.#healthz.add(this.#leaderHealthz.name, this.#leaderHealthz.check);
    }
    this.#readyz = new HealthChecks("readyz", this.#logger);
    this.#readyz.add(INFORMER_SYNC_CHECK, () => {
      if (this.#state !== "running") throw new Error("the manager is not running");
      if (!this.#cachesSynced) throw new Error("informers have not synced");
      const waiting = [...this.#awaited].flatMap(({ owner, informers }) =>
        informers.filter((i) => !i.hasSynced()).map((i) => `${owner}: informer ${i.informer}`),
      );
      if (waiting.length > 0) {
        throw new Error(`controllers wait for informers to sync (${waiting.join(", ")})`);
      }
    });
  }

  /**
   * The client for controllers: the kubeconfig's connection with a rate limit of `qps`/`burst`
   * (default 20/30, controller-runtime's) and the manager's request metrics.
   *
   * @throws {ManagerError} `NotStarted` when no `kubeConfig` was given and `start` has not
   *   loaded one yet.
   */
  get clientset(): Clientset {
    if (this.#clientset === undefined) {
      if (this.#kubeConfig === undefined) {
        throw new ManagerError(
          "NotStarted",
          "no kubeConfig was given: the clientset exists once start() loaded it",
        );
      }
      this.#clientset = new Clientset(this.#restConfig(this.#kubeConfig), {
        metrics: this.requestMetrics,
        logger: this.#logger,
      });
    }
    return this.#clientset;
  }

  /**
   * The cache-backed client (controller-runtime's `mgr.GetClient()`): reads (`get`, `list`)
   * from the manager's informers, created on first use, started with the manager and waited
   * for; writes to the API server through {@link clientset}. Objects it reads are the cache's
   * own, shared: never mutate them. See {@link CachedClient}.
   */
  get client(): CachedClient {
    return this.#client;
  }

  /**
   * A builder of a controller named `name` that this manager runs (controller-runtime's
   * `builder.ControllerManagedBy(mgr).Named(name)`): its `for`, `owns` and `watches` take
   * their informers from the manager's cache, and `complete(reconcile)` adds the controller.
   *
   * @throws {TypeError} when `name` is empty.
   */
  controller(name: string): ControllerBuilder {
    return new ControllerBuilder(name, { cache: this.#cache, add: (c) => this.add(c) });
  }

  /** The port `/metrics` listens on, once `start` has bound it. */
  get metricsPort(): number | undefined {
    return this.#metricsPort;
  }

  /** The port `/healthz` and `/readyz` listen on, once `start` has bound it. */
  get healthPort(): number | undefined {
    return this.#healthPort;
  }

  /** Whether this replica currently leads (always true while running without leader election). */
  isLeader(): boolean {
    if (this.#options.leaderElection === undefined) return this.#state === "running";
    return this.#elector?.isLeader() ?? false;
  }

  /**
   * Resolves when the leader runnables start: when this replica acquired the Lease, or (no
   * election) once the caches synced. Stays pending if that never happens.
   */
  elected(): Promise<void> {
    return this.#electedPromise;
  }

  /**
   * Adds an informer factory (started before leader election, awaited by `/readyz` and by
   * the leader runnables) or a runnable such as a {@link Controller} (which takes the
   * manager's metrics, logger and clock where its options set none).
   *
   * @throws {ManagerError} `AlreadyStarted` once `start` has been called.
   */
  add(item: InformerFactoryLike | Runnable): void {
    if (this.#state !== "new") {
      throw new ManagerError("AlreadyStarted", "add() must be called before start()");
    }
    if (isInformerFactory(item)) {
      this.#factories.push(item);
      return;
    }
    injectManagerDefaults(item, this.#defaults());
    this.#runnables.push(item);
  }

  /** What a runnable added takes from the manager (see `manager-injection.ts`). */
  #defaults(): ManagerDefaults {
    return {
      metrics: this.metrics,
      logger: this.#logger,
      clock: this.#clock,
      awaitInformers: (owner, informers) => {
        const entry = { owner, informers };
        this.#awaited.add(entry);
        return () => this.#awaited.delete(entry);
      },
    };
  }

  /**
   * Adds a `/healthz` check (liveness: fail it only when a restart would help).
   *
   * @throws {TypeError} when the name is empty, contains `/`, or is taken.
   */
  addHealthzCheck(name: string, check: HealthCheck): void {
    this.#healthz.add(name, check);
  }

  /**
   * Adds a `/readyz` check (readiness; the manager's own is {@link INFORMER_SYNC_CHECK}).
   *
   * @throws {TypeError} when the name is empty, contains `/`, or is taken.
   */
  addReadyzCheck(name: string, check: HealthCheck): void {
    this.#readyz.add(name, check);
  }

  /**
   * Runs everything added until `signal` aborts (then resolves after the graceful stop) or
   * the manager fails (then rejects, after the same stop). See the class for the order.
   *
   * @throws {ManagerError} (as a rejection) `AlreadyStarted`, `LeaderElectionLost`,
   *   `RunnableFailed`, `GracefulShutdownTimeout`; a kubeconfig loading error or a listen
   *   error (e.g. `EADDRINUSE`) as it is.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#state !== "new")
      throw new ManagerError("AlreadyStarted", "start() may only be called once");
    this.#state = "running";
    this.#cache.starting(); // reads of the client wait for the caches from now on
    const servers: EndpointServer[] = [];
    const caches = new AbortController();
    const runnables = new AbortController();
    const election = new AbortController();
    // Every runnable and factory listens to these signals: any number of listeners is expected
    // (Node's default warns past 10, which a manager of 11 controllers would reach).
    setMaxListeners(0, caches.signal, runnables.signal, election.signal);
    let electionDone: Promise<void> | undefined;
    try {
      this.#kubeConfig ??= await KubeConfig.load();
      const kubeConfig = this.#kubeConfig;
      servers.push(...(await this.#listen()));
      if (!signal.aborted) {
        for (const factory of this.#factories) factory.start(caches.signal);
        const synced = this.#waitForCaches(caches.signal);
        for (const runnable of this.#runnables) {
          if (runnable.needLeaderElection === false) this.#track(runnable.run(runnables.signal));
        }
        const leaders = this.#runnables.filter((r) => r.needLeaderElection !== false);
        if (this.#options.leaderElection === undefined) {
          this.#track(this.#lead(leaders, synced, runnables.signal));
        } else {
          electionDone = this.#elect(kubeConfig, this.#options.leaderElection, leaders, synced, {
            runnables: runnables.signal,
            election: election.signal,
          });
        }
        await untilAborted(AbortSignal.any([signal, this.#failed.signal]));
      }
    } finally {
      this.#state = "stopping";
      await this.#shutdown(servers, caches, runnables, election, electionDone);
      this.#state = "stopped";
    }
    if (this.#failure !== undefined) throw this.#failure;
  }

  #restConfig(kubeConfig: KubeConfig): RestConfig {
    return {
      ...kubeConfig.restConfig(),
      qps: this.#options.qps ?? MANAGER_DEFAULT_QPS,
      burst: this.#options.burst ?? MANAGER_DEFAULT_BURST,
    };
  }

  /** Binds the metrics and health servers (one server when both ports are the same non-zero port). */
  async #listen(): Promise<EndpointServer[]> {
    const host = this.#options.bindAddress ?? "127.0.0.1";
    const metrics: [string, EndpointHandler] = ["/metrics", () => this.#scrape()];
    const health: [string, EndpointHandler][] = [
      ["/healthz", (sub, query, signal) => this.#probe(this.#healthz, sub, query, signal)],
      ["/readyz", (sub, query, signal) => this.#probe(this.#readyz, sub, query, signal)],
    ];
    const { metricsPort, healthPort } = this.#options;
    const plan: {
      port: number;
      routes: [string, EndpointHandler][];
      serves: ("metrics" | "health")[];
    }[] = [];
    if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === healthPort) {
      plan.push({ port: metricsPort, routes: [metrics, ...health], serves: ["metrics", "health"] });
    } else {
      if (metricsPort !== undefined)
        plan.push({ port: metricsPort, routes: [metrics], serves: ["metrics"] });
      if (healthPort !== undefined)
        plan.push({ port: healthPort, routes: health, serves: ["health"] });
    }
    const servers: EndpointServer[] = [];
    try {
      for (const { port, routes, serves } of plan) {
        const server = new EndpointServer(new Map(routes), this.#logger);
        const bound = await server.listen(port, host);
        servers.push(server);
        if (serves.includes("metrics")) this.#metricsPort = bound;
        if (serves.includes("health")) this.#healthPort = bound;
        this.#logger.info("manager: serving", {
          endpoints: routes.map(([path]) => path),
          host,
          port: bound,
        });
      }
    } catch (error) {
      await Promise.all(servers.map((server) => server.close()));
      throw error;
    }
    return servers;
  }

  async #scrape(): Promise<EndpointResponse> {
    return {
      status: 200,
      contentType: this.registry.contentType,
      body: await this.registry.metrics(),
    };
  }

  async #probe(
    checks: HealthChecks,
    subpath: string,
    query: URLSearchParams,
    signal: AbortSignal,
  ): Promise<EndpointResponse> {
    const answer = await checks.probe(subpath, query, signal);
    return { ...answer, contentType: "text/plain; charset=utf-8" };
  }

  /** Resolves true once every factory synced; false if the caches stopped first. */
  async #waitForCaches(signal: AbortSignal): Promise<boolean> {
    const results = await Promise.all(this.#factories.map((f) => f.waitForCacheSync(signal)));
    const synced = results.every((byInformer) => [...byInformer.values()].every(Boolean));
    if (synced && !signal.aborted) this.#cachesSynced = true;
    return this.#cachesSynced;
  }

  /**
   * Runs the leader runnables once the caches synced, until `signal` aborts; settles when they
   * all have, or at once when `signal` aborts before the caches synced (the stop then goes on
   * to stop the caches, which it could not while this waited for them).
   */
  async #lead(
    leaders: readonly Runnable[],
    synced: Promise<boolean>,
    signal: AbortSignal,
  ): Promise<void> {
    const ready = await Promise.race([synced, untilAborted(signal).then(() => false)]);
    if (!ready || signal.aborted) return;
    this.#elected();
    await Promise.all(leaders.map((runnable) => this.#track(runnable.run(signal))));
  }

  /** Competes for the Lease and runs the leader runnables while holding it; settles when the election has ended. */
  #elect(
    kubeConfig: KubeConfig,
    options: ManagerLeaderElectionOptions,
    leaders: readonly Runnable[],
    synced: Promise<boolean>,
    signals: { readonly runnables: AbortSignal; readonly election: AbortSignal },
  ): Promise<void> {
    const identity = options.identity ?? `${hostname()}_${randomUUID()}`;
    // A client of its own, so that the controllers' requests never hold up a renewal.
    const lockClient = new Clientset(this.#restConfig(kubeConfig), {
      metrics: this.requestMetrics,
      logger: this.#logger,
    });
    this.#leaderStatus?.set(0);
    const elector = new LeaderElector({
      lock: new LeaseLock(lockClient, options.namespace, options.name, identity, {
        ...(options.labels !== undefined ? { labels: options.labels } : {}),
      }),
      ...(options.leaseDurationMs !== undefined
        ? { leaseDurationMs: options.leaseDurationMs }
        : {}),
      ...(options.renewDeadlineMs !== undefined
        ? { renewDeadlineMs: options.renewDeadlineMs }
        : {}),
      ...(options.retryPeriodMs !== undefined ? { retryPeriodMs: options.retryPeriodMs } : {}),
      releaseOnCancel: options.releaseOnCancel ?? true,
      clock: this.#clock,
      logger: this.#logger,
      callbacks: {
        onStartedLeading: (leading) => {
          this.#leaderStatus?.set(1);
          const leaderSignal = AbortSignal.any([leading, signals.runnables]);
          setMaxListeners(0, leaderSignal);
          return this.#track(this.#lead(leaders, synced, leaderSignal));
        },
        onStoppedLeading: () => {
          this.#leaderStatus?.set(0);
          if (this.#state === "running") {
            this.#fail(
              new ManagerError(
                "LeaderElectionLost",
                `leader election lost (lease ${options.namespace}/${options.name})`,
              ),
            );
          }
        },
      },
    });
    this.#elector = elector;
    this.#leaderHealthz?.setLeaderElector(elector);
    this.#lockClient = lockClient;
    return elector.run(signals.election).catch((error: unknown) => {
      this.#fail(new ManagerError("RunnableFailed", "leader election failed", { cause: error }));
    });
  }

  /**
   * Keeps `work` until it settles; a rejection fails the manager while it runs. Once the stop
   * has begun, a rejection (typically the runnable's signal's reason) is logged at debug, as
   * controller-runtime only logs errors returned after the stop procedure started.
   */
  #track(work: Promise<void>): Promise<void> {
    const tracked = work.catch((error: unknown) => {
      if (this.#state !== "running") {
        this.#logger.debug("manager: a runnable ended with an error while stopping", { error });
        return;
      }
      this.#fail(
        error instanceof ManagerError
          ? error
          : new ManagerError("RunnableFailed", "a runnable failed", { cause: error }),
      );
    });
    this.#running.add(tracked);
    void tracked.finally(() => this.#running.delete(tracked));
    return tracked;
  }

  #fail(error: ManagerError): void {
    if (this.#failure !== undefined) return;
    this.#logger.error("manager: stopping after a failure", { error });
    this.#failure = error;
    this.#failed.abort(error);
  }

  /** controller-runtime's `engageStopProcedure`: runnables, then the lease, then the caches, then the servers. */
  async #shutdown(
    servers: readonly EndpointServer[],
    caches: AbortController,
    runnables: AbortController,
    election: AbortController,
    electionDone: Promise<void> | undefined,
  ): Promise<void> {
    const graceMs = this.#options.gracefulShutdownMs ?? DEFAULT_GRACEFUL_SHUTDOWN_MS;
    let timer: TimerHandle | undefined;
    const deadline = new Promise<"timeout">((resolve) => {
      timer = this.#clock.setTimer(graceMs, () => resolve("timeout"));
    });
    const stages = async (): Promise<void> => {
      runnables.abort(new Error("the manager is stopping"));
      while (this.#running.size > 0) await Promise.all(this.#running);
      election.abort(new Error("the manager is stopping"));
      await electionDone;
      await this.#lockClient?.restClient.transport.close();
      caches.abort(new Error("the manager is stopping"));
      await Promise.all(this.#factories.map((factory) => factory.shutdown()));
    };
    try {
      const outcome = await Promise.race([stages().then(() => "done" as const), deadline]);
      if (outcome === "timeout") {
        this.#fail(
          new ManagerError(
            "GracefulShutdownTimeout",
            `runnables, leader election or informers still running after ${graceMs} ms`,
          ),
        );
        // Whatever still runs has been told to stop; do not leave its inputs running.
        election.abort();
        caches.abort();
      }
    } finally {
      timer?.cancel();
      await Promise.all(servers.map((server) => server.close()));
    }
  }
}

function isInformerFactory(item: InformerFactoryLike | Runnable): item is InformerFactoryLike {
  return "waitForCacheSync" in item && "shutdown" in item && "start" in item;
}

/** Resolves when `signal` aborts (at once if it has). */
function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true }),
  );
}
