import type { DaemonSet } from "kubernetes-types/apps/v1.js";
import type { Node, Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import {
  newDaemonPod,
  targetNodeOf,
  withDaemonTolerations,
} from "../../../../packages/cluster/src/daemon-set/daemon-pod.js";
import { daemonPlacement } from "../../../../packages/cluster/src/daemon-set/daemon-set-placement.js";
import { rollingUpdateStep } from "../../../../packages/cluster/src/daemon-set/daemon-set-rolling-update.js";

function daemonSet(
  spec: Partial<NonNullable<DaemonSet["spec"]>> = {},
  podSpec: object = {},
): DaemonSet {
  return {
    metadata: { name: "agent", namespace: "default", uid: "ds-uid", generation: 1 },
    spec: {
      selector: { matchLabels: { app: "agent" } },
      template: {
        metadata: { labels: { app: "agent" } },
        spec: { containers: [{ name: "agent", image: "busybox" }], ...podSpec },
      },
      ...spec,
    },
  };
}

function node(name: string, spec: Node["spec"] = {}, labels: Record<string, string> = {}): Node {
  return { metadata: { name, labels }, spec };
}

describe("daemon pod tolerations", () => {
  it("adds network-unavailable only to host-network pods", () => {
    const keys = (hostNetwork: boolean) =>
      (withDaemonTolerations({ containers: [], hostNetwork }).tolerations ?? []).map((t) => t.key);
    expect(keys(false)).not.toContain("node.kubernetes.io/network-unavailable");
    expect(keys(true).at(-1)).toBe("node.kubernetes.io/network-unavailable");
  });

  it("keeps an identical toleration and replaces one that differs only in tolerationSeconds", () => {
    const spec = withDaemonTolerations({
      containers: [],
      tolerations: [
        {
          key: "node.kubernetes.io/not-ready",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 30,
        },
        { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
      ],
    });
    expect(spec.tolerations?.slice(0, 2)).toEqual([
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
      { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
    ]);
    expect(spec.tolerations).toHaveLength(6);
  });
});

describe("daemon pod node pinning", () => {
  it("replaces the template's required node selector terms, keeping preferred ones", () => {
    const pod = newDaemonPod(
      daemonSet(
        {},
        {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] },
                ],
              },
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 1,
                  preference: { matchExpressions: [{ key: "ssd", operator: "Exists" }] },
                },
              ],
            },
          },
        },
      ),
      "node-a",
      "hash1",
    );
    expect(pod.spec?.affinity?.nodeAffinity).toEqual({
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchFields: [{ key: "metadata.name", operator: "In", values: ["node-a"] }] },
        ],
      },
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 1, preference: { matchExpressions: [{ key: "ssd", operator: "Exists" }] } },
      ],
    });
    expect(pod.metadata?.generateName).toBe("agent-");
    expect(targetNodeOf(pod)).toBe("node-a");
    expect(targetNodeOf({ ...pod, spec: { ...pod.spec!, nodeName: "node-b" } })).toBe("node-b");
    expect(targetNodeOf({ spec: { containers: [] } } as Pod)).toBeUndefined();
  });
});

describe("daemonPlacement", () => {
  it("follows nodeSelector, required affinity and the template's nodeName", () => {
    const ds = daemonSet({}, { nodeSelector: { pool: "edge" } });
    expect(daemonPlacement(ds, node("a", {}, { pool: "edge" })).shouldRun).toBe(true);
    expect(daemonPlacement(ds, node("b", {}, { pool: "core" }))).toEqual({
      shouldRun: false,
      shouldContinueRunning: false,
    });
    expect(daemonPlacement(daemonSet({}, { nodeName: "a" }), node("b")).shouldRun).toBe(false);
  });

  it("keeps a pod on a node with an untolerated NoSchedule taint but not NoExecute", () => {
    const ds = daemonSet();
    expect(
      daemonPlacement(ds, node("a", { taints: [{ key: "x", effect: "NoSchedule" }] })),
    ).toEqual({
      shouldRun: false,
      shouldContinueRunning: true,
    });
    expect(daemonPlacement(ds, node("a", { taints: [{ key: "x", effect: "NoExecute" }] }))).toEqual(
      {
        shouldRun: false,
        shouldContinueRunning: false,
      },
    );
    // The daemon tolerations: cordoned and not-ready nodes still run daemon pods.
    const tainted = node("a", {
      unschedulable: true,
      taints: [
        { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" },
        { key: "node.kubernetes.io/not-ready", effect: "NoExecute" },
      ],
    });
    expect(daemonPlacement(ds, tainted).shouldRun).toBe(true);
  });
});

describe("rollingUpdateStep", () => {
  const ready = (name: string, nodeName: string, hash: string): Pod => ({
    metadata: { name, labels: { "controller-revision-hash": hash } },
    spec: { containers: [], nodeName },
    status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
  });
  const nodes = ["n1", "n2", "n3", "n4"].map((n) => node(n));
  const byNode = new Map(
    nodes.map((n, i) => [n.metadata!.name!, [ready(`old-${i}`, n.metadata!.name!, "old")]]),
  );
  /** The step from every node's old pod to revision "new" with these RollingUpdate bounds. */
  const stepWith = (maxUnavailable: number | string, maxSurge: number | string) =>
    rollingUpdateStep(
      daemonSet({
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable, maxSurge } },
      }),
      nodes,
      byNode,
      "new",
      0,
    );

  it("deletes as many old pods as maxUnavailable allows, a percentage rounded up", () => {
    const step = stepWith("30%", 0);
    expect(step.remove.map((p) => p.metadata?.name)).toEqual(["old-0", "old-1"]);
    expect(step.createOn).toEqual([]);
  });

  it("surges onto maxSurge nodes, keeping every old pod", () => {
    const step = stepWith(0, 1);
    expect(step).toEqual({ remove: [], createOn: ["n1"] });
  });

  it("defaults to one unavailable node when both bounds are 0", () => {
    const step = stepWith(0, 0);
    expect(step.remove).toHaveLength(1);
  });
});
