import type { Node, Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import { DeletedFinalStateUnknown } from "kubekit";
import { SchedulerCache } from "../../../../packages/cluster/src/scheduler/scheduler-cache.js";
import {
  hasNodeConstraints,
  NodeSnapshot,
} from "../../../../packages/cluster/src/scheduler/node-snapshot.js";

function pod(name: string, nodeName = "", uid = `uid-${name}`, phase = "Pending"): Pod {
  return {
    metadata: { name, namespace: "ns", uid },
    spec: { containers: [], ...(nodeName !== "" ? { nodeName } : {}) },
    status: { phase },
  };
}

function node(name: string, spec: Node["spec"] = {}, ready = true): Node {
  return {
    metadata: { name },
    spec,
    status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  };
}

function count(cache: SchedulerCache, node: string): number {
  const load = cache.loadOf(node);
  return load.bound + load.assumed;
}

describe("SchedulerCache (kube-scheduler's pod counts per node)", () => {
  it("counts live bound pods per node from the informer's notifications", () => {
    const cache = new SchedulerCache();
    const h = cache.handler;
    h.onAdd?.(pod("a", "n1"), true);
    h.onAdd?.(pod("b", "n1"), false);
    h.onAdd?.(pod("c"), false); // unbound: counts nowhere
    expect([count(cache, "n1"), count(cache, "n2")]).toEqual([2, 0]);
    h.onUpdate?.(pod("c"), pod("c", "n2"));
    h.onUpdate?.(pod("a", "n1"), pod("a", "n1", "uid-a", "Succeeded")); // terminated: freed
    expect([count(cache, "n1"), count(cache, "n2")]).toEqual([1, 1]);
    h.onDelete?.(pod("b", "n1"));
    h.onDelete?.(new DeletedFinalStateUnknown<Pod>("ns/c", undefined)); // a tombstone, no object
    expect([count(cache, "n1"), count(cache, "n2")]).toEqual([0, 0]);
  });

  it("counts an assumed pod once: until the informer shows it bound, then as bound", () => {
    const cache = new SchedulerCache();
    const h = cache.handler;
    h.onAdd?.(pod("a"), false);
    cache.assume("ns/a", "uid-a", "n1");
    expect(cache.isAssumed("ns/a", "uid-a")).toBe(true);
    expect(cache.loadOf("n1")).toEqual({ bound: 0, assumed: 1 });
    h.onUpdate?.(pod("a"), pod("a")); // another change, still unbound: still assumed
    expect(cache.loadOf("n1")).toEqual({ bound: 0, assumed: 1 });
    h.onUpdate?.(pod("a"), pod("a", "n1"));
    expect(cache.isAssumed("ns/a", "uid-a")).toBe(false);
    expect(cache.loadOf("n1")).toEqual({ bound: 1, assumed: 0 });
  });

  it("drops an assumption when its binding fails, the pod goes, or a new pod takes the name", () => {
    const cache = new SchedulerCache();
    const h = cache.handler;
    cache.assume("ns/a", "uid-a", "n1");
    cache.forget("ns/a");
    cache.forget("ns/a"); // twice: nothing more
    expect(count(cache, "n1")).toBe(0);
    cache.assume("ns/b", "uid-b", "n1");
    h.onDelete?.(pod("b"));
    expect(count(cache, "n1")).toBe(0);
    cache.assume("ns/c", "uid-c", "n1");
    h.onAdd?.(pod("c", "", "uid-c2"), false);
    expect(cache.isAssumed("ns/c", "uid-c")).toBe(false);
    expect(count(cache, "n1")).toBe(0);
    cache.assume("ns/d", "uid-d", "n1");
    cache.assume("ns/d", "uid-d", "n2"); // re-assumed elsewhere: moves
    expect([count(cache, "n1"), count(cache, "n2")]).toEqual([0, 1]);
  });
});

describe("NodeSnapshot", () => {
  it("orders nodes naturally, reuses its entries while the node objects are the same, and rebuilds on a change", () => {
    const cache = new SchedulerCache();
    const snapshot = new NodeSnapshot((name) => cache.loadOf(name));
    const nodes = [node("node-10"), node("node-2"), node("node-1", { unschedulable: true })];
    const first = snapshot.update(nodes);
    expect(first.map((e) => e.name)).toEqual(["node-1", "node-2", "node-10"]);
    expect(first.map((e) => e.plainFailure)).toEqual([
      "node(s) were unschedulable",
      undefined,
      undefined,
    ]);
    expect(snapshot.update([...nodes])).toBe(first);
    cache.assume("ns/a", "uid-a", "node-2");
    expect(first[1]?.load).toEqual({ bound: 0, assumed: 1 }); // live counts
    const tainted = node("node-2", { taints: [{ key: "k", effect: "NoSchedule" }] });
    const second = snapshot.update([nodes[0] as Node, tainted, nodes[2] as Node]);
    expect(second).not.toBe(first);
    expect(second[1]?.plainFailure).toBe("node(s) had untolerated taint {k: }");
    expect(second[1]?.load).toEqual({ bound: 0, assumed: 1 });
  });

  it("tells pods whose filters depend only on the node from pods with node constraints", () => {
    expect(hasNodeConstraints(pod("a"))).toBe(false);
    expect(
      hasNodeConstraints({ spec: { containers: [], nodeSelector: {}, tolerations: [] } }),
    ).toBe(false);
    expect(hasNodeConstraints({ spec: { containers: [], nodeSelector: { a: "b" } } })).toBe(true);
    expect(
      hasNodeConstraints({ spec: { containers: [], tolerations: [{ operator: "Exists" }] } }),
    ).toBe(true);
    expect(
      hasNodeConstraints({
        spec: {
          containers: [],
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] },
            },
          },
        },
      }),
    ).toBe(true);
  });
});
