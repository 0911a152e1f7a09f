import type { ConfigMap, Pod } from "kubernetes-types/core/v1.js";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CacheReadError,
  Clientset,
  Manager,
  MutateFnError,
  createOrPatch,
  createOrUpdate,
  isNotFound,
} from "kubekit";
import { eventually, useServer } from "../../support/server-test-helpers.js";
import { MemoryLogger } from "./controller-harness.js";

/**
 * The Manager's cache-backed client, createOrUpdate and createOrPatch against the embedded
 * server: reads from informers started on first use, writes to the server, no write when
 * nothing changed (counted from the server's resourceVersions).
 */
describe("cache-backed client and createOrUpdate/createOrPatch", () => {
  const h = useServer();
  let cs: Clientset;
  let mgr: Manager;
  const stop = new AbortController();
  let running: Promise<void>;
  const ns = "cached-client";

  beforeAll(async () => {
    cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
    await cs.coreV1.namespaces().create({ metadata: { name: ns } });
    mgr = new Manager({
      kubeConfig: h.server.kubeConfig(),
      registry: new Registry(),
      logger: new MemoryLogger(),
      qps: -1,
      client: { uncached: [(i) => i.coreV1.secrets()] },
    });
    mgr.client.indexField(
      (i) => i.coreV1.pods(),
      "spec.nodeName",
      (pod) => (pod.spec?.nodeName !== undefined ? [pod.spec.nodeName] : []),
    );
    running = mgr.start(stop.signal);
    await mgr.elected();
  });
  afterAll(async () => {
    stop.abort();
    await running;
    await cs.restClient.transport.close();
  });

  it("reads from an informer started on the first read, and writes to the server", async () => {
    await cs.coreV1.configMaps(ns).create({ metadata: { name: "a", labels: { app: "x" } } });
    const configMaps = mgr.client.resource((i) => i.coreV1.configMaps(), ns);
    const a = await configMaps.get("a");
    expect(a.metadata?.labels).toEqual({ app: "x" });
    // Shared with the cache: the same object on every read.
    expect(await configMaps.get("a")).toBe(a);
    await expect(configMaps.get("missing")).rejects.toSatisfy(isNotFound);
    const created = await configMaps.create({ metadata: { name: "b", labels: { app: "y" } } });
    expect(created.metadata?.uid).toBeTruthy();
    const listed = await eventually("b in the cache", async () => {
      const list = await configMaps.list({ labelSelector: "app=y" });
      return list.items.length === 1 ? list : undefined;
    });
    expect(listed.items[0]?.metadata?.name).toBe("b");
    expect(listed.metadata.resourceVersion).not.toBe("");
  });

  it("lists by an indexed field, refuses non-exact and unindexed field selectors", async () => {
    const pod = (name: string, nodeName: string): Pod => ({
      metadata: { name },
      spec: { nodeName, containers: [{ name: "c", image: "busybox" }] },
    });
    await cs.coreV1.pods(ns).create(pod("p1", "node-1"));
    await cs.coreV1.pods(ns).create(pod("p2", "node-2"));
    const pods = mgr.client.resource((i) => i.coreV1.pods(), ns);
    const onNode1 = await eventually("p1 indexed", async () => {
      const list = await pods.list({ fieldSelector: "spec.nodeName=node-1" });
      return list.items.length === 1 ? list.items : undefined;
    });
    expect(onNode1.map((p) => p.metadata?.name)).toEqual(["p1"]);
    // Across namespaces through the all-namespaces index values.
    const everywhere = await eventually("p2 indexed", async () => {
      const list = await mgr.client
        .resource((i) => i.coreV1.pods())
        .list({ fieldSelector: "spec.nodeName=node-2" });
      return list.items.length > 0 ? list.items : undefined;
    });
    expect(everywhere.map((p) => p.metadata?.name)).toEqual(["p2"]);
    await expect(pods.list({ fieldSelector: "spec.nodeName!=node-1" })).rejects.toMatchObject({
      reason: "NonExactFieldSelector",
    });
    await expect(pods.list({ fieldSelector: "status.phase=Running" })).rejects.toBeInstanceOf(
      CacheReadError,
    );
  });

  it("reads uncached kinds from the server", async () => {
    await cs.coreV1.secrets(ns).create({ metadata: { name: "s" }, stringData: { k: "v" } });
    const secrets = mgr.client.resource((i) => i.coreV1.secrets(), ns);
    const first = await secrets.get("s");
    // A fresh object per read: it came from the server, not a shared cache.
    expect(await secrets.get("s")).not.toBe(first);
    expect(first.data?.["k"]).toBe(Buffer.from("v").toString("base64"));
  });

  it("reads custom-resource-like kinds by resource, as unstructured objects", async () => {
    await cs.appsV1.deployments(ns).create(deployment("d1", 1));
    const deployments = mgr.client.resource(
      { group: "apps", version: "v1", resource: "deployments" },
      ns,
    );
    const d1 = await eventually("d1 cached", async () => {
      try {
        return await deployments.get("d1");
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    });
    expect(d1["spec"]).toMatchObject({ replicas: 1 });
  });

  it("createOrUpdate through the cache: created, unchanged without a write, updated", async () => {
    const configMaps = mgr.client.resource((i) => i.coreV1.configMaps(), ns);
    const desired = (): ConfigMap => ({ metadata: { name: "cou", namespace: ns } });
    const mutate = (cm: ConfigMap): void => {
      cm.data = { ...cm.data, mode: "fast" };
    };
    const obj = desired();
    expect(await createOrUpdate(configMaps, obj, mutate)).toBe("created");
    const rv = obj.metadata?.resourceVersion;
    expect(obj.data).toEqual({ mode: "fast" });
    await eventually("cou cached", async () =>
      (await configMaps.list()).items.find((c) => c.metadata?.name === "cou"),
    );
    const cached = await configMaps.get("cou");
    const again = desired();
    expect(await createOrUpdate(configMaps, again, mutate)).toBe("unchanged");
    expect(again.metadata?.resourceVersion).toBe(rv);
    expect(cached.data).toEqual({ mode: "fast" }); // the cached object was not mutated
    expect((await cs.coreV1.configMaps(ns).get("cou")).metadata?.resourceVersion).toBe(rv);
    const third = desired();
    expect(await createOrUpdate(configMaps, third, (cm) => void (cm.data = { mode: "slow" }))).toBe(
      "updated",
    );
    expect(third.metadata?.resourceVersion).not.toBe(rv);
    expect((await cs.coreV1.configMaps(ns).get("cou")).data).toEqual({ mode: "slow" });
    await expect(
      createOrUpdate(configMaps, desired(), (cm) => void (cm.metadata = { name: "other" })),
    ).rejects.toBeInstanceOf(MutateFnError);
  });

  it("createOrPatch patches the object and its status separately", async () => {
    const client = cs.appsV1.deployments(ns);
    const obj = deployment("cop", 1);
    expect(await createOrPatch(client, obj)).toBe("created");
    expect(await createOrPatch(client, deployment("cop", 1), () => undefined)).toBe("unchanged");
    const spec = deployment("cop", 1);
    expect(
      await createOrPatch(client, spec, (d) => {
        d.spec = { ...d.spec!, replicas: 2 };
      }),
    ).toBe("updated");
    expect(spec.spec?.replicas).toBe(2);
    const status = deployment("cop", 1);
    expect(
      await createOrPatch(client, status, (d) => {
        d.status = { ...d.status, observedGeneration: 7 };
      }),
    ).toBe("updatedStatusOnly");
    expect((await client.get("cop")).status?.observedGeneration).toBe(7);
    const both = deployment("cop", 1);
    expect(
      await createOrPatch(client, both, (d) => {
        d.metadata!.labels = { tier: "web" };
        d.status = { ...d.status, observedGeneration: 8 };
      }),
    ).toBe("updatedStatus");
    const stored = await client.get("cop");
    expect(stored.metadata?.labels).toEqual({ tier: "web" });
    expect(stored.status?.observedGeneration).toBe(8);
    expect(stored.spec?.replicas).toBe(2);
  });
});

function deployment(name: string, replicas: number): Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "c", image: "nginx" }] },
      },
    },
  };
}
