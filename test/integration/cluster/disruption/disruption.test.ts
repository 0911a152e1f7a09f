import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { PodDisruptionBudget } from "kubernetes-types/policy/v1.js";
import { describe, expect, it } from "vitest";
import { Clientset } from "kubekit";
import { SIMULATION_ANNOTATIONS } from "@kubekit/cluster";
import { causesOf, eventually, useServer } from "../../../support/server-test-helpers.js";
import { createTestNamespace } from "../workload-helpers.js";

/**
 * The simulated disruption controller and the Eviction subresource over real HTTP: the
 * budget's status for minAvailable and maxUnavailable (integer and percent), evictions that
 * consume a disruption, the 429 once none is left, the 500 for two budgets, and the rules for
 * unready pods (unhealthyPodEvictionPolicy).
 */

/** How long a rollout or a budget's status may take on a loaded CI machine. */
const WAIT_MS = 20_000;

function deployment(name: string, replicas: number): Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "app", image: "nginx" }] },
      },
    },
  };
}

function budget(name: string, app: string, spec: Partial<PodDisruptionBudget["spec"]>) {
  return { metadata: { name }, spec: { selector: { matchLabels: { app } }, ...spec } };
}

describe("disruption controller and eviction", () => {
  const h = useServer({
    cluster: { nodes: 1, controllers: ["replicaset", "deployment", "disruption"] },
  });
  const client = (): Clientset => new Clientset(h.server.kubeConfig().restConfig());

  async function settledStatus(
    cs: Clientset,
    ns: string,
    name: string,
    check: (s: NonNullable<PodDisruptionBudget["status"]>) => boolean,
  ): Promise<NonNullable<PodDisruptionBudget["status"]>> {
    return eventually(
      `${name} status`,
      async () => {
        const status = (await cs.policyV1.podDisruptionBudgets(ns).get(name)).status;
        return status !== undefined && check(status) ? status : undefined;
      },
      WAIT_MS,
    );
  }

  function evict(ns: string, pod: string) {
    return h.client.post(`/api/v1/namespaces/${ns}/pods/${pod}/eviction`, {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: pod, namespace: ns },
    });
  }

  async function readyPods(cs: Clientset, ns: string, app: string, count: number): Promise<Pod[]> {
    return eventually(
      `${count} ready ${app} pods`,
      async () => {
        const pods = (await cs.coreV1.pods(ns).list({ labelSelector: `app=${app}` })).items.filter(
          (p) =>
            p.metadata?.deletionTimestamp === undefined &&
            p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
        );
        return pods.length === count ? pods : undefined;
      },
      WAIT_MS,
    );
  }

  it("fills the status of minAvailable and evictions consume disruptions until a 429", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "pdb-min");
    await cs.appsV1.deployments(ns).create(deployment("web", 3));
    const pods = await readyPods(cs, ns, "web", 3);
    await cs.policyV1.podDisruptionBudgets(ns).create(budget("web", "web", { minAvailable: 2 }));
    const status = await settledStatus(cs, ns, "web", (s) => s.currentHealthy === 3);
    expect(status).toMatchObject({
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
      disruptionsAllowed: 1,
      observedGeneration: 1,
    });
    expect(status.conditions?.[0]).toMatchObject({
      type: "DisruptionAllowed",
      status: "True",
      reason: "SufficientPods",
    });

    const [first, second] = pods.map((p) => p.metadata?.name ?? "");
    const evicted = await evict(ns, first ?? "");
    expect(evicted.status).toBe(201);
    expect(evicted.json).toMatchObject({ kind: "Status", status: "Success" });
    const after = await cs.policyV1.podDisruptionBudgets(ns).get("web");
    expect(after.status?.disruptionsAllowed).toBe(0);
    expect(Object.keys(after.status?.disruptedPods ?? {})).toEqual([first]);

    const refused = await evict(ns, second ?? "");
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({
      reason: "TooManyRequests",
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
    });
    expect(causesOf(refused.json)).toEqual([
      {
        reason: "DisruptionBudget",
        message: expect.stringMatching(
          /^The disruption budget web needs 2 healthy pods and has \d currently$/,
        ),
      },
    ]);
    // The replacement pod becomes Ready: one disruption is allowed again.
    await settledStatus(cs, ns, "web", (s) => s.currentHealthy === 3 && s.disruptionsAllowed === 1);
  });

  it("scales maxUnavailable percentages by the controllers' replicas, rounding up", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "pdb-max");
    await cs.appsV1.deployments(ns).create(deployment("api", 3));
    await readyPods(cs, ns, "api", 3);
    await cs.policyV1
      .podDisruptionBudgets(ns)
      .create(budget("api", "api", { maxUnavailable: "50%" }));
    const status = await settledStatus(cs, ns, "api", (s) => s.currentHealthy === 3);
    // ceil(50% of 3) = 2 may be unavailable: 1 desired healthy, 2 disruptions allowed.
    expect(status).toMatchObject({ expectedPods: 3, desiredHealthy: 1, disruptionsAllowed: 2 });
    await cs.policyV1
      .podDisruptionBudgets(ns)
      .create(budget("api-min", "api", { minAvailable: "50%" }));
    const min = await settledStatus(cs, ns, "api-min", (s) => s.currentHealthy === 3);
    expect(min).toMatchObject({ expectedPods: 3, desiredHealthy: 2, disruptionsAllowed: 1 });
    const [pod] = await readyPods(cs, ns, "api", 3);
    const twice = await evict(ns, pod?.metadata?.name ?? "");
    expect(twice.status).toBe(500);
    expect(twice.json.message).toBe(
      "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
    );
  });

  it("evicts an unready pod only as unhealthyPodEvictionPolicy allows", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "pdb-unready");
    await cs.coreV1.pods(ns).create({
      metadata: {
        name: "slow",
        labels: { app: "slow" },
        // Not Ready, and slow to stop: the evicted pod stays while it terminates.
        annotations: {
          [SIMULATION_ANNOTATIONS.ready]: "false",
          [SIMULATION_ANNOTATIONS.terminationMs]: "600000",
        },
      },
      spec: { containers: [{ name: "app", image: "nginx" }] },
    });
    await eventually("slow running", async () =>
      (await cs.coreV1.pods(ns).get("slow")).status?.phase === "Running" ? true : undefined,
    );
    await cs.policyV1.podDisruptionBudgets(ns).create(budget("slow", "slow", { minAvailable: 1 }));
    const status = await settledStatus(cs, ns, "slow", (s) => s.expectedPods === 1);
    expect(status).toMatchObject({ currentHealthy: 0, desiredHealthy: 1, disruptionsAllowed: 0 });
    expect(status.conditions?.[0]).toMatchObject({ status: "False", reason: "InsufficientPods" });
    // IfHealthyBudget (the default): the budget is not healthy, the eviction is refused.
    const refused = await evict(ns, "slow");
    expect(refused.status).toBe(429);
    expect(causesOf(refused.json)[0]?.message).toBe(
      "The disruption budget slow needs 1 healthy pods and has 0 currently",
    );
    const pdb = await cs.policyV1.podDisruptionBudgets(ns).get("slow");
    await cs.policyV1
      .podDisruptionBudgets(ns)
      .update({ ...pdb, spec: { ...pdb.spec, unhealthyPodEvictionPolicy: "AlwaysAllow" } });
    const allowed = await evict(ns, "slow");
    expect(allowed.status).toBe(201);
    const pod = await cs.coreV1.pods(ns).get("slow");
    expect(pod.metadata?.deletionTimestamp).toBeDefined();
    expect(pod.status?.conditions?.find((c) => c.type === "DisruptionTarget")).toMatchObject({
      status: "True",
      reason: "EvictionByEvictionAPI",
    });
  });
});
