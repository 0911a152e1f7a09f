import type { Node, Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import {
  fitErrorMessage,
  matchesNodeAffinity,
  nodeFitFailure,
  REASON_NODE_AFFINITY,
  REASON_NODE_UNSCHEDULABLE,
  tolerates,
} from "../../../../packages/cluster/src/scheduler/scheduler-filters.js";

function node(labels: Record<string, string>, spec: Node["spec"] = {}, ready = true): Node {
  return {
    metadata: { name: labels["kubernetes.io/hostname"] ?? "n", labels },
    spec,
    status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  };
}

function pod(spec: Partial<NonNullable<Pod["spec"]>>): Pod {
  return { metadata: { name: "p" }, spec: { containers: [], ...spec } };
}

describe("tolerates (core/v1 Toleration.ToleratesTaint)", () => {
  const taint = { key: "dedicated", value: "db", effect: "NoSchedule" };
  it("matches key, value and effect; Exists ignores the value; an empty key with Exists matches all", () => {
    expect(tolerates({ key: "dedicated", value: "db", effect: "NoSchedule" }, taint)).toBe(true);
    expect(tolerates({ key: "dedicated", value: "web" }, taint)).toBe(false);
    expect(tolerates({ key: "dedicated", operator: "Exists" }, taint)).toBe(true);
    expect(tolerates({ key: "dedicated", operator: "Exists", effect: "NoExecute" }, taint)).toBe(
      false,
    );
    expect(tolerates({ operator: "Exists" }, taint)).toBe(true);
    expect(tolerates({ key: "other", operator: "Exists" }, taint)).toBe(false);
  });
});

describe("matchesNodeAffinity", () => {
  const n = node({ "kubernetes.io/hostname": "a", zone: "z1", cores: "8" });
  const affinity = (matchExpressions: object[], matchFields: object[] = []): Pod =>
    pod({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions, matchFields }] as never,
          },
        },
      },
    });
  it("honours nodeSelector and every operator of the required terms", () => {
    expect(matchesNodeAffinity(pod({ nodeSelector: { zone: "z1" } }), n)).toBe(true);
    expect(matchesNodeAffinity(pod({ nodeSelector: { zone: "z2" } }), n)).toBe(false);
    expect(
      matchesNodeAffinity(affinity([{ key: "zone", operator: "In", values: ["z1", "z3"] }]), n),
    ).toBe(true);
    expect(
      matchesNodeAffinity(affinity([{ key: "zone", operator: "NotIn", values: ["z1"] }]), n),
    ).toBe(false);
    expect(matchesNodeAffinity(affinity([{ key: "gpu", operator: "DoesNotExist" }]), n)).toBe(true);
    expect(matchesNodeAffinity(affinity([{ key: "gpu", operator: "Exists" }]), n)).toBe(false);
    expect(
      matchesNodeAffinity(affinity([{ key: "cores", operator: "Gt", values: ["4"] }]), n),
    ).toBe(true);
    expect(
      matchesNodeAffinity(affinity([{ key: "cores", operator: "Lt", values: ["4"] }]), n),
    ).toBe(false);
    expect(
      matchesNodeAffinity(
        affinity([], [{ key: "metadata.name", operator: "In", values: ["a"] }]),
        n,
      ),
    ).toBe(true);
    // An empty term matches no node.
    expect(matchesNodeAffinity(affinity([]), n)).toBe(false);
  });
});

describe("nodeFitFailure", () => {
  it("names kube's reasons: cordoned, affinity, untolerated taint (not Ready counts as tainted)", () => {
    expect(nodeFitFailure(pod({}), node({}, { unschedulable: true }))).toBe(
      REASON_NODE_UNSCHEDULABLE,
    );
    expect(
      nodeFitFailure(
        pod({ tolerations: [{ key: "node.kubernetes.io/unschedulable", operator: "Exists" }] }),
        node({}, { unschedulable: true }),
      ),
    ).toBeUndefined();
    expect(nodeFitFailure(pod({ nodeSelector: { a: "b" } }), node({}))).toBe(REASON_NODE_AFFINITY);
    expect(
      nodeFitFailure(
        pod({}),
        node({}, { taints: [{ key: "k", value: "v", effect: "NoExecute" }] }),
      ),
    ).toBe("node(s) had untolerated taint {k: v}");
    expect(
      nodeFitFailure(pod({}), node({}, { taints: [{ key: "k", effect: "PreferNoSchedule" }] })),
    ).toBeUndefined();
    expect(nodeFitFailure(pod({}), node({}, {}, false))).toBe(
      "node(s) had untolerated taint {node.kubernetes.io/not-ready: }",
    );
  });
});

describe("fitErrorMessage (FitError.Error)", () => {
  it("counts and sorts the reasons, then adds the preemption verdict", () => {
    expect(
      fitErrorMessage(3, [REASON_NODE_AFFINITY, REASON_NODE_UNSCHEDULABLE, REASON_NODE_AFFINITY]),
    ).toBe(
      "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector. " +
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    expect(fitErrorMessage(0, [])).toBe("no nodes available to schedule pods");
  });
});
