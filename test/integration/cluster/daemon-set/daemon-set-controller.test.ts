import type { ControllerRevision, DaemonSet } from "kubernetes-types/apps/v1.js";
import type { Node, Pod } from "kubernetes-types/core/v1.js";
import { beforeAll, describe, expect, it } from "vitest";
import { Clientset, PatchTypes } from "kubekit";
import { eventually, useServer, waitFor } from "../../../support/server-test-helpers.js";
import { PodHistory, createTestNamespace, eventsAbout } from "../workload-helpers.js";

const NODES = ["kubekit-node-1", "kubekit-node-2", "kubekit-node-3"];

/** The tolerations kube adds to every daemon pod, in its order. */
const DAEMON_TOLERATIONS = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
];

type DaemonSetSpec = NonNullable<DaemonSet["spec"]>;

/** A DaemonSet `agent` of busybox pods labelled app=agent. */
function agent(overrides: Partial<DaemonSetSpec> = {}, podSpec: object = {}): DaemonSet {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "agent" },
    spec: {
      selector: { matchLabels: { app: "agent" } },
      template: {
        metadata: { labels: { app: "agent" } },
        spec: {
          containers: [{ name: "agent", image: "busybox:1.36", command: ["sleep", "3600"] }],
          ...podSpec,
        },
      },
      ...overrides,
    },
  };
}

function dsStatus(
  cs: Clientset,
  ns: string,
  what: string,
  done: (ds: DaemonSet) => boolean,
  timeoutMs = 10_000,
): Promise<DaemonSet> {
  return eventually(
    what,
    async () => {
      const ds = await cs.appsV1.daemonSets(ns).get("agent");
      return done(ds) ? ds : undefined;
    },
    timeoutMs,
  );
}

/** Changes the agent's template (image busybox:1.37): generation 2. */
async function updateAgentImage(cs: Clientset, ns: string): Promise<void> {
  await cs.appsV1.daemonSets(ns).patch("agent", PatchTypes.strategicMerge, {
    spec: {
      template: {
        spec: {
          containers: [{ name: "agent", image: "busybox:1.37", command: ["sleep", "3600"] }],
        },
      },
    },
  });
}

/** Waits until generation 2 is rolled out on the 3 nodes. */
function secondRollout(cs: Clientset, ns: string): Promise<DaemonSet> {
  return dsStatus(
    cs,
    ns,
    "the second rollout",
    (d) => rolledOut(d, 3) && d.metadata?.generation === 2,
  );
}

/** Whether the rollout is complete, as `kubectl rollout status daemonset/…` decides. */
function rolledOut(ds: DaemonSet, desired: number): boolean {
  const s = ds.status;
  return (
    (ds.metadata?.generation ?? 1) <= (s?.observedGeneration ?? 0) &&
    s?.desiredNumberScheduled === desired &&
    (s.updatedNumberScheduled ?? 0) === desired &&
    (s.numberAvailable ?? 0) === desired
  );
}

async function podsOf(cs: Clientset, ns: string): Promise<Pod[]> {
  return (await cs.coreV1.pods(ns).list()).items.filter(
    (p) => p.metadata?.deletionTimestamp === undefined,
  );
}

async function revisionsOf(cs: Clientset, ns: string): Promise<ControllerRevision[]> {
  const list = await cs.appsV1.controllerRevisions(ns).list();
  return list.items.sort((a, b) => a.revision - b.revision);
}

/** A Ready Node (no kubelet runs its pods: they stay Pending once bound). */
async function addNode(
  cs: Clientset,
  name: string,
  spec: Node["spec"],
  labels: Record<string, string>,
): Promise<void> {
  const node = await cs.coreV1.nodes().create({ metadata: { name, labels }, spec });
  await cs.coreV1.nodes().updateStatus({
    ...node,
    status: { conditions: [{ type: "Ready", status: "True", reason: "KubeletReady" }] },
  });
}

function boundNodes(pods: readonly Pod[]): string[] {
  return pods.map((p) => p.spec?.nodeName ?? "").sort();
}

describe("daemonset controller", () => {
  const h = useServer({ cluster: { controllers: ["daemonset"] } });
  let cs: Clientset;
  beforeAll(() => {
    cs = new Clientset(h.server.kubeConfig().restConfig());
  });

  it("runs one pod per node, pinned with kube's node affinity and tolerations, and reports the status kubectl reads", async () => {
    const ns = await createTestNamespace(cs, "ds-basic");
    await cs.appsV1.daemonSets(ns).create(agent());
    const ds = await dsStatus(cs, ns, "3 available pods", (d) => rolledOut(d, 3));
    const [revision, ...more] = await revisionsOf(cs, ns);
    expect(more).toEqual([]);
    const hash = revision?.metadata?.labels?.["controller-revision-hash"] ?? "";
    expect(revision).toMatchObject({
      revision: 1,
      metadata: {
        name: `agent-${hash}`,
        labels: { app: "agent", "controller-revision-hash": hash },
        ownerReferences: [
          { kind: "DaemonSet", name: "agent", uid: ds.metadata?.uid, controller: true },
        ],
      },
      data: { spec: { template: { $patch: "replace", metadata: { labels: { app: "agent" } } } } },
    });
    expect(ds.status).toEqual({
      observedGeneration: 1,
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberMisscheduled: 0,
      numberReady: 3,
      updatedNumberScheduled: 3,
      numberAvailable: 3,
    });
    const pods = await podsOf(cs, ns);
    expect(boundNodes(pods)).toEqual(NODES);
    for (const pod of pods) {
      expect(pod.metadata?.name).toMatch(/^agent-[a-z0-9]{5}$/);
      expect(pod.metadata?.labels).toEqual({
        app: "agent",
        "controller-revision-hash": hash,
        "pod-template-generation": "1",
      });
      expect(pod.spec?.affinity).toEqual({
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchFields: [
                  { key: "metadata.name", operator: "In", values: [pod.spec?.nodeName] },
                ],
              },
            ],
          },
        },
      });
      expect(pod.spec?.tolerations).toEqual(DAEMON_TOLERATIONS);
      expect(pod.status?.phase).toBe("Running");
    }
    await waitFor(
      "the creation events",
      async () => (await eventsAbout(cs, ns, "agent")).length >= 3,
    );
    expect(await eventsAbout(cs, ns, "agent")).toEqual(
      expect.arrayContaining(pods.map((p) => `SuccessfulCreate: Created pod: ${p.metadata?.name}`)),
    );
  });

  it("runs on cordoned nodes too (daemon pods tolerate node.kubernetes.io/unschedulable)", async () => {
    const ns = await createTestNamespace(cs, "ds-cordoned");
    await cs.coreV1
      .nodes()
      .patch("kubekit-node-2", PatchTypes.merge, { spec: { unschedulable: true } });
    try {
      await cs.appsV1.daemonSets(ns).create(agent());
      await dsStatus(cs, ns, "3 available pods", (d) => rolledOut(d, 3));
      expect(boundNodes(await podsOf(cs, ns))).toEqual(NODES);
    } finally {
      await cs.coreV1
        .nodes()
        .patch("kubekit-node-2", PatchTypes.merge, { spec: { unschedulable: null } });
    }
  });

  it("follows its nodeSelector: a matching node added gets a pod, a node deleted loses it", async () => {
    const ns = await createTestNamespace(cs, "ds-selector");
    await addNode(cs, "pool-a", {}, { pool: "extra" });
    await cs.appsV1.daemonSets(ns).create(agent({}, { nodeSelector: { pool: "extra" } }));
    await waitFor(
      "a pod bound to pool-a",
      async () => boundNodes(await podsOf(cs, ns)).join() === "pool-a",
    );
    await addNode(cs, "pool-b", {}, { pool: "extra" });
    await waitFor(
      "a pod bound to pool-b",
      async () => boundNodes(await podsOf(cs, ns)).join() === "pool-a,pool-b",
    );
    const both = await dsStatus(cs, ns, "2 desired", (d) => d.status?.currentNumberScheduled === 2);
    expect(both.status).toMatchObject({
      desiredNumberScheduled: 2,
      numberMisscheduled: 0,
      numberReady: 0,
    });
    expect(both.status?.numberUnavailable).toBe(2);
    await cs.coreV1.nodes().delete("pool-a");
    await waitFor(
      "pool-a's pod gone",
      async () => boundNodes((await cs.coreV1.pods(ns).list()).items).join() === "pool-b",
    );
    await dsStatus(cs, ns, "1 desired", (d) => d.status?.desiredNumberScheduled === 1);
    await cs.coreV1.nodes().delete("pool-b");
  });

  it("stays off NoSchedule taints it does not tolerate, and leaves a node tainted NoExecute", async () => {
    const ns = await createTestNamespace(cs, "ds-taints");
    await addNode(
      cs,
      "tainted",
      { taints: [{ key: "dedicated", value: "db", effect: "NoSchedule" }] },
      { pool: "tainted" },
    );
    const daemonSets = cs.appsV1.daemonSets(ns);
    await daemonSets.create(agent({}, { nodeSelector: { pool: "tainted" } }));
    const untolerated = await dsStatus(
      cs,
      ns,
      "the status",
      (d) => d.status?.observedGeneration === 1,
    );
    expect(untolerated.status?.desiredNumberScheduled).toBe(0);
    expect(await podsOf(cs, ns)).toEqual([]);

    await daemonSets.patch("agent", PatchTypes.strategicMerge, {
      spec: { template: { spec: { tolerations: [{ key: "dedicated", operator: "Exists" }] } } },
    });
    await waitFor(
      "a pod bound to the tainted node",
      async () => boundNodes(await podsOf(cs, ns)).join() === "tainted",
    );
    const [pod] = await podsOf(cs, ns);
    expect(pod?.spec?.tolerations).toEqual([
      { key: "dedicated", operator: "Exists" },
      ...DAEMON_TOLERATIONS,
    ]);

    await cs.coreV1.nodes().patch("tainted", PatchTypes.merge, {
      spec: {
        taints: [
          { key: "dedicated", value: "db", effect: "NoSchedule" },
          { key: "evict", value: "now", effect: "NoExecute" },
        ],
      },
    });
    await waitFor("the pod evicted", async () => (await podsOf(cs, ns)).length === 0);
    await dsStatus(cs, ns, "nothing desired", (d) => d.status?.desiredNumberScheduled === 0);
    await cs.coreV1.nodes().delete("tainted");
  });

  it("RollingUpdate replaces one node's pod at a time (maxUnavailable 1); rollback renumbers the old revision", async () => {
    const ns = await createTestNamespace(cs, "ds-rolling");
    const daemonSets = cs.appsV1.daemonSets(ns);
    await daemonSets.create(agent());
    await dsStatus(cs, ns, "the first rollout", (d) => rolledOut(d, 3));
    const oldPods = new Set((await podsOf(cs, ns)).map((p) => p.metadata?.name ?? ""));
    const history = await PodHistory.start(cs, ns);
    await updateAgentImage(cs, ns);
    const updated = await secondRollout(cs, ns);
    await history.stop();
    // Never two nodes without an available pod: each old pod goes only once every
    // replacement so far is Ready.
    let replacedReady = 0;
    let deletions = 0;
    for (const entry of history.entries) {
      const [what, name = ""] = entry.split(" ");
      if (what === "ready" && !oldPods.has(name)) replacedReady++;
      if (what === "deleting" && oldPods.has(name)) {
        expect(replacedReady, history.entries.join("\n")).toBe(deletions);
        deletions++;
      }
    }
    expect(deletions).toBe(3);
    const pods = await podsOf(cs, ns);
    expect(boundNodes(pods)).toEqual(NODES);
    expect(pods.map((p) => p.spec?.containers[0]?.image)).toEqual(Array(3).fill("busybox:1.37"));
    // kube-apiserver counts template changes; the pods carry the count.
    expect(updated.metadata?.annotations?.["deprecated.daemonset.template.generation"]).toBe("2");
    expect(pods.map((p) => p.metadata?.labels?.["pod-template-generation"])).toEqual(
      Array(3).fill("2"),
    );
    const [first, second] = await revisionsOf(cs, ns);
    expect([first?.revision, second?.revision]).toEqual([1, 2]);

    // What `kubectl rollout undo` does: the previous revision's data as a strategic merge patch.
    await daemonSets.patch("agent", PatchTypes.strategicMerge, first?.data as object);
    await dsStatus(cs, ns, "the rollback", (d) => rolledOut(d, 3) && d.metadata?.generation === 3);
    expect((await revisionsOf(cs, ns)).map((r) => [r.metadata?.name, r.revision])).toEqual([
      [second?.metadata?.name, 2],
      [first?.metadata?.name, 3],
    ]);
    expect(
      (await podsOf(cs, ns)).map((p) => p.metadata?.labels?.["controller-revision-hash"]),
    ).toEqual(Array(3).fill(first?.metadata?.labels?.["controller-revision-hash"]));
  });

  it("RollingUpdate with maxSurge starts the new pod before it stops the old one", async () => {
    const ns = await createTestNamespace(cs, "ds-surge");
    const daemonSets = cs.appsV1.daemonSets(ns);
    await daemonSets.create(
      agent({
        updateStrategy: {
          type: "RollingUpdate",
          rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
        },
      }),
    );
    await dsStatus(cs, ns, "the first rollout", (d) => rolledOut(d, 3));
    const oldByNode = new Map(
      (await podsOf(cs, ns)).map((p) => [p.spec?.nodeName, p.metadata?.name]),
    );
    const history = await PodHistory.start(cs, ns);
    await updateAgentImage(cs, ns);
    await secondRollout(cs, ns);
    await waitFor(
      "old pods gone",
      async () => (await cs.coreV1.pods(ns).list()).items.length === 3,
    );
    await history.stop();
    const newByNode = new Map(
      (await podsOf(cs, ns)).map((p) => [p.spec?.nodeName, p.metadata?.name]),
    );
    for (const node of NODES) {
      const ready = history.indexOf(`ready ${newByNode.get(node)}`);
      expect(ready).toBeGreaterThanOrEqual(0);
      expect(ready, history.entries.join("\n")).toBeLessThan(
        history.indexOf(`deleting ${oldByNode.get(node)}`),
      );
    }
  });

  it("OnDelete: a new template reaches only the pods deleted by hand", async () => {
    const ns = await createTestNamespace(cs, "ds-ondelete");
    const daemonSets = cs.appsV1.daemonSets(ns);
    await daemonSets.create(agent({ updateStrategy: { type: "OnDelete" } }));
    await dsStatus(cs, ns, "the first rollout", (d) => rolledOut(d, 3));
    await updateAgentImage(cs, ns);
    const observed = await dsStatus(
      cs,
      ns,
      "generation 2",
      (d) => d.status?.observedGeneration === 2,
    );
    expect(observed.status?.updatedNumberScheduled ?? 0).toBe(0);
    expect((await podsOf(cs, ns)).map((p) => p.spec?.containers[0]?.image)).toEqual(
      Array(3).fill("busybox:1.36"),
    );
    const victim = (await podsOf(cs, ns)).find((p) => p.spec?.nodeName === "kubekit-node-2");
    await cs.coreV1.pods(ns).delete(victim?.metadata?.name ?? "");
    await dsStatus(
      cs,
      ns,
      "one updated pod",
      (d) => d.status?.updatedNumberScheduled === 1 && d.status.numberAvailable === 3,
    );
    const images = new Map(
      (await podsOf(cs, ns)).map((p) => [p.spec?.nodeName, p.spec?.containers[0]?.image]),
    );
    expect(images).toEqual(
      new Map([
        ["kubekit-node-1", "busybox:1.36"],
        ["kubekit-node-2", "busybox:1.37"],
        ["kubekit-node-3", "busybox:1.36"],
      ]),
    );
  });

  it("deletes old revisions beyond revisionHistoryLimit once no pod uses them", async () => {
    const ns = await createTestNamespace(cs, "ds-history");
    const daemonSets = cs.appsV1.daemonSets(ns);
    await daemonSets.create(agent({ revisionHistoryLimit: 0 }));
    await dsStatus(cs, ns, "the first rollout", (d) => rolledOut(d, 3));
    await updateAgentImage(cs, ns);
    await secondRollout(cs, ns);
    await waitFor("one revision left", async () => (await revisionsOf(cs, ns)).length === 1);
    expect((await revisionsOf(cs, ns))[0]?.revision).toBe(2);
  });
});
