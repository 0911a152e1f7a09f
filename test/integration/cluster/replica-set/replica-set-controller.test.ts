import type { ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { Clientset, PatchTypes, controllerOf } from "kubekit";
import { SIMULATION_ANNOTATIONS } from "@kubekit/cluster";
import { eventually, useServer, waitFor } from "../../../support/server-test-helpers.js";
import {
  PodHistory,
  createTestNamespace,
  refusePodCreates,
  eventsAbout,
} from "../workload-helpers.js";

/**
 * The simulated ReplicaSet controller over real HTTP, with the real scheduler and kubelets:
 * pods created and owned, adoption and release, scale-down order, status, slow start on
 * failing creates, and minReadySeconds on a FakeClock.
 */

function replicaSetOf(
  name: string,
  replicas: number,
  spec: Partial<NonNullable<ReplicaSet["spec"]>> = {},
  podAnnotations: Record<string, string> = {},
): ReplicaSet {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      ...spec,
      template: {
        metadata: { labels: { app: name, tier: "web" }, annotations: podAnnotations },
        spec: { containers: [{ name: "app", image: "nginx" }] },
      },
    },
  };
}

async function activePods(cs: Clientset, ns: string, selector: string): Promise<Pod[]> {
  const list = await cs.coreV1.pods(ns).list({ labelSelector: selector });
  return list.items.filter((p) => p.metadata?.deletionTimestamp === undefined);
}

async function rsStatus(cs: Clientset, ns: string, name: string): Promise<ReplicaSet> {
  return cs.appsV1.replicaSets(ns).get(name);
}

describe("replicaset controller", () => {
  const h = useServer({ cluster: { controllers: ["replicaset"] } });
  const client = (): Clientset => new Clientset(h.server.kubeConfig().restConfig());

  it("creates spec.replicas owned pods, records SuccessfulCreate and reports them Ready and available", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "rs-create");
    const rs = await cs.appsV1.replicaSets(ns).create(replicaSetOf("web", 3));
    const ready = await eventually("3 ready replicas", async () => {
      const got = await rsStatus(cs, ns, "web");
      return got.status?.availableReplicas === 3 ? got : undefined;
    });
    expect(ready.status).toEqual({
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });
    const pods = await activePods(cs, ns, "app=web");
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.metadata?.name).toMatch(/^web-[a-z0-9]{5}$/);
      expect(controllerOf(pod)).toEqual({
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: "web",
        uid: rs.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      });
      expect(pod.metadata?.labels).toEqual({ app: "web", tier: "web" });
    }
    await waitFor("3 SuccessfulCreate events", async () => {
      const events = await eventsAbout(cs, ns, "web");
      return events.filter((e) => e.startsWith("SuccessfulCreate: Created pod: web-")).length === 3;
    });
    const names = pods.map((p) => `SuccessfulCreate: Created pod: ${p.metadata?.name}`).sort();
    expect((await eventsAbout(cs, ns, "web")).sort()).toEqual(names);
  });

  it("replaces a deleted pod and scales down to spec.replicas with SuccessfulDelete", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "rs-scale");
    await cs.appsV1.replicaSets(ns).create(replicaSetOf("web", 2));
    await waitFor(
      "2 available",
      async () => (await rsStatus(cs, ns, "web")).status?.availableReplicas === 2,
    );
    const [victim] = await activePods(cs, ns, "app=web");
    await cs.coreV1.pods(ns).delete(victim?.metadata?.name ?? "");
    await waitFor("a replacement", async () => {
      const pods = await activePods(cs, ns, "app=web");
      return pods.length === 2 && pods.every((p) => p.metadata?.name !== victim?.metadata?.name);
    });
    await cs.appsV1.replicaSets(ns).patch("web", PatchTypes.merge, { spec: { replicas: 5 } });
    await waitFor(
      "5 available",
      async () => (await rsStatus(cs, ns, "web")).status?.availableReplicas === 5,
    );
    await cs.appsV1.replicaSets(ns).patch("web", PatchTypes.merge, { spec: { replicas: 1 } });
    const scaled = await eventually("1 replica", async () => {
      const got = await rsStatus(cs, ns, "web");
      return got.status?.replicas === 1 && got.status.observedGeneration === 3 ? got : undefined;
    });
    expect(scaled.status?.availableReplicas).toBe(1);
    expect(await activePods(cs, ns, "app=web")).toHaveLength(1);
    await waitFor("4 SuccessfulDelete events", async () => {
      const events = await eventsAbout(cs, ns, "web");
      return events.filter((e) => /^SuccessfulDelete: Deleted pod: web-/.test(e)).length === 4;
    });
  });

  it("adopts a matching orphan and, with one pod too many, deletes the least valuable (not Ready) one", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "rs-adopt");
    const rs = await cs.appsV1.replicaSets(ns).create(replicaSetOf("web", 3));
    await waitFor(
      "3 available",
      async () => (await rsStatus(cs, ns, "web")).status?.availableReplicas === 3,
    );
    const history = await PodHistory.start(cs, ns);
    // An orphan the selector matches that never gets Ready: adopted, then the first to go.
    await cs.coreV1.pods(ns).create({
      metadata: {
        name: "stray",
        labels: { app: "web" },
        annotations: { [SIMULATION_ANNOTATIONS.ready]: "false" },
      },
      spec: { containers: [{ name: "app", image: "nginx" }] },
    });
    await waitFor("the orphan deleted", async () => history.of("deleting").includes("stray"));
    await history.stop();
    const pods = await activePods(cs, ns, "app=web");
    expect(pods.map((p) => p.metadata?.name)).not.toContain("stray");
    expect(pods).toHaveLength(3);
    expect(history.of("deleting")).toEqual(["stray"]);
    expect(history.of("created")).toEqual(["stray"]);
    const stray = await eventually("stray's last state", async () => {
      try {
        return await cs.coreV1.pods(ns).get("stray");
      } catch {
        return { metadata: { ownerReferences: [{ uid: rs.metadata?.uid }] } } as Pod;
      }
    });
    expect(stray.metadata?.ownerReferences?.[0]?.uid).toBe(rs.metadata?.uid);
    expect(await eventsAbout(cs, ns, "web")).toContain("SuccessfulDelete: Deleted pod: stray");
    const status = await eventually("status settled", async () => {
      const got = await rsStatus(cs, ns, "web");
      return got.status?.replicas === 3 && got.status.fullyLabeledReplicas === 3 ? got : undefined;
    });
    expect(status.status?.readyReplicas).toBe(3);
  });

  it("releases a pod whose labels stop matching and creates a replacement", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "rs-release");
    await cs.appsV1.replicaSets(ns).create(replicaSetOf("web", 2));
    await waitFor(
      "2 available",
      async () => (await rsStatus(cs, ns, "web")).status?.availableReplicas === 2,
    );
    const [pod] = await activePods(cs, ns, "app=web");
    const name = pod?.metadata?.name ?? "";
    await cs.coreV1
      .pods(ns)
      .patch(name, PatchTypes.merge, { metadata: { labels: { app: "other" } } });
    const released = await eventually("the pod released", async () => {
      const got = await cs.coreV1.pods(ns).get(name);
      return controllerOf(got) === undefined ? got : undefined;
    });
    expect(released.metadata?.ownerReferences ?? []).toEqual([]);
    await waitFor("a replacement", async () => (await activePods(cs, ns, "app=web")).length === 2);
    await waitFor(
      "2 available again",
      async () => (await rsStatus(cs, ns, "web")).status?.availableReplicas === 2,
    );
  });

  it("counts pods without every template label out of fullyLabeledReplicas", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "rs-labels");
    await cs.appsV1.replicaSets(ns).create(replicaSetOf("web", 2));
    await waitFor(
      "2 fully labeled",
      async () => (await rsStatus(cs, ns, "web")).status?.fullyLabeledReplicas === 2,
    );
    const [pod] = await activePods(cs, ns, "app=web");
    await cs.coreV1
      .pods(ns)
      .patch(pod?.metadata?.name ?? "", PatchTypes.json, [
        { op: "remove", path: "/metadata/labels/tier" },
      ]);
    const got = await eventually("1 fully labeled", async () => {
      const rs = await rsStatus(cs, ns, "web");
      return rs.status?.fullyLabeledReplicas === 1 ? rs : undefined;
    });
    expect(got.status?.replicas).toBe(2);
  });

  it("records FailedCreate and ReplicaFailure while creates fail, and clears the condition once they succeed", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "rs-fail");
    refusePodCreates(h.server, ns);
    await cs.appsV1.replicaSets(ns).create(replicaSetOf("web", 10));
    const failed = await eventually("ReplicaFailure", async () => {
      const rs = await rsStatus(cs, ns, "web");
      return rs.status?.conditions?.some((c) => c.type === "ReplicaFailure") ? rs : undefined;
    });
    expect(failed.status?.conditions).toEqual([
      expect.objectContaining({ type: "ReplicaFailure", status: "True", reason: "FailedCreate" }),
    ]);
    expect(failed.status?.replicas).toBe(0);
    const events = await eventually("a FailedCreate event", async () => {
      const all = await cs.coreV1.events(ns).list();
      const e = all.items.find((x) => x.reason === "FailedCreate");
      return e;
    });
    expect(events.type).toBe("Warning");
    expect(events.message).toMatch(/^Error creating: /);
    h.server.faults.clear();
    await waitFor(
      "10 available",
      async () => (await rsStatus(cs, ns, "web")).status?.availableReplicas === 10,
      15_000,
    );
    const recovered = await rsStatus(cs, ns, "web");
    expect(recovered.status?.conditions).toBeUndefined();
  });
});

describe("replicaset controller: minReadySeconds on a FakeClock", () => {
  const clock = new FakeClock();
  const h = useServer({ clock, cluster: { controllers: ["replicaset"], nodes: 1 } });

  it("counts pods available minReadySeconds after they are Ready, re-syncing on the clock", async () => {
    const cs = new Clientset(h.server.kubeConfig().restConfig());
    const ns = await createTestNamespace(cs, "rs-min-ready");
    await cs.appsV1.replicaSets(ns).create(replicaSetOf("web", 2, { minReadySeconds: 30 }));
    const ready = await eventually("2 ready", async () => {
      clock.advance(0);
      const rs = await rsStatus(cs, ns, "web");
      return rs.status?.readyReplicas === 2 ? rs : undefined;
    });
    expect(ready.status?.availableReplicas).toBeUndefined();
    clock.advance(29_000);
    // A spec change makes the controller sync now (observedGeneration 2): still none available.
    await cs.appsV1
      .replicaSets(ns)
      .patch("web", PatchTypes.merge, { spec: { minReadySeconds: 31 } });
    const at29 = await eventually("generation 2 observed", async () => {
      const rs = await rsStatus(cs, ns, "web");
      return rs.status?.observedGeneration === 2 ? rs : undefined;
    });
    expect(at29.status?.availableReplicas).toBeUndefined();
    clock.advance(1_999);
    clock.advance(1);
    await waitFor(
      "2 available",
      async () => (await rsStatus(cs, ns, "web")).status?.availableReplicas === 2,
    );
  });
});
