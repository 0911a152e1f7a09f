import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Clientset,
  DynamicClient,
  type KubeObject,
  type PartialObjectMetadata,
  type RestConfig,
  isNotFound,
} from "kubekit";
import {
  DynamicSharedInformerFactory,
  MetadataSharedInformerFactory,
} from "../../../packages/kubekit/src/informers/index.js";
import { ApiServer } from "@kubekit/apiserver";
import { EventRecorder } from "./event-recorder.js";

/**
 * The dynamic and metadata informer factories against the embedded API server: a custom
 * resource's informer, the namespace option, built-in cluster-scoped resources, and
 * metadata-only caches.
 */

const GROUP = "informers.example.com";
const WIDGETS = { group: GROUP, version: "v1", resource: "widgets" };
const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };
const NAMESPACES = { group: "", version: "v1", resource: "namespaces" };

/** kubernetes-types' JSONSchemaProps lacks the x-kubernetes-* extensions: a variable avoids its excess-property check. */
const preserveUnknownFields = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

const widgetCrd: CustomResourceDefinition = {
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: "object", properties: { spec: preserveUnknownFields } },
        },
      },
    ],
  },
};

function widget(name: string, color: string): KubeObject {
  return { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name }, spec: { color } };
}

describe("DynamicSharedInformerFactory and MetadataSharedInformerFactory", () => {
  let server: ApiServer;
  let config: RestConfig;
  let cs: Clientset;
  let dc: DynamicClient;

  beforeAll(async () => {
    server = await ApiServer.start();
    config = { ...server.kubeConfig().restConfig(), qps: -1 };
    cs = new Clientset(config);
    dc = new DynamicClient(config);
    for (const ns of ["dyn", "dyn-other"]) {
      await cs.coreV1.namespaces().create({ metadata: { name: ns } });
    }
    await cs.apiextensionsV1.customResourceDefinitions().create(widgetCrd);
    await dc.resource(WIDGETS).namespace("dyn").create(widget("w1", "blue"));
    await dc.resource(WIDGETS).namespace("dyn-other").create(widget("w-other", "red"));
  });

  afterAll(async () => {
    // Every client here is built from one config object and shares its transport.
    await cs.restClient.transport.close();
    await server.stop();
  });

  it("informs on a custom resource in the factory's namespace", async () => {
    const stop = new AbortController();
    const factory = new DynamicSharedInformerFactory(dc, { namespace: "dyn" });
    expect(factory.client).toBe(dc);
    const widgets = factory.forResource(WIDGETS);
    expect(factory.forResource(WIDGETS).informer).toBe(widgets.informer);
    const recorder = new EventRecorder<KubeObject>();
    widgets.informer.addEventHandler(recorder.handler);
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(
      new Map([[`${GROUP}/v1/widgets`, true]]),
    );
    expect(widgets.lister.list().map((w) => w.metadata.name)).toEqual(["w1"]);
    expect(widgets.lister.namespace("dyn").get("w1")["spec"]).toEqual({ color: "blue" });
    expect(widgets.lister.namespace("dyn").get("w1").kind).toBe("Widget");

    await dc.resource(WIDGETS).namespace("dyn-other").create(widget("w-other-2", "red"));
    await dc.resource(WIDGETS).namespace("dyn").create(widget("w2", "green"));
    const added = await recorder.waitFor("add", "dyn/w2");
    expect(added.obj?.["spec"]).toEqual({ color: "green" });
    expect(recorder.keys("add")).toEqual(["dyn/w1", "dyn/w2"]);
    await dc.resource(WIDGETS).namespace("dyn").delete("w2");
    await recorder.waitFor("delete", "dyn/w2");
    try {
      widgets.lister.namespace("dyn").get("w2");
      expect.unreachable("a deleted widget must not be cached");
    } catch (err) {
      expect(isNotFound(err)).toBe(true);
    }
    await factory.shutdown();
    expect(widgets.informer.isStopped).toBe(true);
  });

  it("ignores the namespace for built-in cluster-scoped resources and validates resources", async () => {
    const stop = new AbortController();
    const factory = new DynamicSharedInformerFactory(config, { namespace: "dyn" });
    const namespaces = factory.forResource(NAMESPACES);
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(
      new Map([["/v1/namespaces", true]]),
    );
    expect(namespaces.lister.get("dyn-other").metadata.name).toBe("dyn-other");
    expect(namespaces.lister.get("default").kind).toBeUndefined();
    expect(() => factory.forResource({ group: GROUP, version: "", resource: "widgets" })).toThrow(
      TypeError,
    );
    expect(() => factory.forResource({ group: GROUP, version: "v1", resource: "a/b" })).toThrow(
      TypeError,
    );
    await factory.shutdown();
  });

  it("caches only metadata, for built-in and custom resources", async () => {
    await cs.coreV1.configMaps("dyn").create({
      metadata: { name: "settings", labels: { app: "web" } },
      data: { big: "x".repeat(1000) },
    });
    const stop = new AbortController();
    const factory = new MetadataSharedInformerFactory(config, { namespace: "dyn" });
    const configMaps = factory.forResource(CONFIGMAPS);
    const widgets = factory.forResource(WIDGETS);
    const recorder = new EventRecorder<PartialObjectMetadata>();
    configMaps.informer.addEventHandler(recorder.handler);
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(
      new Map([
        ["/v1/configmaps", true],
        [`${GROUP}/v1/widgets`, true],
      ]),
    );
    const settings = configMaps.lister.namespace("dyn").get("settings");
    expect(settings.apiVersion).toBe("meta.k8s.io/v1");
    expect(settings.kind).toBe("PartialObjectMetadata");
    expect(settings.metadata.labels).toEqual({ app: "web" });
    expect(Object.keys(settings).sort()).toEqual(["apiVersion", "kind", "metadata"]);
    expect(configMaps.lister.list("app=web").map((c) => c.metadata.name)).toEqual(["settings"]);
    const widget1 = widgets.lister.namespace("dyn").get("w1");
    expect(widget1.kind).toBe("PartialObjectMetadata");
    expect(Object.keys(widget1).sort()).toEqual(["apiVersion", "kind", "metadata"]);

    const current = await cs.coreV1.configMaps("dyn").get("settings");
    await cs.coreV1.configMaps("dyn").update({
      ...current,
      metadata: { ...current.metadata, labels: { app: "db" } },
    });
    const updated = await recorder.waitFor("update", "dyn/settings");
    expect(updated.obj?.kind).toBe("PartialObjectMetadata");
    expect(updated.obj?.metadata.labels).toEqual({ app: "db" });
    expect(Object.keys(updated.obj ?? {}).sort()).toEqual(["apiVersion", "kind", "metadata"]);
    expect(configMaps.lister.list("app=web")).toEqual([]);
    await factory.shutdown();
  });
});
