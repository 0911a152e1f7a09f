import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Clientset,
  LazyDynamicSharedInformerFactory,
  LazyMetadataSharedInformerFactory,
  LazySharedInformerFactory,
  Manager,
  labelSelectorPredicate,
  lazyKind,
  splitKey,
  type LazyObject,
} from "kubekit";
import { eventually, useServer } from "../../support/server-test-helpers.js";
import { MemoryLogger } from "./controller-harness.js";

/** The names of the objects whose bodies have been parsed, sorted. */
function parsedNames(objects: readonly LazyObject<unknown>[]): string[] {
  return objects
    .filter((o) => o.parsed)
    .map((o) => o.metadata.name ?? "")
    .sort();
}

/**
 * Lazy (metadata-first) informers through the factories and the Manager against the embedded
 * server (issue 24 §2): the typed and dynamic factories hand out `LazyObject`s, and a
 * controller that watches a `lazyKind` and reads one object parses that object only.
 */
describe("lazy informers through the factories and the controller toolkit", () => {
  const h = useServer();
  let cs: Clientset;
  const ns = "lazy";
  const COUNT = 12;

  beforeAll(async () => {
    cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
    await cs.coreV1.namespaces().create({ metadata: { name: ns } });
    for (let i = 0; i < COUNT; i++) {
      await cs.coreV1.configMaps(ns).create({
        metadata: { name: `c-${i}`, labels: { app: "lazy", idx: String(i) } },
        data: { k: `v${i}` },
      });
    }
  });
  afterAll(async () => {
    await cs.restClient.transport.close();
  });

  it("the typed factory's accessors, listers and forResource share one lazy informer", async () => {
    const factory = new LazySharedInformerFactory(cs, { namespace: ns });
    const configMaps = factory.coreV1.configMaps();
    expect(
      factory.forResource<ConfigMap>({ group: "", version: "v1", resource: "configmaps" }).informer,
    ).toBe(configMaps.informer);
    const added: string[] = [];
    configMaps.informer.addEventHandler({
      onAdd: (cm) => void added.push(cm.metadata.name ?? ""),
    });
    const stop = new AbortController();
    factory.start(stop.signal);
    try {
      expect(await factory.waitForCacheSync(stop.signal)).toEqual(
        new Map([["/v1/configmaps", true]]),
      );
      const all = configMaps.lister.list("app=lazy");
      expect(all).toHaveLength(COUNT);
      const three = configMaps.lister.configMaps(ns).get("c-3");
      expect(three.metadata.labels).toEqual({ app: "lazy", idx: "3" });
      expect(three.object().data).toEqual({ k: "v3" });
      expect(three.object()).toBe(three.object());
      expect(parsedNames(all)).toEqual(["c-3"]);
      await eventually("every add handled", async () =>
        added.length === COUNT ? true : undefined,
      );
    } finally {
      await factory.shutdown();
    }
  });

  it("the dynamic factory reads any resource lazily, typed as asked", async () => {
    const factory = new LazyDynamicSharedInformerFactory(h.server.kubeConfig().restConfig(), {
      namespace: ns,
    });
    const configMaps = factory.forResource<ConfigMap>({
      group: "",
      version: "v1",
      resource: "configmaps",
    });
    const stop = new AbortController();
    factory.start(stop.signal);
    try {
      await factory.waitForCacheSync(stop.signal);
      const five = configMaps.lister.list("idx=5");
      expect(five.map((cm) => cm.object().data)).toEqual([{ k: "v5" }]);
      expect(parsedNames(configMaps.lister.list())).toEqual(["c-5"]);
    } finally {
      await factory.shutdown();
    }
  });

  it("the metadata factory holds lazy PartialObjectMetadata", async () => {
    const factory = new LazyMetadataSharedInformerFactory(h.server.kubeConfig().restConfig(), {
      namespace: ns,
    });
    const configMaps = factory.forResource({ group: "", version: "v1", resource: "configmaps" });
    const stop = new AbortController();
    factory.start(stop.signal);
    try {
      await factory.waitForCacheSync(stop.signal);
      const all = configMaps.lister.list("app=lazy");
      expect(all.map((cm) => cm.kind)).toEqual(Array(COUNT).fill("PartialObjectMetadata"));
      const four = configMaps.lister.namespace(ns).get("c-4").object();
      expect(four).toMatchObject({
        apiVersion: "meta.k8s.io/v1",
        kind: "PartialObjectMetadata",
        metadata: { name: "c-4", labels: { app: "lazy", idx: "4" } },
      });
      expect(four).not.toHaveProperty("data");
      expect(parsedNames(all)).toEqual(["c-4"]);
    } finally {
      await factory.shutdown();
    }
  });

  it("a controller watching a lazyKind parses only what its reconcile reads", async () => {
    const stop = new AbortController();
    const mgr = new Manager({
      kubeConfig: h.server.kubeConfig(),
      registry: new Registry(),
      logger: new MemoryLogger(),
      qps: -1,
    });
    // A field index over the lazy objects' metadata: listing by it parses what it returns.
    mgr.client.indexField(
      lazyKind((i) => i.coreV1.configMaps()),
      "idx",
      (cm) => [cm.metadata.labels?.["idx"] ?? ""],
    );
    const reconciled = new Set<string>();
    const read = new Map<string, ConfigMap>();
    mgr
      .controller("lazy-reader")
      .for(
        lazyKind((i) => i.coreV1.configMaps()),
        {
          predicates: [labelSelectorPredicate("app=lazy")],
        },
      )
      .complete(async (key, signal) => {
        const { namespace, name } = splitKey(key);
        if (name === "c-7") {
          // The plain name reads through the lazy informer (the only one of configmaps).
          const cm = await mgr.client
            .resource((i) => i.coreV1.configMaps(), namespace)
            .get(name, { signal });
          read.set(key, cm);
        }
        reconciled.add(key);
      });
    const running = mgr.start(stop.signal);
    try {
      await eventually("every key reconciled", async () =>
        reconciled.size >= COUNT ? true : undefined,
      );
      expect(read.get(`${ns}/c-7`)?.data).toEqual({ k: "v7" });
      const informer = mgr.client.informer(lazyKind((i) => i.coreV1.configMaps()));
      expect(parsedNames(informer.indexer.list())).toEqual(["c-7"]);
      // A list reads through the metadata, then parses the objects it returns.
      const listed = await mgr.client
        .resource(
          lazyKind((i) => i.coreV1.configMaps()),
          ns,
        )
        .list({ labelSelector: "idx in (1,2)" });
      expect(listed.items.map((cm) => cm.data?.["k"]).sort()).toEqual(["v1", "v2"]);
      expect(parsedNames(informer.indexer.list())).toEqual(["c-1", "c-2", "c-7"]);
      const byIndex = await mgr.client
        .resource(
          lazyKind((i) => i.coreV1.configMaps()),
          ns,
        )
        .list({ fieldSelector: "idx=9" });
      expect(byIndex.items.map((cm) => cm.metadata?.name)).toEqual(["c-9"]);
      expect(parsedNames(informer.indexer.list())).toEqual(["c-1", "c-2", "c-7", "c-9"]);
    } finally {
      stop.abort();
      await running;
    }
  });
});
