import { describe, expect, it } from "vitest";
import {
  type ListerWatcher,
  type ListerWatcherTarget,
  type WatchStream,
  type ObjectWithMetadata,
  type LogFields,
  type Logger,
  noopLogger,
  BaseInformerFactory,
  type InformerFactorySettings,
  Lister,
  type InformerFactoryOptions,
} from "kubekit";

const PODS = { group: "", version: "v1", resource: "pods", namespaced: true };
const NODES = { group: "", version: "v1", resource: "nodes", namespaced: false };
const DEPLOYMENTS = { group: "apps", version: "v1", resource: "deployments", namespaced: true };

/** A watch that sends nothing and ends when closed or when its signal aborts. */
function idleWatch(signal: AbortSignal | undefined): WatchStream<ObjectWithMetadata> {
  let close: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    close = resolve;
    signal?.addEventListener("abort", () => resolve(), { once: true });
  });
  return {
    close: () => close(),
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        await closed;
        return { done: true, value: undefined };
      },
    }),
  };
}

/** Records the targets it is asked for and the list calls per resource; lists one object. */
class FakeCluster {
  readonly targets: ListerWatcherTarget[] = [];
  readonly lists = new Map<string, number>();

  readonly newListerWatcher = (target: ListerWatcherTarget): ListerWatcher<ObjectWithMetadata> => {
    this.targets.push(target);
    return {
      list: async () => {
        this.lists.set(target.resource, (this.lists.get(target.resource) ?? 0) + 1);
        return {
          items: [{ metadata: { name: "one", namespace: target.namespace ?? "ns", labels: {} } }],
          metadata: { resourceVersion: "1" },
        };
      },
      watch: (_options, signal) => idleWatch(signal),
    };
  };
}

function factoryOf(
  cluster: FakeCluster,
  options: InformerFactoryOptions = {},
  extra: Partial<InformerFactorySettings<ObjectWithMetadata>> = {},
): BaseInformerFactory<ObjectWithMetadata> {
  return new BaseInformerFactory<ObjectWithMetadata>({
    newListerWatcher: cluster.newListerWatcher,
    options: { ...options, informerOptions: { logger: noopLogger, ...options.informerOptions } },
    ...extra,
  });
}

describe("BaseInformerFactory", () => {
  it("rejects customResyncMs keys that are not group/version/resource", () => {
    const cluster = new FakeCluster();
    for (const key of ["v1/pods", "pods", "apps/v1/deployments/x", "/v1/", "apps//deployments"]) {
      expect(() => factoryOf(cluster, { customResyncMs: { [key]: 1000 } }), key).toThrow(
        RangeError,
      );
    }
    expect(() => factoryOf(cluster, { customResyncMs: { "/v1/pods": 1000 } })).not.toThrow();
  });

  it("creates one informer per resource, lazily, with the factory's settings", () => {
    const cluster = new FakeCluster();
    const tweak = (options: object): object => ({ ...options, labelSelector: "a=b" });
    const factory = factoryOf(cluster, {
      namespace: "team",
      tweakListOptions: tweak,
      resyncPeriodMs: 60_000,
      customResyncMs: { "apps/v1/deployments": 5_000 },
    });
    expect(factory.namespace).toBe("team");
    expect(cluster.targets).toEqual([]);
    const pods = factory.informerFor(PODS);
    expect(factory.informerFor(PODS)).toBe(pods);
    expect(factory.informerFor({ ...PODS })).toBe(pods);
    const nodes = factory.informerFor(NODES);
    const deployments = factory.informerFor(DEPLOYMENTS);
    expect(new Set([pods, nodes, deployments]).size).toBe(3);
    expect(cluster.targets).toEqual([
      { group: "", version: "v1", resource: "pods", namespace: "team", tweak },
      // Cluster-scoped: the namespace does not apply, the tweak does.
      { group: "", version: "v1", resource: "nodes", tweak },
      { group: "apps", version: "v1", resource: "deployments", namespace: "team", tweak },
    ]);
    expect(pods.name).toBe("/v1/pods");
    expect(deployments.name).toBe("apps/v1/deployments");
    expect(pods.resyncCheckPeriodMs).toBe(60_000);
    expect(deployments.resyncCheckPeriodMs).toBe(5_000);
    expect(pods.isStarted).toBe(false);
  });

  it("applies no namespace when none or an empty one is given, and no resync by default", () => {
    const cluster = new FakeCluster();
    const pods = factoryOf(cluster, { namespace: "" }).informerFor(PODS);
    factoryOf(cluster).informerFor(PODS);
    expect(cluster.targets).toEqual([
      { group: "", version: "v1", resource: "pods" },
      { group: "", version: "v1", resource: "pods" },
    ]);
    expect(pods.resyncCheckPeriodMs).toBe(0);
  });

  it("passes the transform to every informer", async () => {
    const cluster = new FakeCluster();
    const factory = factoryOf(
      cluster,
      {},
      {
        transform: (obj) => ({ ...obj, metadata: { ...obj.metadata, labels: { seen: "yes" } } }),
      },
    );
    const pods = factory.informerFor(PODS);
    const stop = new AbortController();
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(new Map([["/v1/pods", true]]));
    const lister = new Lister(pods.indexer, { group: "", resource: "pods" });
    expect(lister.list("seen=yes")).toHaveLength(1);
    await factory.shutdown();
  });

  it("starts only new informers, reports sync per started informer, and stops on shutdown", async () => {
    const cluster = new FakeCluster();
    const factory = factoryOf(cluster);
    const stop = new AbortController();
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(new Map());
    factory.start(stop.signal);
    const pods = factory.informerFor(PODS);
    factory.start(stop.signal);
    const nodes = factory.informerFor(NODES);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(new Map([["/v1/pods", true]]));
    expect(nodes.isStarted).toBe(false);
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(
      new Map([
        ["/v1/pods", true],
        ["/v1/nodes", true],
      ]),
    );
    expect(cluster.lists).toEqual(
      new Map([
        ["pods", 1],
        ["nodes", 1],
      ]),
    );

    expect(factory.isShuttingDown).toBe(false);
    await factory.shutdown();
    expect(factory.isShuttingDown).toBe(true);
    expect(pods.isStopped).toBe(true);
    expect(nodes.isStopped).toBe(true);
    expect(stop.signal.aborted).toBe(false);
    const late = factory.informerFor(DEPLOYMENTS);
    factory.start(stop.signal);
    expect(late.isStarted).toBe(false);
    await factory.shutdown();
  });

  it("stops the informers when the start signal aborts; shutdown then resolves", async () => {
    const cluster = new FakeCluster();
    const factory = factoryOf(cluster);
    const stop = new AbortController();
    const pods = factory.informerFor(PODS);
    factory.start(stop.signal);
    await factory.waitForCacheSync(stop.signal);
    stop.abort();
    await factory.shutdown();
    expect(pods.isStopped).toBe(true);
  });

  it("leaves an informer already running elsewhere alone", async () => {
    const cluster = new FakeCluster();
    const factory = factoryOf(cluster);
    const pods = factory.informerFor(PODS);
    const elsewhere = new AbortController();
    const running = pods.run(elsewhere.signal);
    factory.start(new AbortController().signal);
    expect(await factory.waitForCacheSync(elsewhere.signal)).toEqual(new Map());
    await factory.shutdown();
    expect(pods.isStopped).toBe(false);
    elsewhere.abort();
    await running;
    expect(pods.isStopped).toBe(true);
  });

  it("reports false for an informer that has not synced when the signal aborts", async () => {
    const factory = new BaseInformerFactory<ObjectWithMetadata>({
      newListerWatcher: () => ({
        // A list that never answers; it rejects when the informer stops.
        list: (_options, signal) =>
          new Promise((_resolve, reject) => {
            signal?.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
          }),
        watch: (_options, signal) => idleWatch(signal),
      }),
      options: { informerOptions: { logger: noopLogger } },
    });
    factory.informerFor(PODS);
    const stop = new AbortController();
    factory.start(stop.signal);
    const waiting = factory.waitForCacheSync(new AbortController().signal);
    // Shutting down ends the wait too, even though the caller's signal never aborts.
    const shutdown = factory.shutdown();
    expect(await waiting).toEqual(new Map([["/v1/pods", false]]));
    stop.abort();
    await shutdown;
  });

  it("logs an informer whose run() fails, and still shuts down", async () => {
    const errors: { message: string; fields: LogFields | undefined }[] = [];
    const logger: Logger = {
      ...noopLogger,
      error: (message, fields) => errors.push({ message, fields }),
    };
    const cluster = new FakeCluster();
    const factory = factoryOf(cluster, {
      informerOptions: { logger, reflector: { pageSize: -1 } },
    });
    factory.informerFor(PODS);
    factory.start(new AbortController().signal);
    await factory.shutdown();
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields?.["informer"]).toBe("/v1/pods");
    expect(errors[0]?.fields?.["error"]).toBeInstanceOf(RangeError);
  });
});
