import type { Deployment, DeploymentCondition, ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { Clientset, PatchTypes, controllerOf } from "kubekit";
import { templateHash } from "../../../../packages/cluster/src/controller-support/template-hash.js";
import { SIMULATION_ANNOTATIONS } from "@kubekit/cluster";
import { eventually, useServer, waitFor } from "../../../support/server-test-helpers.js";
import {
  PodHistory,
  createTestNamespace,
  refusePodCreates,
  eventsAbout,
} from "../workload-helpers.js";

/**
 * The simulated Deployment controller over real HTTP, with the real ReplicaSet controller,
 * scheduler and kubelets: ReplicaSets named by template hash, revisions, rolling and
 * recreate rollouts within their bounds, rollback, pause, proportional scaling, history
 * cleanup, hash collisions, adoption, and the progress deadline on a FakeClock.
 */

function deploymentOf(
  name: string,
  replicas: number,
  spec: Partial<NonNullable<Deployment["spec"]>> = {},
  podAnnotations: Record<string, string> = {},
  image = "nginx",
): Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      ...spec,
      template: {
        metadata: { labels: { app: name }, annotations: podAnnotations },
        spec: { containers: [{ name: "nginx", image }] },
      },
    },
  };
}

function conditionOf(d: Deployment, type: string): DeploymentCondition | undefined {
  return d.status?.conditions?.find((c) => c.type === type);
}

/** Whether the rollout is done as `kubectl rollout status` judges it. */
function rolledOut(d: Deployment): boolean {
  const s = d.status ?? {};
  const replicas = d.spec?.replicas ?? 1;
  return (
    (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
    (s.updatedReplicas ?? 0) === replicas &&
    (s.replicas ?? 0) === replicas &&
    (s.availableReplicas ?? 0) === replicas
  );
}

async function waitRolledOut(
  cs: Clientset,
  ns: string,
  name: string,
  timeoutMs = 10_000,
): Promise<Deployment> {
  return eventually(
    `deployment ${name} rolled out`,
    async () => {
      const d = await cs.appsV1.deployments(ns).get(name);
      return rolledOut(d) && conditionOf(d, "Progressing")?.reason === "NewReplicaSetAvailable"
        ? d
        : undefined;
    },
    timeoutMs,
  );
}

async function replicaSetsOf(cs: Clientset, ns: string, app: string): Promise<ReplicaSet[]> {
  const list = await cs.appsV1.replicaSets(ns).list({ labelSelector: `app=${app}` });
  return list.items.sort(
    (a, b) =>
      Number(a.metadata?.annotations?.["deployment.kubernetes.io/revision"] ?? 0) -
      Number(b.metadata?.annotations?.["deployment.kubernetes.io/revision"] ?? 0),
  );
}

/**
 * Watches a collection from its current state and records `measure` of the objects after
 * every event; `stop` ends the watch and resolves with the measures (the first is of the
 * initial list).
 */
async function track<T extends { metadata?: { name?: string } }>(
  client: {
    list(): Promise<{ items: T[]; metadata?: { resourceVersion?: string } }>;
    watch(options: { resourceVersion?: string; signal: AbortSignal }): AsyncIterable<{
      type: string;
      object: unknown;
    }>;
  },
  measure: (objects: ReadonlyMap<string, T>) => number,
): Promise<{ stop(): Promise<number[]> }> {
  const list = await client.list();
  const objects = new Map(list.items.map((o) => [o.metadata?.name ?? "", o]));
  const measures = [measure(objects)];
  const abort = new AbortController();
  const done = (async () => {
    try {
      for await (const ev of client.watch({
        resourceVersion: list.metadata?.resourceVersion,
        signal: abort.signal,
      })) {
        if (ev.type === "BOOKMARK" || ev.type === "ERROR") continue;
        const obj = ev.object as T;
        if (ev.type === "DELETED") objects.delete(obj.metadata?.name ?? "");
        else objects.set(obj.metadata?.name ?? "", obj);
        measures.push(measure(objects));
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    }
  })();
  return {
    stop: async () => {
      abort.abort();
      await done;
      return measures;
    },
  };
}

describe("deployment controller", () => {
  const h = useServer({ cluster: { controllers: ["replicaset", "deployment"] } });
  const client = (): Clientset => new Clientset(h.server.kubeConfig().restConfig());

  it("creates <name>-<pod-template-hash> with revision 1 and reports the rollout as kube does", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "deploy-create");
    const created = await cs.appsV1.deployments(ns).create(deploymentOf("web", 3, {}, {}, "nginx"));
    const d = await waitRolledOut(cs, ns, "web");
    const hash = templateHash(created.spec?.template);
    const [rs, ...others] = await replicaSetsOf(cs, ns, "web");
    expect(others).toEqual([]);
    expect(rs?.metadata?.name).toBe(`web-${hash}`);
    expect(rs?.metadata?.labels).toEqual({ app: "web", "pod-template-hash": hash });
    expect(rs?.spec?.selector).toEqual({ matchLabels: { app: "web", "pod-template-hash": hash } });
    expect(rs?.spec?.template?.metadata?.labels).toEqual({ app: "web", "pod-template-hash": hash });
    expect(rs?.metadata?.annotations).toEqual({
      "deployment.kubernetes.io/revision": "1",
      "deployment.kubernetes.io/desired-replicas": "3",
      "deployment.kubernetes.io/max-replicas": "4",
    });
    expect(controllerOf(rs ?? {})).toMatchObject({
      kind: "Deployment",
      name: "web",
      uid: created.metadata?.uid,
    });
    expect(d.metadata?.annotations?.["deployment.kubernetes.io/revision"]).toBe("1");
    expect(d.status).toMatchObject({
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
    expect(d.status?.unavailableReplicas).toBeUndefined();
    expect(conditionOf(d, "Available")).toMatchObject({
      status: "True",
      reason: "MinimumReplicasAvailable",
      message: "Deployment has minimum availability.",
    });
    expect(conditionOf(d, "Progressing")).toMatchObject({
      status: "True",
      reason: "NewReplicaSetAvailable",
      message: `ReplicaSet "web-${hash}" has successfully progressed.`,
    });
    expect(await eventsAbout(cs, ns, "web")).toEqual([
      `ScalingReplicaSet: Scaled up replica set web-${hash} from 0 to 3`,
    ]);
    const pods = await cs.coreV1.pods(ns).list({ labelSelector: `pod-template-hash=${hash}` });
    expect(pods.items).toHaveLength(3);
  });

  it("rolls out a new template within maxSurge and maxUnavailable and scales the old ReplicaSet to 0", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "deploy-rolling");
    const strategy = {
      type: "RollingUpdate",
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    };
    await cs.appsV1.deployments(ns).create(deploymentOf("web", 3, { strategy }));
    await waitRolledOut(cs, ns, "web");
    const [first] = await replicaSetsOf(cs, ns, "web");
    const rsSizes = await track<ReplicaSet>(cs.appsV1.replicaSets(ns), (objects) =>
      [...objects.values()].reduce((sum, rs) => sum + (rs.spec?.replicas ?? 0), 0),
    );
    const readyPods = await track<Pod>(
      cs.coreV1.pods(ns),
      (objects) =>
        [...objects.values()].filter(
          (p) =>
            p.metadata?.deletionTimestamp === undefined &&
            p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
        ).length,
    );
    await cs.appsV1.deployments(ns).patch("web", PatchTypes.strategicMerge, {
      spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] } } },
    });
    const d = await waitRolledOut(cs, ns, "web");
    const totals = await rsSizes.stop();
    const readyCounts = await readyPods.stop();

    const [old, current, ...rest] = await replicaSetsOf(cs, ns, "web");
    expect(rest).toEqual([]);
    expect(old?.metadata?.name).toBe(first?.metadata?.name);
    expect(old?.spec?.replicas).toBe(0);
    expect(current?.metadata?.annotations?.["deployment.kubernetes.io/revision"]).toBe("2");
    expect(current?.spec?.template?.spec?.containers[0]?.image).toBe("nginx:1.27");
    expect(d.metadata?.annotations?.["deployment.kubernetes.io/revision"]).toBe("2");
    // maxSurge 1: never more than 4 pods wanted in all; it did surge.
    expect(Math.max(...totals)).toBe(4);
    // maxUnavailable 0: never fewer than 3 Ready pods that are not being deleted.
    expect(Math.min(...readyCounts)).toBe(3);
    expect(readyCounts.length).toBeGreaterThan(6);
    const events = await eventsAbout(cs, ns, "web");
    const newName = current?.metadata?.name ?? "";
    const oldName = old?.metadata?.name ?? "";
    expect(events).toEqual(
      expect.arrayContaining([
        `ScalingReplicaSet: Scaled up replica set ${newName} from 0 to 1`,
        `ScalingReplicaSet: Scaled down replica set ${oldName} from 3 to 2`,
        `ScalingReplicaSet: Scaled down replica set ${oldName} from 1 to 0`,
      ]),
    );
  });

  it("Recreate: scales the old ReplicaSet to 0 and starts new pods only once the old ones are gone", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "deploy-recreate");
    await cs.appsV1
      .deployments(ns)
      .create(deploymentOf("web", 2, { strategy: { type: "Recreate" } }));
    await waitRolledOut(cs, ns, "web");
    const oldPods = (await cs.coreV1.pods(ns).list()).items.map((p) => p.metadata?.name ?? "");
    const history = await PodHistory.start(cs, ns);
    await cs.appsV1.deployments(ns).patch("web", PatchTypes.strategicMerge, {
      spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] } } },
    });
    await waitRolledOut(cs, ns, "web");
    await history.stop();
    const lastOldGone = Math.max(...oldPods.map((name) => history.indexOf(`deleted ${name}`)));
    const created = history.of("created");
    expect(created).toHaveLength(2);
    expect(oldPods.every((name) => history.indexOf(`deleted ${name}`) >= 0)).toBe(true);
    expect(Math.min(...created.map((name) => history.indexOf(`created ${name}`)))).toBeGreaterThan(
      lastOldGone,
    );
    const [old, current] = await replicaSetsOf(cs, ns, "web");
    expect(old?.spec?.replicas).toBe(0);
    expect(current?.spec?.replicas).toBe(2);
  });

  it("copies change-cause to the revision, and reuses the old ReplicaSet when its template comes back (revision 3, history 1)", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "deploy-undo");
    const first = deploymentOf("web", 2);
    first.metadata = { ...first.metadata, annotations: { "kubernetes.io/change-cause": "v1" } };
    await cs.appsV1.deployments(ns).create(first);
    await waitRolledOut(cs, ns, "web");
    const [v1] = await replicaSetsOf(cs, ns, "web");
    expect(v1?.metadata?.annotations?.["kubernetes.io/change-cause"]).toBe("v1");
    await cs.appsV1.deployments(ns).patch("web", PatchTypes.strategicMerge, {
      metadata: { annotations: { "kubernetes.io/change-cause": "v2" } },
      spec: { template: { spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] } } },
    });
    await waitRolledOut(cs, ns, "web");
    const [, v2] = await replicaSetsOf(cs, ns, "web");
    expect(v2?.metadata?.annotations?.["kubernetes.io/change-cause"]).toBe("v2");
    // What `kubectl rollout undo` does: the old ReplicaSet's template, hash label removed.
    const template = structuredClone(v1?.spec?.template ?? {});
    delete template.metadata?.labels?.["pod-template-hash"];
    await cs.appsV1.deployments(ns).patch("web", PatchTypes.json, [
      { op: "replace", path: "/spec/template", value: template },
      {
        op: "replace",
        path: "/metadata/annotations",
        value: { "kubernetes.io/change-cause": "v1" },
      },
    ]);
    const d = await waitRolledOut(cs, ns, "web");
    const all = await replicaSetsOf(cs, ns, "web");
    expect(all.map((rs) => rs.metadata?.name)).toEqual([v2?.metadata?.name, v1?.metadata?.name]);
    const reused = all[1];
    expect(reused?.metadata?.annotations).toMatchObject({
      "deployment.kubernetes.io/revision": "3",
      "deployment.kubernetes.io/revision-history": "1",
      "kubernetes.io/change-cause": "v1",
    });
    expect(reused?.spec?.replicas).toBe(2);
    expect(all[0]?.spec?.replicas).toBe(0);
    expect(d.metadata?.annotations?.["deployment.kubernetes.io/revision"]).toBe("3");
  });

  it("pauses: no new ReplicaSet while paused (DeploymentPaused), scaling still applies, resuming rolls out", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "deploy-pause");
    await cs.appsV1.deployments(ns).create(deploymentOf("web", 2));
    await waitRolledOut(cs, ns, "web");
    await cs.appsV1.deployments(ns).patch("web", PatchTypes.merge, { spec: { paused: true } });
    await cs.appsV1.deployments(ns).patch("web", PatchTypes.strategicMerge, {
      spec: {
        replicas: 3,
        template: { spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] } },
      },
    });
    const paused = await eventually("paused and scaled", async () => {
      const d = await cs.appsV1.deployments(ns).get("web");
      return d.status?.observedGeneration === d.metadata?.generation &&
        d.status?.availableReplicas === 3
        ? d
        : undefined;
    });
    expect(conditionOf(paused, "Progressing")).toMatchObject({
      status: "Unknown",
      reason: "DeploymentPaused",
      message: "Deployment is paused",
    });
    const [only, ...none] = await replicaSetsOf(cs, ns, "web");
    expect(none).toEqual([]);
    expect(only?.spec?.replicas).toBe(3);
    expect(only?.spec?.template?.spec?.containers[0]?.image).toBe("nginx");
    // The paused template has no ReplicaSet yet: none of the pods is updated.
    expect(paused.status?.updatedReplicas).toBeUndefined();
    await cs.appsV1.deployments(ns).patch("web", PatchTypes.merge, { spec: { paused: false } });
    await waitRolledOut(cs, ns, "web");
    const [old, current] = await replicaSetsOf(cs, ns, "web");
    expect(old?.spec?.replicas).toBe(0);
    expect(current?.spec?.template?.spec?.containers[0]?.image).toBe("nginx:1.27");
    expect(current?.spec?.replicas).toBe(3);
  });

  it("scales a stuck rollout proportionally across its ReplicaSets", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "deploy-proportional");
    const strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } };
    await cs.appsV1.deployments(ns).create(deploymentOf("web", 10, { strategy }));
    await waitRolledOut(cs, ns, "web");
    // A template whose pods never get Ready: the rollout stops at old 8 + new 5.
    await cs.appsV1.deployments(ns).patch("web", PatchTypes.strategicMerge, {
      spec: {
        template: {
          metadata: { annotations: { [SIMULATION_ANNOTATIONS.ready]: "false" } },
          spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
        },
      },
    });
    const sizesOf = async (): Promise<number[]> =>
      (await replicaSetsOf(cs, ns, "web")).map((rs) => rs.spec?.replicas ?? 0);
    await waitFor("old 8, new 5", async () => (await sizesOf()).join() === "8,5");
    await cs.appsV1.deployments(ns).patch("web", PatchTypes.merge, { spec: { replicas: 20 } });
    await waitFor("old 14, new 9", async () => (await sizesOf()).join() === "14,9");
    const [old, current] = await replicaSetsOf(cs, ns, "web");
    for (const rs of [old, current]) {
      expect(rs?.metadata?.annotations).toMatchObject({
        "deployment.kubernetes.io/desired-replicas": "20",
        "deployment.kubernetes.io/max-replicas": "23",
      });
    }
    const events = await eventsAbout(cs, ns, "web");
    expect(events).toEqual(
      expect.arrayContaining([
        `ScalingReplicaSet: Scaled up replica set ${old?.metadata?.name} from 8 to 14`,
        `ScalingReplicaSet: Scaled up replica set ${current?.metadata?.name} from 5 to 9`,
      ]),
    );
  });

  it("deletes old ReplicaSets at 0 beyond revisionHistoryLimit, oldest revision first", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "deploy-history");
    await cs.appsV1.deployments(ns).create(deploymentOf("web", 1, { revisionHistoryLimit: 1 }));
    await waitRolledOut(cs, ns, "web");
    for (const image of ["nginx:1.26", "nginx:1.27"]) {
      await cs.appsV1.deployments(ns).patch("web", PatchTypes.strategicMerge, {
        spec: { template: { spec: { containers: [{ name: "nginx", image }] } } },
      });
      await waitRolledOut(cs, ns, "web");
    }
    await waitFor(
      "2 ReplicaSets left",
      async () => (await replicaSetsOf(cs, ns, "web")).length === 2,
    );
    const left = await replicaSetsOf(cs, ns, "web");
    expect(
      left.map((rs) => rs.metadata?.annotations?.["deployment.kubernetes.io/revision"]),
    ).toEqual(["2", "3"]);
  });

  it("bumps collisionCount when <name>-<hash> is taken by another template and uses the next hash", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "deploy-collision");
    const created = await cs.appsV1
      .deployments(ns)
      .create(deploymentOf("web", 1, { paused: true }));
    const hash = templateHash(created.spec?.template);
    await cs.appsV1.replicaSets(ns).create({
      metadata: { name: `web-${hash}` },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "squatter" } },
        template: {
          metadata: { labels: { app: "squatter" } },
          spec: { containers: [{ name: "other", image: "busybox" }] },
        },
      },
    });
    await cs.appsV1.deployments(ns).patch("web", PatchTypes.merge, { spec: { paused: false } });
    const d = await waitRolledOut(cs, ns, "web");
    expect(d.status?.collisionCount).toBe(1);
    const [rs] = await replicaSetsOf(cs, ns, "web");
    expect(rs?.metadata?.name).toBe(`web-${templateHash(created.spec?.template, 1)}`);
  });

  it("adopts a matching orphan ReplicaSet and scales it down as an old revision", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "deploy-adopt");
    const orphan = await cs.appsV1.replicaSets(ns).create({
      metadata: { name: "web-orphan", labels: { app: "web" } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "nginx", image: "nginx:1.25" }] },
        },
      },
    });
    const created = await cs.appsV1.deployments(ns).create(deploymentOf("web", 2));
    await waitRolledOut(cs, ns, "web");
    const adopted = await eventually("the orphan adopted and scaled to 0", async () => {
      const rs = await cs.appsV1.replicaSets(ns).get("web-orphan");
      return rs.spec?.replicas === 0 ? rs : undefined;
    });
    expect(adopted.metadata?.uid).toBe(orphan.metadata?.uid);
    expect(controllerOf(adopted)?.uid).toBe(created.metadata?.uid);
  });

  it("mirrors the new ReplicaSet's ReplicaFailure and reports the Deployment unavailable", async () => {
    const cs = client();
    const ns = await createTestNamespace(cs, "deploy-failure");
    refusePodCreates(h.server, ns);
    await cs.appsV1.deployments(ns).create(deploymentOf("web", 2));
    const d = await eventually("ReplicaFailure on the Deployment", async () => {
      const got = await cs.appsV1.deployments(ns).get("web");
      return conditionOf(got, "ReplicaFailure") !== undefined ? got : undefined;
    });
    expect(conditionOf(d, "ReplicaFailure")).toMatchObject({
      status: "True",
      reason: "FailedCreate",
    });
    expect(conditionOf(d, "Available")).toMatchObject({
      status: "False",
      reason: "MinimumReplicasUnavailable",
      message: "Deployment does not have minimum availability.",
    });
    expect(d.status?.unavailableReplicas).toBe(2);
    h.server.faults.clear();
    const done = await waitRolledOut(cs, ns, "web", 15_000);
    expect(conditionOf(done, "ReplicaFailure")).toBeUndefined();
  });
});

describe("deployment controller: progress deadline on a FakeClock", () => {
  const clock = new FakeClock();
  const h = useServer({ clock, cluster: { controllers: ["replicaset", "deployment"], nodes: 1 } });

  it("reports ProgressDeadlineExceeded once progressDeadlineSeconds pass without progress", async () => {
    const cs = new Clientset(h.server.kubeConfig().restConfig());
    const ns = await createTestNamespace(cs, "deploy-deadline");
    await cs.appsV1
      .deployments(ns)
      .create(
        deploymentOf(
          "web",
          1,
          { progressDeadlineSeconds: 60 },
          { [SIMULATION_ANNOTATIONS.ready]: "false" },
        ),
      );
    const started = await eventually("the rollout started", async () => {
      clock.advance(0);
      const d = await cs.appsV1.deployments(ns).get("web");
      return d.status?.updatedReplicas === 1 ? d : undefined;
    });
    const progressing = conditionOf(started, "Progressing");
    expect(progressing?.status).toBe("True");
    const rsName = (await replicaSetsOf(cs, ns, "web"))[0]?.metadata?.name;
    // Not yet at 59 s: the deadline counts from the condition's last update.
    clock.advance(59_000);
    await cs.appsV1.deployments(ns).patch("web", PatchTypes.merge, {
      metadata: { annotations: { poke: "1" } },
    });
    await waitFor("the annotation copied to the ReplicaSet", async () => {
      const [rs] = await replicaSetsOf(cs, ns, "web");
      return rs?.metadata?.annotations?.["poke"] === "1";
    });
    expect(conditionOf(await cs.appsV1.deployments(ns).get("web"), "Progressing")?.reason).not.toBe(
      "ProgressDeadlineExceeded",
    );
    const timedOut = await eventually("ProgressDeadlineExceeded", async () => {
      clock.advance(1_000);
      const d = await cs.appsV1.deployments(ns).get("web");
      return conditionOf(d, "Progressing")?.reason === "ProgressDeadlineExceeded" ? d : undefined;
    });
    expect(conditionOf(timedOut, "Progressing")).toMatchObject({
      status: "False",
      reason: "ProgressDeadlineExceeded",
      message: `ReplicaSet "${rsName}" has timed out progressing.`,
    });
    expect(clock.now() - Date.parse(progressing?.lastUpdateTime ?? "")).toBeGreaterThan(60_000);
  });
});
