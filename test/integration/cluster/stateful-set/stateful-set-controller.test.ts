import type { ControllerRevision, StatefulSet } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { Clientset, PatchTypes } from "kubekit";
import { ApiServer } from "@kubekit/apiserver";
import { startCluster } from "@kubekit/cluster";
import { eventually, useServer, waitFor } from "../../../support/server-test-helpers.js";
import { PodHistory, createTestNamespace, eventsAbout } from "../workload-helpers.js";

/** A StatefulSet `web` of nginx pods labelled app=web. */
function webSet(overrides: Partial<NonNullable<StatefulSet["spec"]>> = {}): StatefulSet {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "web" },
    spec: {
      serviceName: "web",
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "nginx", image: "nginx:1.25" }] },
      },
      ...overrides,
    },
  };
}

/** Resolves with the set once its status says `done`. */
function setStatus(
  cs: Clientset,
  ns: string,
  what: string,
  done: (set: StatefulSet) => boolean,
  timeoutMs = 10_000,
): Promise<StatefulSet> {
  return eventually(
    what,
    async () => {
      const set = await cs.appsV1.statefulSets(ns).get("web");
      return done(set) ? set : undefined;
    },
    timeoutMs,
  );
}

/** Whether the rollout of the set's current generation is complete, as `kubectl rollout status` decides. */
function rolledOut(set: StatefulSet): boolean {
  const status = set.status;
  const replicas = set.spec?.replicas ?? 1;
  return (
    (status?.observedGeneration ?? 0) >= (set.metadata?.generation ?? 1) &&
    (status?.readyReplicas ?? 0) === replicas &&
    (status?.updatedReplicas ?? 0) === replicas &&
    status?.currentRevision === status?.updateRevision
  );
}

async function revisionsOf(cs: Clientset, ns: string): Promise<ControllerRevision[]> {
  const list = await cs.appsV1.controllerRevisions(ns).list();
  return list.items.sort((a, b) => a.revision - b.revision);
}

async function podsOf(cs: Clientset, ns: string): Promise<Pod[]> {
  const list = await cs.coreV1.pods(ns).list();
  return list.items.sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
}

describe("statefulset controller", () => {
  const h = useServer({ cluster: { controllers: ["statefulset"] } });
  let cs: Clientset;
  beforeAll(() => {
    cs = new Clientset(h.server.kubeConfig().restConfig());
  });

  it("creates ordinal pods with their identity and claims, a revision, and the status kubectl reads", async () => {
    const ns = await createTestNamespace(cs, "sts-create");
    await cs.appsV1.statefulSets(ns).create(
      webSet({
        volumeClaimTemplates: [
          {
            metadata: { name: "www", labels: { tier: "data" } },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
          },
        ],
      }),
    );
    const set = await setStatus(cs, ns, "3 ready replicas", rolledOut);
    const [revision, ...more] = await revisionsOf(cs, ns);
    expect(more).toEqual([]);
    const revisionName = revision?.metadata?.name ?? "";
    const hash = revision?.metadata?.labels?.["controller-revision-hash"] ?? "";
    expect(revisionName).toBe(`web-${hash}`);
    expect(revision).toMatchObject({
      revision: 1,
      metadata: {
        labels: { app: "web", "controller-revision-hash": hash },
        ownerReferences: [
          {
            apiVersion: "apps/v1",
            kind: "StatefulSet",
            name: "web",
            uid: set.metadata?.uid,
            controller: true,
          },
        ],
      },
      data: { spec: { template: { $patch: "replace", metadata: { labels: { app: "web" } } } } },
    });
    expect(set.status).toEqual({
      observedGeneration: 1,
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      currentRevision: revisionName,
      updateRevision: revisionName,
      collisionCount: 0,
    });

    const pods = await podsOf(cs, ns);
    expect(pods.map((p) => p.metadata?.name)).toEqual(["web-0", "web-1", "web-2"]);
    for (const [i, pod] of pods.entries()) {
      expect(pod.metadata?.labels).toEqual({
        app: "web",
        "controller-revision-hash": revisionName,
        "statefulset.kubernetes.io/pod-name": `web-${i}`,
        "apps.kubernetes.io/pod-index": String(i),
      });
      expect(pod.spec?.hostname).toBe(`web-${i}`);
      expect(pod.spec?.subdomain).toBe("web");
      expect(pod.spec?.volumes).toEqual([
        { name: "www", persistentVolumeClaim: { claimName: `www-web-${i}` } },
      ]);
      expect(pod.status?.phase).toBe("Running");
    }
    const claims = await cs.coreV1.persistentVolumeClaims(ns).list();
    expect(
      claims.items.map((c) => [c.metadata?.name, c.metadata?.labels, c.status?.phase]),
    ).toEqual([
      ["www-web-0", { tier: "data", app: "web" }, "Pending"],
      ["www-web-1", { tier: "data", app: "web" }, "Pending"],
      ["www-web-2", { tier: "data", app: "web" }, "Pending"],
    ]);
    await waitFor(
      "the creation events",
      async () => (await eventsAbout(cs, ns, "web")).length >= 6,
    );
    expect(await eventsAbout(cs, ns, "web")).toEqual(
      expect.arrayContaining([
        "SuccessfulCreate: create Claim www-web-0 Pod web-0 in StatefulSet web success",
        "SuccessfulCreate: create Pod web-0 in StatefulSet web successful",
        "SuccessfulCreate: create Pod web-2 in StatefulSet web successful",
      ]),
    );
  });

  it("OrderedReady: creates pod N only once pods 0…N-1 are Running and Ready", async () => {
    const ns = await createTestNamespace(cs, "sts-ordered");
    const history = await PodHistory.start(cs, ns);
    await cs.appsV1.statefulSets(ns).create(webSet());
    await setStatus(cs, ns, "3 ready replicas", rolledOut);
    await history.stop();
    expect(history.entries.filter((e) => !e.startsWith("deleting"))).toEqual([
      "created web-0",
      "ready web-0",
      "created web-1",
      "ready web-1",
      "created web-2",
      "ready web-2",
    ]);
  });

  it("Parallel creates every pod at once, Ready or not", async () => {
    const ns = await createTestNamespace(cs, "sts-parallel");
    await cs.appsV1.statefulSets(ns).create(
      webSet({
        podManagementPolicy: "Parallel",
        template: {
          metadata: {
            labels: { app: "web" },
            annotations: { "simulation.kubekit.dev/ready": "false" },
          },
          spec: { containers: [{ name: "nginx", image: "nginx:1.25" }] },
        },
      }),
    );
    const set = await setStatus(cs, ns, "3 running replicas", (s) => s.status?.replicas === 3);
    expect(set.status?.readyReplicas ?? 0).toBe(0);
    await waitFor("3 running pods", async () =>
      (await podsOf(cs, ns)).every((p) => p.status?.phase === "Running"),
    );
    expect((await podsOf(cs, ns)).map((p) => p.metadata?.name)).toEqual([
      "web-0",
      "web-1",
      "web-2",
    ]);
  });

  it("rolls a new template out from the highest ordinal down, one Ready pod at a time; rollback renumbers the old revision", async () => {
    const ns = await createTestNamespace(cs, "sts-rolling");
    const sets = cs.appsV1.statefulSets(ns);
    await sets.create(webSet());
    const before = await setStatus(cs, ns, "the first rollout", rolledOut);
    const oldRevision = before.status?.currentRevision ?? "";

    const history = await PodHistory.start(cs, ns);
    await sets.patch("web", PatchTypes.strategicMerge, {
      spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx:1.26" }] } } },
    });
    const after = await setStatus(
      cs,
      ns,
      "the second rollout",
      (s) => rolledOut(s) && s.status?.currentRevision !== oldRevision,
    );
    await history.stop();
    const newRevision = after.status?.updateRevision ?? "";
    expect(history.of("deleting")).toEqual(["web-2", "web-1", "web-0"]);
    // Each pod is replaced only once the one above it is back and Ready.
    expect(history.indexOf("ready web-2")).toBeLessThan(history.indexOf("deleting web-1"));
    expect(history.indexOf("ready web-1")).toBeLessThan(history.indexOf("deleting web-0"));
    for (const pod of await podsOf(cs, ns)) {
      expect(pod.metadata?.labels?.["controller-revision-hash"]).toBe(newRevision);
      expect(pod.spec?.containers[0]?.image).toBe("nginx:1.26");
    }
    expect((await revisionsOf(cs, ns)).map((r) => [r.metadata?.name, r.revision])).toEqual([
      [oldRevision, 1],
      [newRevision, 2],
    ]);
    expect(await eventsAbout(cs, ns, "web")).toEqual(
      expect.arrayContaining(["SuccessfulDelete: delete Pod web-2 in StatefulSet web successful"]),
    );

    // What `kubectl rollout undo` does: the previous revision's data as a strategic merge patch.
    const previous = (await revisionsOf(cs, ns))[0] as ControllerRevision;
    await sets.patch("web", PatchTypes.strategicMerge, previous.data as object);
    const undone = await setStatus(
      cs,
      ns,
      "the rollback",
      (s) => rolledOut(s) && s.status?.currentRevision === oldRevision,
    );
    expect(undone.metadata?.generation).toBe(3);
    expect((await revisionsOf(cs, ns)).map((r) => [r.metadata?.name, r.revision])).toEqual([
      [newRevision, 2],
      [oldRevision, 3],
    ]);
    for (const pod of await podsOf(cs, ns)) {
      expect(pod.spec?.containers[0]?.image).toBe("nginx:1.25");
    }
  });

  it("honours the RollingUpdate partition", async () => {
    const ns = await createTestNamespace(cs, "sts-partition");
    const sets = cs.appsV1.statefulSets(ns);
    await sets.create(
      webSet({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } }),
    );
    const before = await setStatus(cs, ns, "the first rollout", rolledOut);
    await sets.patch("web", PatchTypes.strategicMerge, {
      spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx:1.26" }] } } },
    });
    const partial = await setStatus(
      cs,
      ns,
      "web-2 updated",
      (s) =>
        s.status?.observedGeneration === 2 &&
        s.status.updatedReplicas === 1 &&
        s.status.readyReplicas === 3,
    );
    expect(partial.status).toMatchObject({
      currentRevision: before.status?.currentRevision,
      currentReplicas: 2,
      updatedReplicas: 1,
    });
    expect(partial.status?.updateRevision).not.toBe(before.status?.currentRevision);
    expect((await podsOf(cs, ns)).map((p) => p.spec?.containers[0]?.image)).toEqual([
      "nginx:1.25",
      "nginx:1.25",
      "nginx:1.26",
    ]);
    await sets.patch("web", PatchTypes.merge, {
      spec: { updateStrategy: { rollingUpdate: { partition: 0 } } },
    });
    await setStatus(cs, ns, "the whole rollout", rolledOut);
    expect((await podsOf(cs, ns)).map((p) => p.spec?.containers[0]?.image)).toEqual([
      "nginx:1.26",
      "nginx:1.26",
      "nginx:1.26",
    ]);
  });

  it("OnDelete: a new template reaches only the pods deleted by hand", async () => {
    const ns = await createTestNamespace(cs, "sts-ondelete");
    const sets = cs.appsV1.statefulSets(ns);
    await sets.create(webSet({ updateStrategy: { type: "OnDelete" } }));
    const before = await setStatus(cs, ns, "the first rollout", rolledOut);
    await sets.patch("web", PatchTypes.strategicMerge, {
      spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx:1.26" }] } } },
    });
    const observed = await setStatus(
      cs,
      ns,
      "generation 2 observed",
      (s) => s.status?.observedGeneration === 2,
    );
    expect(observed.status).toMatchObject({
      currentRevision: before.status?.currentRevision,
      currentReplicas: 3,
    });
    // Zero counts are omitted, as Go's omitempty writes them.
    expect(observed.status).not.toHaveProperty("updatedReplicas");
    const oldUid = (await cs.coreV1.pods(ns).get("web-1")).metadata?.uid;
    await cs.coreV1.pods(ns).delete("web-1");
    const replaced = await eventually("web-1 recreated and Ready", async () => {
      const pod = await cs.coreV1
        .pods(ns)
        .get("web-1")
        .catch(() => undefined);
      return pod?.metadata?.uid !== oldUid &&
        pod?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")
        ? pod
        : undefined;
    });
    expect(replaced.spec?.containers[0]?.image).toBe("nginx:1.26");
    expect(replaced.metadata?.labels?.["controller-revision-hash"]).toBe(
      observed.status?.updateRevision,
    );
    expect((await podsOf(cs, ns)).map((p) => p.spec?.containers[0]?.image)).toEqual([
      "nginx:1.25",
      "nginx:1.26",
      "nginx:1.25",
    ]);
    await setStatus(cs, ns, "one updated replica", (s) => s.status?.updatedReplicas === 1);
  });

  it("scales down from the highest ordinal, one pod at a time", async () => {
    const ns = await createTestNamespace(cs, "sts-scale-down");
    const sets = cs.appsV1.statefulSets(ns);
    await sets.create(webSet());
    await setStatus(cs, ns, "the first rollout", rolledOut);
    const history = await PodHistory.start(cs, ns);
    await sets.patch("web", PatchTypes.merge, { spec: { replicas: 1 } });
    await setStatus(cs, ns, "one replica", (s) => rolledOut(s) && s.status?.replicas === 1);
    await waitFor("web-1 gone", async () => (await podsOf(cs, ns)).length === 1);
    await history.stop();
    expect(history.of("deleting")).toEqual(["web-2", "web-1"]);
    expect(history.indexOf("deleted web-2")).toBeLessThan(history.indexOf("deleting web-1"));
    expect((await podsOf(cs, ns)).map((p) => p.metadata?.name)).toEqual(["web-0"]);
  });

  it("keeps at most revisionHistoryLimit old revisions", async () => {
    const ns = await createTestNamespace(cs, "sts-history");
    const sets = cs.appsV1.statefulSets(ns);
    await sets.create(webSet({ replicas: 1, revisionHistoryLimit: 1 }));
    await setStatus(cs, ns, "the first rollout", rolledOut);
    for (const tag of ["1.26", "1.27", "1.28"]) {
      await sets.patch("web", PatchTypes.strategicMerge, {
        spec: { template: { spec: { containers: [{ name: "nginx", image: `nginx:${tag}` }] } } },
      });
      await setStatus(cs, ns, `the rollout of ${tag}`, (s) => rolledOut(s));
    }
    await waitFor("the history truncated", async () => (await revisionsOf(cs, ns)).length === 2);
    expect((await revisionsOf(cs, ns)).map((r) => r.revision)).toEqual([3, 4]);
  });

  it("adopts the pods and revisions it orphaned when it is created again", async () => {
    const ns = await createTestNamespace(cs, "sts-adopt");
    const sets = cs.appsV1.statefulSets(ns);
    await sets.create(webSet({ replicas: 2 }));
    await setStatus(cs, ns, "the first rollout", rolledOut);
    const uids = (await podsOf(cs, ns)).map((p) => p.metadata?.uid);
    await sets.delete("web", { propagationPolicy: "Orphan" });
    await waitFor("pods orphaned", async () =>
      (await podsOf(cs, ns)).every((p) => (p.metadata?.ownerReferences ?? []).length === 0),
    );
    const again = await sets.create(webSet({ replicas: 2 }));
    await waitFor("pods adopted", async () =>
      (await podsOf(cs, ns)).every(
        (p) => p.metadata?.ownerReferences?.[0]?.uid === again.metadata?.uid,
      ),
    );
    const set = await setStatus(cs, ns, "the status", rolledOut);
    expect((await podsOf(cs, ns)).map((p) => p.metadata?.uid)).toEqual(uids);
    const revisions = await revisionsOf(cs, ns);
    expect(revisions).toHaveLength(1);
    expect(revisions[0]?.metadata?.ownerReferences?.[0]?.uid).toBe(again.metadata?.uid);
    expect(set.status?.currentRevision).toBe(revisions[0]?.metadata?.name);
  });
});

describe("statefulset controller on a fake clock", () => {
  const clock = new FakeClock();
  let server: ApiServer;
  let cs: Clientset;
  beforeAll(async () => {
    server = await ApiServer.start({ clock });
    await startCluster({ server, controllers: ["statefulset"] });
    cs = new Clientset(server.kubeConfig().restConfig());
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("OrderedReady waits minReadySeconds after a pod is Ready before creating the next", async () => {
    const ns = await createTestNamespace(cs, "sts-min-ready");
    await cs.appsV1.statefulSets(ns).create(webSet({ replicas: 2, minReadySeconds: 10 }));
    const waiting = await setStatus(cs, ns, "web-0 Ready", (s) => s.status?.readyReplicas === 1);
    expect(waiting.status).toMatchObject({ replicas: 1, readyReplicas: 1, availableReplicas: 0 });
    expect((await podsOf(cs, ns)).map((p) => p.metadata?.name)).toEqual(["web-0"]);
    clock.advance(10_000);
    await setStatus(cs, ns, "web-1 Ready", (s) => s.status?.readyReplicas === 2);
    clock.advance(10_000);
    const done = await setStatus(
      cs,
      ns,
      "both available",
      (s) => s.status?.availableReplicas === 2,
    );
    expect(done.status).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 2 });
  });
});
