import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApplyRequestError,
  Clientset,
  DynamicClient,
  type KubeObject,
  type KubeObjectList,
  type ResourceClient,
  isConflict,
  isNotFound,
  isStatus,
  isUnsupportedMediaType,
  type StatusError,
  PatchTypes,
} from "kubekit";
import type { ApiServer } from "@kubekit/apiserver";
import { AUTH_MODES, startClientTestServer } from "./client-test-server.js";
import { rejectionOf } from "../../support/rejection.js";

/**
 * The DynamicClient against the embedded API server over HTTPS (token and client
 * certificate): every verb on a custom resource whose CRD is created through the typed
 * apiextensions client, and on a built-in resource.
 */

const GROUP = "dynamic.example.com";
const WIDGETS = { group: GROUP, version: "v1", resource: "widgets" };

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
          openAPIV3Schema: {
            type: "object",
            properties: { spec: preserveUnknownFields, status: preserveUnknownFields },
          },
        },
        subresources: {
          status: {},
          scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
        },
      },
    ],
  },
};

function widget(name: string, labels: Record<string, string> = {}, replicas = 1): KubeObject {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: "Widget",
    metadata: { name, labels },
    spec: { color: "blue", replicas },
  };
}

function specOf(object: KubeObject): Record<string, unknown> {
  return object["spec"] as Record<string, unknown>;
}

describe.each(AUTH_MODES)("DynamicClient over HTTPS with %s authentication", (mode) => {
  let server: ApiServer;
  let cs: Clientset;
  let dc: DynamicClient;
  let widgets: ResourceClient<KubeObject, KubeObjectList>;
  const ns = "client-dynamic";

  beforeAll(async () => {
    const started = await startClientTestServer(mode);
    server = started.server;
    cs = new Clientset(started.config);
    dc = new DynamicClient(started.config);
    await cs.coreV1.namespaces().create({ metadata: { name: ns } });
    await cs.coreV1.namespaces().create({ metadata: { name: `${ns}-other` } });
    const crd = await cs.apiextensionsV1.customResourceDefinitions().create(widgetCrd);
    expect(crd.metadata?.name).toBe(`widgets.${GROUP}`);
    widgets = dc.resource(WIDGETS).namespace(ns);
  });

  afterAll(async () => {
    // Clients built from one config object share its transport: close it once.
    expect(dc.restClient.transport).toBe(cs.restClient.transport);
    await cs.restClient.transport.close();
    await server.stop();
  });

  it("creates, gets, lists and updates custom resources; a stale update is a Conflict", async () => {
    const created = await widgets.create(widget("w1", { tier: "a" }));
    expect(created.kind).toBe("Widget");
    expect(created.metadata.namespace).toBe(ns);
    expect(specOf(await widgets.get("w1"))).toEqual({ color: "blue", replicas: 1 });

    const list = await widgets.list({ labelSelector: "tier=a" });
    expect(list.kind).toBe("WidgetList");
    expect(list.items.map((w) => w.metadata.name)).toEqual(["w1"]);

    const updated = await widgets.update({ ...created, spec: { color: "red", replicas: 1 } });
    expect(specOf(updated)["color"]).toBe("red");
    const stale = await rejectionOf(widgets.update({ ...created, spec: { color: "green" } }));
    expect(isConflict(stale)).toBe(true);
  });

  it("reads all namespaces without .namespace(), and pages with listAll/listPages", async () => {
    for (let i = 0; i < 7; i++) {
      await dc
        .resource(WIDGETS)
        .namespace(i % 2 === 0 ? ns : `${ns}-other`)
        .create(widget(`paged-${i}`, { paged: "yes" }));
    }
    const all = await dc.resource(WIDGETS).listAll({ labelSelector: "paged=yes", limit: 3 });
    expect(all.items).toHaveLength(7);
    expect(new Set(all.items.map((w) => w.metadata.namespace))).toEqual(
      new Set([ns, `${ns}-other`]),
    );
    const sizes: number[] = [];
    for await (const page of dc
      .resource(WIDGETS)
      .listPages({ labelSelector: "paged=yes", limit: 3 })) {
      sizes.push(page.items.length);
    }
    expect(sizes).toEqual([3, 3, 1]);
    const inNamespace = await widgets.listAll({ labelSelector: "paged=yes", limit: 2 });
    expect(inNamespace.items).toHaveLength(4);
  });

  it("listAll falls back to a full list when the continue token expires", async () => {
    for (let i = 0; i < 5; i++) await widgets.create(widget(`expiring-${i}`, { expiring: "yes" }));
    let pages = 0;
    const result = await widgets.listAll({
      labelSelector: "expiring=yes",
      limit: 2,
      onPage: async () => {
        if (++pages > 1) return;
        await widgets.create(widget("expiring-unrelated"));
        server.faults.compactHistory();
      },
    });
    expect(pages).toBe(2);
    expect(result.items).toHaveLength(5);
  });

  it("watches custom resources", async () => {
    const start = (await widgets.list({ limit: 1 })).metadata.resourceVersion;
    const watch = widgets.watch({ resourceVersion: start, labelSelector: "watched=yes" });
    await widgets.create(widget("watched", { watched: "yes" }));
    await widgets.patch("watched", PatchTypes.merge, { spec: { color: "pink" } });
    await widgets.delete("watched");
    const seen: string[] = [];
    for await (const event of watch) {
      if (event.type === "ERROR") throw new Error(event.object.message);
      seen.push(`${event.type} ${String(specOf(event.object)["color"])}`);
      if (event.type === "DELETED") break;
    }
    expect(seen).toEqual(["ADDED blue", "MODIFIED pink", "DELETED pink"]);
  });

  it("patches with JSON Patch and merge patch; strategic merge is refused (415)", async () => {
    await widgets.create(widget("patched"));
    const json = await widgets.patch("patched", PatchTypes.json, [
      { op: "replace", path: "/spec/color", value: "yellow" },
    ]);
    expect(specOf(json)["color"]).toBe("yellow");
    const merged = await widgets.patch("patched", PatchTypes.merge, { spec: { size: 3 } });
    expect(specOf(merged)).toEqual({ color: "yellow", replicas: 1, size: 3 });
    const strategic = await rejectionOf(
      widgets.patch("patched", PatchTypes.strategicMerge, { spec: { size: 4 } }),
    );
    expect(isUnsupportedMediaType(strategic)).toBe(true);
    const status = await widgets.patch(
      "patched",
      PatchTypes.merge,
      { status: { ready: true } },
      { subresource: "status" },
    );
    expect(status["status"]).toEqual({ ready: true });
  });

  it("updateStatus changes only the status subresource", async () => {
    const created = await widgets.create(widget("status"));
    const updated = await widgets.updateStatus({
      ...created,
      spec: { color: "ignored" },
      status: { phase: "Done" },
    });
    expect(updated["status"]).toEqual({ phase: "Done" });
    expect(specOf(updated)["color"]).toBe("blue");
  });

  it("server-side apply creates, conflicts and forces; refuses managed fields", async () => {
    const applied = await widgets.apply(
      {
        apiVersion: `${GROUP}/v1`,
        kind: "Widget",
        metadata: { name: "applied" },
        spec: { color: "a" },
      },
      { fieldManager: "alpha" },
    );
    expect(specOf(applied)).toEqual({ color: "a" });
    const conflict = await rejectionOf(
      widgets.apply(
        {
          apiVersion: `${GROUP}/v1`,
          kind: "Widget",
          metadata: { name: "applied" },
          spec: { color: "b" },
        },
        { fieldManager: "beta" },
      ),
    );
    expect(isConflict(conflict)).toBe(true);
    const forced = await widgets.apply(
      {
        apiVersion: `${GROUP}/v1`,
        kind: "Widget",
        metadata: { name: "applied" },
        spec: { color: "b" },
      },
      { fieldManager: "beta", force: true },
    );
    expect(specOf(forced)).toEqual({ color: "b" });
    const refused = await rejectionOf(widgets.apply(forced, { fieldManager: "alpha" }));
    expect(refused).toBeInstanceOf(ApplyRequestError);
    expect((refused as ApplyRequestError).problem).toBe("ManagedFieldsPresent");
  });

  it("gets, updates and patches the scale subresource of a custom resource", async () => {
    await widgets.create(widget("scaled", {}, 2));
    const scale = await widgets.getScale("scaled");
    expect(scale.spec?.replicas).toBe(2);
    const updated = await widgets.updateScale("scaled", { ...scale, spec: { replicas: 4 } });
    expect(updated.spec?.replicas).toBe(4);
    const patched = await widgets.patchScale("scaled", PatchTypes.merge, { spec: { replicas: 6 } });
    expect(patched.spec?.replicas).toBe(6);
    expect(specOf(await widgets.get("scaled"))["replicas"]).toBe(6);
  });

  it("delete answers a Status for custom resources; deleteCollection honours selectors", async () => {
    await widgets.create(widget("deleted"));
    const result = await widgets.delete("deleted");
    expect(isStatus(result)).toBe(true);
    expect(isNotFound(await rejectionOf(widgets.get("deleted")))).toBe(true);

    for (const name of ["bulk-1", "bulk-2"]) await widgets.create(widget(name, { bulk: "yes" }));
    await widgets.create(widget("bulk-kept", { bulk: "no" }));
    await widgets.deleteCollection({ labelSelector: "bulk=yes" });
    expect(
      (await widgets.list({ labelSelector: "bulk" })).items.map((w) => w.metadata.name),
    ).toEqual(["bulk-kept"]);
  });

  it("works on built-in resources, and returns the deleted object where the server does", async () => {
    const pods = dc.resource({ group: "", version: "v1", resource: "pods" }).namespace(ns);
    const created = await pods.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "dyn-pod" },
      spec: { containers: [{ name: "main", image: "busybox" }] },
    });
    expect(created.kind).toBe("Pod");
    const typed = await cs.coreV1.pods(ns).get("dyn-pod");
    expect(typed.metadata?.uid).toBe(created.metadata.uid);
    const deleted = await pods.delete("dyn-pod");
    expect(isStatus(deleted)).toBe(false);
    expect(deleted.kind).toBe("Pod");
  });

  it("answers 404 for a resource the server does not serve", async () => {
    const err = await rejectionOf(
      dc.resource({ group: GROUP, version: "v1", resource: "gadgets" }).namespace(ns).list(),
    );
    expect((err as StatusError).code).toBe(404);
  });
});
