import type { ConfigMap, Pod } from "kubernetes-types/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripManagedFields, Clientset, isNotFound } from "kubekit";
import { SharedInformerFactory } from "../../../packages/kubekit/src/informers/index.js";
import { ApiServer } from "@kubekit/apiserver";
import { EventRecorder } from "./event-recorder.js";
import { RecordingTransport } from "./recording-transport.js";

/**
 * The SharedInformerFactory against the embedded API server: the README's informer snippet end to
 * end, namespace and tweak options on list and watch, shared informers, incremental start,
 * waitForCacheSync results and shutdown.
 */

function pod(name: string, labels: Record<string, string> = {}): Pod {
  return {
    metadata: { name, labels },
    spec: { containers: [{ name: "main", image: "nginx" }] },
  };
}

function configMap(name: string, labels: Record<string, string> = {}): ConfigMap {
  return { metadata: { name, labels }, data: { k: name } };
}

function names(objects: readonly { metadata?: { name?: string } }[]): string[] {
  return objects.map((o) => o.metadata?.name ?? "").sort();
}

describe("SharedInformerFactory against the embedded API server", () => {
  let server: ApiServer;
  let transport: RecordingTransport;
  let cs: Clientset;

  beforeAll(async () => {
    server = await ApiServer.start();
    const config = { ...server.kubeConfig().restConfig(), qps: -1 };
    transport = new RecordingTransport(config);
    cs = new Clientset(config, { transport });
    for (const ns of ["other", "tweak", "start", "sync", "stop"]) {
      await cs.coreV1.namespaces().create({ metadata: { name: ns } });
    }
  });

  afterAll(async () => {
    await transport.close();
    await server.stop();
  });

  it("runs the README's informer snippet: handler, lister, namespace option", async () => {
    await cs.coreV1.pods("default").create(pod("web-0", { app: "web" }));
    await cs.coreV1.pods("default").create(pod("db-0", { app: "db" }));
    await cs.coreV1.pods("other").create(pod("elsewhere-0", { app: "web" }));

    const stop = new AbortController();
    const factory = new SharedInformerFactory(cs, { resyncPeriodMs: 0, namespace: "default" });
    const pods = factory.coreV1.pods();
    const recorder = new EventRecorder<Pod>();
    pods.informer.addEventHandler(recorder.handler);
    factory.start(stop.signal);
    const synced = await factory.waitForCacheSync(stop.signal);
    expect(synced).toEqual(new Map([["/v1/pods", true]]));

    expect(names(pods.lister.list())).toEqual(["db-0", "web-0"]);
    expect(names(pods.lister.list("app=web"))).toEqual(["web-0"]);
    expect(pods.lister.pods("default").get("web-0").metadata?.labels).toEqual({ app: "web" });
    expect(names(pods.lister.namespace("default").list("app=db"))).toEqual(["db-0"]);
    expect(() => pods.lister.pods("other").get("elsewhere-0")).toThrow(
      expect.objectContaining({ name: "StatusError" }) as Error,
    );
    try {
      pods.lister.pods("default").get("missing");
      expect.unreachable("get of a missing pod must throw");
    } catch (err) {
      expect(isNotFound(err)).toBe(true);
    }
    const initial = await recorder.waitFor("add", "default/web-0");
    expect(initial.isInInitialList).toBe(true);

    await cs.coreV1.pods("other").create(pod("elsewhere-1"));
    const created = await cs.coreV1.pods("default").create(pod("web-1", { app: "web" }));
    expect((await recorder.waitFor("add", "default/web-1")).isInInitialList).toBe(false);
    await cs.coreV1.pods("default").update({
      ...created,
      metadata: { ...created.metadata, labels: { app: "web", tier: "front" } },
    });
    const updated = await recorder.waitFor("update", "default/web-1");
    expect(updated.oldObj?.metadata?.labels).toEqual({ app: "web" });
    expect(updated.obj?.metadata?.labels).toEqual({ app: "web", tier: "front" });
    expect(pods.lister.pods("default").get("web-1").metadata?.labels?.["tier"]).toBe("front");
    await cs.coreV1.pods("default").delete("web-1");
    await recorder.waitFor("delete", "default/web-1");
    expect(names(pods.lister.list())).toEqual(["db-0", "web-0"]);
    expect(recorder.events.every((e) => e.key.startsWith("default/"))).toBe(true);

    // Only the namespace's collection is listed and watched.
    for (const request of transport.sent.filter((r) => r.url.pathname.endsWith("/pods"))) {
      if (request.method === "GET")
        expect(request.url.pathname).toBe("/api/v1/namespaces/default/pods");
    }
    await factory.shutdown();
    stop.abort();
  });

  it("applies tweakListOptions to both the list and the watch", async () => {
    await cs.coreV1.configMaps("tweak").create(configMap("web-a", { app: "web" }));
    await cs.coreV1.configMaps("tweak").create(configMap("db-a", { app: "db" }));
    const stop = new AbortController();
    const factory = new SharedInformerFactory(cs, {
      namespace: "tweak",
      tweakListOptions: (options) => ({ ...options, labelSelector: "app=web" }),
      transform: stripManagedFields,
    });
    const configMaps = factory.coreV1.configMaps();
    const recorder = new EventRecorder<ConfigMap>();
    configMaps.informer.addEventHandler(recorder.handler);
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(
      new Map([["/v1/configmaps", true]]),
    );
    expect(names(configMaps.lister.list())).toEqual(["web-a"]);
    // The transform ran on the cached objects.
    const stored = await cs.coreV1.configMaps("tweak").get("web-a");
    expect(stored.metadata?.managedFields?.length).toBeGreaterThan(0);
    expect(
      configMaps.lister.configMaps("tweak").get("web-a").metadata?.managedFields,
    ).toBeUndefined();

    // Watch events arrive in order: db-b, filtered out by the server, comes before web-b.
    await cs.coreV1.configMaps("tweak").create(configMap("db-b", { app: "db" }));
    await cs.coreV1.configMaps("tweak").create(configMap("web-b", { app: "web" }));
    await recorder.waitFor("add", "tweak/web-b");
    expect(recorder.keys("add")).toEqual(["tweak/web-a", "tweak/web-b"]);
    expect(names(configMaps.lister.configMaps("tweak").list())).toEqual(["web-a", "web-b"]);

    const path = "/api/v1/namespaces/tweak/configmaps";
    expect(transport.lists(path).length).toBeGreaterThan(0);
    expect(transport.watches(path).length).toBeGreaterThan(0);
    for (const request of [...transport.lists(path), ...transport.watches(path)]) {
      expect(request.url.searchParams.get("labelSelector")).toBe("app=web");
    }
    await factory.shutdown();
  });

  it("shares one informer per resource between accessors and forResource, created lazily", () => {
    const factory = new SharedInformerFactory(cs, { namespace: "default" });
    const first = factory.coreV1.pods();
    expect(factory.coreV1.pods().informer).toBe(first.informer);
    expect(factory.forResource({ group: "", version: "v1", resource: "pods" }).informer).toBe(
      first.informer,
    );
    expect(factory.appsV1.deployments().informer).not.toBe(first.informer);
    expect(factory.appsV1.deployments().informer).toBe(
      factory.forResource({ group: "apps", version: "v1", resource: "deployments" }).informer,
    );
    expect(new SharedInformerFactory(cs).coreV1.pods().informer).not.toBe(first.informer);
    expect(first.informer.isStarted).toBe(false);
    expect(() => factory.forResource({ group: "", version: "v1", resource: "bindings" })).toThrow(
      RangeError,
    );
    expect(() =>
      factory.forResource({ group: "example.com", version: "v1", resource: "widgets" }),
    ).toThrow(/no informer for example.com\/v1\/widgets/);
  });

  it("starts only the informers not started yet", async () => {
    await cs.coreV1.pods("start").create(pod("p"));
    await cs.coreV1.configMaps("start").create(configMap("c"));
    const stop = new AbortController();
    const factory = new SharedInformerFactory(cs, { namespace: "start" });
    const podsPath = "/api/v1/namespaces/start/pods";
    const configMapsPath = "/api/v1/namespaces/start/configmaps";
    const secretsPath = "/api/v1/namespaces/start/secrets";

    const pods = factory.coreV1.pods();
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(new Map([["/v1/pods", true]]));
    expect(transport.lists(podsPath)).toHaveLength(1);

    const configMaps = factory.coreV1.configMaps();
    expect(configMaps.informer.isStarted).toBe(false);
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(
      new Map([
        ["/v1/pods", true],
        ["/v1/configmaps", true],
      ]),
    );
    factory.start(stop.signal);
    factory.coreV1.secrets();
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(
      new Map([
        ["/v1/pods", true],
        ["/v1/configmaps", true],
        ["/v1/secrets", true],
      ]),
    );
    expect(transport.lists(podsPath)).toHaveLength(1);
    expect(transport.lists(configMapsPath)).toHaveLength(1);
    expect(transport.lists(secretsPath)).toHaveLength(1);
    expect(names(pods.lister.list())).toEqual(["p"]);
    expect(names(configMaps.lister.list())).toEqual(["c"]);
    await factory.shutdown();
  });

  it("reports false in waitForCacheSync for an informer that has not synced when the signal aborts", async () => {
    const stop = new AbortController();
    const factory = new SharedInformerFactory(cs, { namespace: "sync" });
    factory.coreV1.pods();
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(new Map([["/v1/pods", true]]));

    server.faults.failNext(1, { code: 403, verbs: ["list"] });
    const gaveUp = new AbortController();
    const secrets = factory.coreV1.secrets();
    secrets.informer.setWatchErrorHandler(() => gaveUp.abort());
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(gaveUp.signal)).toEqual(
      new Map([
        ["/v1/pods", true],
        ["/v1/secrets", false],
      ]),
    );
    // The reflector retries after its backoff: the informer syncs without a new start().
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(
      new Map([
        ["/v1/pods", true],
        ["/v1/secrets", true],
      ]),
    );
    await factory.shutdown();
  });

  it("shutdown stops every started informer and waits for them; start then does nothing", async () => {
    const stop = new AbortController();
    const factory = new SharedInformerFactory(cs, { namespace: "stop" });
    const pods = factory.coreV1.pods();
    const configMaps = factory.coreV1.configMaps();
    let releaseHandler: () => void = () => {};
    const handlerGate = new Promise<void>((resolve) => {
      releaseHandler = resolve;
    });
    let handlerEntered: () => void = () => {};
    const entered = new Promise<void>((resolve) => {
      handlerEntered = resolve;
    });
    configMaps.informer.addEventHandler({
      onAdd: async () => {
        handlerEntered();
        await handlerGate;
      },
    });
    factory.start(stop.signal);
    await factory.waitForCacheSync(stop.signal);
    await cs.coreV1.configMaps("stop").create(configMap("slow"));
    await entered;

    let shutDown = false;
    const shutdown = factory.shutdown().then(() => {
      shutDown = true;
    });
    // A round trip to the server gives the informers time to stop what can stop.
    await cs.coreV1.namespaces().get("stop");
    expect(shutDown).toBe(false);
    releaseHandler();
    await shutdown;
    expect(pods.informer.isStopped).toBe(true);
    expect(configMaps.informer.isStopped).toBe(true);
    await factory.shutdown();

    const late = factory.coreV1.secrets();
    factory.start(stop.signal);
    expect(late.informer.isStarted).toBe(false);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(
      new Map([
        ["/v1/pods", true],
        ["/v1/configmaps", true],
      ]),
    );
    stop.abort();
  });

  it("runs a dozen informers without Node's listener-leak warning", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(`${warning.name}: ${warning.message}`);
    };
    process.on("warning", onWarning);
    const stop = new AbortController();
    try {
      const factory = new SharedInformerFactory(cs, { namespace: "sync" });
      const informers = [
        factory.coreV1.pods(),
        factory.coreV1.configMaps(),
        factory.coreV1.secrets(),
        factory.coreV1.services(),
        factory.coreV1.serviceAccounts(),
        factory.coreV1.endpoints(),
        factory.coreV1.events(),
        factory.coreV1.persistentVolumeClaims(),
        factory.appsV1.deployments(),
        factory.appsV1.replicaSets(),
        factory.appsV1.statefulSets(),
        factory.batchV1.jobs(),
      ];
      factory.start(stop.signal);
      const synced = await factory.waitForCacheSync(stop.signal);
      expect([...synced.values()]).toEqual(informers.map(() => true));
      // Node emits "warning" asynchronously.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
    } finally {
      stop.abort();
      process.off("warning", onWarning);
    }
  });
});
