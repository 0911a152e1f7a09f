import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Clientset,
  ControllerBuilderError,
  Manager,
  channelSource,
  createOrUpdate,
  enqueueForObject,
  isNotFound,
  labelSelectorPredicate,
  setControllerReference,
  splitKey,
} from "kubekit";
import { eventually, useServer } from "../../support/server-test-helpers.js";
import { MemoryLogger } from "./controller-harness.js";

/**
 * The controller builder on the embedded server: `for`/`owns`/`watches` take their informers
 * from the Manager's cache (never started by hand), the event filter applies to every watch,
 * and the controller's metrics appear without wiring.
 */
describe("Manager.controller builder", () => {
  const h = useServer();
  let cs: Clientset;
  let mgr: Manager;
  const stop = new AbortController();
  let running: Promise<void>;
  const ns = "builder";
  const reconciled: string[] = [];
  const nudges: Deployment[] = [];
  let nudge: (d: Deployment) => void = (d) => void nudges.push(d);

  beforeAll(async () => {
    cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
    await cs.coreV1.namespaces().create({ metadata: { name: ns } });
    const registry = new Registry();
    mgr = new Manager({
      kubeConfig: h.server.kubeConfig(),
      registry,
      logger: new MemoryLogger(),
      qps: -1,
      healthPort: 0,
      metricsPort: 0,
    });
    async function* channel(): AsyncGenerator<Deployment> {
      for (;;) {
        const next = nudges.shift();
        if (next !== undefined) {
          yield next;
          continue;
        }
        await new Promise<void>((resolve) => {
          nudge = (d) => {
            nudges.push(d);
            resolve();
          };
        });
      }
    }
    mgr
      .controller("settings")
      .for((i) => i.appsV1.deployments())
      .owns((i) => i.coreV1.configMaps())
      .watches(channelSource(channel(), enqueueForObject()))
      .withEventFilter(labelSelectorPredicate({ matchLabels: { managed: "yes" } }))
      .withOptions({ workers: 2 })
      .complete(async (key, signal) => {
        reconciled.push(key);
        const { namespace, name } = splitKey(key);
        const deployments = mgr.client.resource((i) => i.appsV1.deployments(), namespace);
        let deployment: Deployment;
        try {
          deployment = await deployments.get(name, { signal });
        } catch (error) {
          if (isNotFound(error)) return;
          throw error;
        }
        const settings: ConfigMap = { metadata: { name: `${name}-settings`, namespace } };
        await createOrUpdate(
          mgr.client.resource((i) => i.coreV1.configMaps(), namespace),
          settings,
          (cm) => {
            cm.metadata!.labels = { managed: "yes" };
            cm.data = { replicas: String(deployment.spec?.replicas ?? 1) };
            setControllerReference(deployment, cm, { apiVersion: "apps/v1", kind: "Deployment" });
          },
          { signal },
        );
      });
    running = mgr.start(stop.signal);
    await mgr.elected();
  });
  afterAll(async () => {
    stop.abort();
    await running;
    await cs.restClient.transport.close();
  });

  it("reconciles the for kind through informers the manager started", async () => {
    await cs.appsV1.deployments(ns).create(deployment("web", 2, { managed: "yes" }));
    const cm = await eventually("web-settings", () => getConfigMap("web-settings"));
    expect(cm.data).toEqual({ replicas: "2" });
    expect(cm.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Deployment", name: "web" });
  });

  it("an owned object's change enqueues its owner, which restores it", async () => {
    await eventually("web-settings", () => getConfigMap("web-settings"));
    await cs.coreV1
      .configMaps(ns)
      .patch("web-settings", "application/merge-patch+json", { data: { replicas: "9" } });
    await eventually("restored", async () => {
      const cm = await getConfigMap("web-settings");
      return cm?.data?.["replicas"] === "2" ? cm : undefined;
    });
  });

  it("the event filter holds back objects it rejects", async () => {
    await cs.appsV1.deployments(ns).create(deployment("other", 1, { managed: "no" }));
    await cs.appsV1.deployments(ns).create(deployment("later", 1, { managed: "yes" }));
    await eventually("later-settings", () => getConfigMap("later-settings"));
    expect(reconciled).not.toContain(`${ns}/other`);
  });

  it("a channel source enqueues its objects", async () => {
    const before = reconciled.length;
    nudge({ metadata: { name: "other", namespace: ns } });
    await eventually("other reconciled", async () =>
      reconciled.slice(before).includes(`${ns}/other`) ? true : undefined,
    );
    expect((await getConfigMap("other-settings"))?.data).toEqual({ replicas: "1" });
  });

  it("serves the controller's metrics and readiness without wiring", async () => {
    const metrics = await (await fetch(`http://127.0.0.1:${mgr.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/controller_runtime_reconcile_total\{[^}]*controller="settings"/);
    expect(metrics).toMatch(/workqueue_adds_total\{[^}]*name="settings"/);
    const ready = await fetch(`http://127.0.0.1:${mgr.healthPort}/readyz`);
    expect(ready.status).toBe(200);
  });

  it("refuses misuse: owns without for, for twice, builders after start", () => {
    expect(() =>
      mgr
        .controller("x")
        .owns((i) => i.coreV1.configMaps())
        .complete(() => undefined),
    ).toThrow(ControllerBuilderError);
    expect(() =>
      mgr
        .controller("y")
        .for((i) => i.coreV1.pods())
        .for((i) => i.coreV1.pods()),
    ).toThrow(/only be called once/);
    expect(() =>
      mgr
        .controller("z")
        .for((i) => i.coreV1.pods())
        .complete(() => undefined),
    ).toThrow(/before start/);
  });

  async function getConfigMap(name: string): Promise<ConfigMap | undefined> {
    try {
      return await cs.coreV1.configMaps(ns).get(name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
});

function deployment(name: string, replicas: number, labels: Record<string, string>): Deployment {
  return {
    metadata: { name, labels },
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
