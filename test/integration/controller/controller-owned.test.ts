import type { ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import {
  controllerOf,
  setControllerReference,
  generationChanged,
  waitForCacheToObserve,
  type SharedIndexInformer,
  splitObjectKey,
  isNotFound,
  type AppsV1ReplicaSetLister,
  type CoreV1PodLister,
} from "kubekit";
import { eventually, waitFor } from "../../support/server-test-helpers.js";
import { controllerFor, useCluster } from "./controller-harness.js";

/**
 * The seeds' ReplicaSet scenario on the embedded server: a controller watching ReplicaSets and
 * the Pods they own (owner mapping through ownerReferences) keeps `spec.replicas` Pods.
 */

function replicaSet(name: string, replicas: number): ReplicaSet {
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

describe("Controller.watchOwned on the embedded server", () => {
  const h = useCluster();

  it("maps owned Pods to their ReplicaSet: a deleted Pod is replaced", async () => {
    const ns = await h.namespace("ctl-owned");
    let rsLister: AppsV1ReplicaSetLister | undefined;
    let podLister: CoreV1PodLister | undefined;
    let podInformer: SharedIndexInformer<Pod> | undefined;
    const reconciled: string[] = [];
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "replicaset",
        reconcile: async (key, signal) => {
          reconciled.push(key);
          const { namespace, name } = splitObjectKey(key);
          let rs: ReplicaSet;
          try {
            rs = rsLister?.replicaSets(namespace).get(name) as ReplicaSet;
          } catch (err) {
            if (isNotFound(err)) return;
            throw err;
          }
          const owned = (podLister?.pods(namespace).list() ?? []).filter(
            (p) => controllerOf(p)?.uid === rs.metadata?.uid && !p.metadata?.deletionTimestamp,
          );
          const missing = (rs.spec?.replicas ?? 0) - owned.length;
          for (let i = 0; i < missing; i++) {
            const pod: Pod = {
              metadata: {
                generateName: `${name}-`,
                namespace,
                labels: rs.spec?.template?.metadata?.labels ?? {},
              },
              spec: rs.spec?.template?.spec ?? { containers: [] },
            };
            setControllerReference(rs, pod, { apiVersion: "apps/v1", kind: "ReplicaSet" });
            const created = await h.cs.coreV1.pods(namespace).create(pod, { signal });
            // Read-your-writes: the next reconcile must count this pod, or it creates one more.
            const rv = created.metadata?.resourceVersion as string;
            await waitForCacheToObserve(podInformer as SharedIndexInformer<Pod>, rv, signal);
          }
        },
      },
      (factory, controller) => {
        const replicaSets = factory.appsV1.replicaSets();
        const pods = factory.coreV1.pods();
        rsLister = replicaSets.lister;
        podLister = pods.lister;
        podInformer = pods.informer;
        controller.watch(replicaSets.informer);
        controller.watchOwned(pods.informer, { group: "apps", kind: "ReplicaSet" });
      },
    );
    void r.start();
    const rs = await h.cs.appsV1.replicaSets(ns).create(replicaSet("web", 3));
    const podNames = async (): Promise<string[]> =>
      (await h.cs.coreV1.pods(ns).list()).items.map((p) => p.metadata?.name ?? "").sort();
    const first = await eventually("3 pods", async () => {
      const names = await podNames();
      return names.length === 3 ? names : undefined;
    });
    const pod = await h.cs.coreV1.pods(ns).get(first[0] as string);
    expect(controllerOf(pod)).toEqual({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      name: "web",
      uid: rs.metadata?.uid,
      controller: true,
      blockOwnerDeletion: true,
    });
    const before = reconciled.length;
    await h.cs.coreV1.pods(ns).delete(first[0] as string);
    const after = await eventually("a replacement pod, and no more", async () => {
      const names = await podNames();
      return names.length === 3 && !names.includes(first[0] as string) ? names : undefined;
    });
    expect(after.filter((n) => first.includes(n))).toHaveLength(2);
    // The pod's deletion was mapped to the ReplicaSet's key.
    expect(reconciled.slice(before)).toContain(`${ns}/web`);
    expect(reconciled.every((k) => k === `${ns}/web`)).toBe(true);
    expect(r.logger.entries.filter((e) => e.level === "error")).toEqual([]);
  });

  it("generationChanged: a status write does not reconcile, a spec change does", async () => {
    const ns = await h.namespace("ctl-generation");
    const reconciled: string[] = [];
    let lister: AppsV1ReplicaSetLister | undefined;
    const r = controllerFor(
      h.cs,
      ns,
      {
        name: "generation",
        reconcile: (key) => {
          const { name } = splitObjectKey(key);
          reconciled.push(`${name}@${lister?.replicaSets(ns).get(name).metadata?.generation}`);
        },
      },
      (factory, controller) => {
        lister = factory.appsV1.replicaSets().lister;
        controller.watch(factory.appsV1.replicaSets().informer, {
          predicates: [generationChanged],
        });
      },
    );
    void r.start();
    const a = await h.cs.appsV1.replicaSets(ns).create(replicaSet("a", 1));
    await waitFor("a reconciled", async () => reconciled.includes("a@1"));
    const status = await h.cs.appsV1
      .replicaSets(ns)
      .updateStatus({ ...a, status: { replicas: 1, observedGeneration: 1 } });
    expect(status.metadata?.generation).toBe(1);
    await h.cs.appsV1.replicaSets(ns).create(replicaSet("marker", 1));
    // One worker, FIFO, notifications in order: a passing status update would come first.
    await waitFor("marker reconciled", async () => reconciled.includes("marker@1"));
    await h.cs.appsV1
      .replicaSets(ns)
      .patch("a", "application/merge-patch+json", { spec: { replicas: 2 } });
    await waitFor("a's spec change", async () => reconciled.includes("a@2"));
    expect(reconciled).toEqual(["a@1", "marker@1", "a@2"]);
  });
});
