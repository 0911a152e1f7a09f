import type { Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import { podsToDelete } from "../../../../packages/cluster/src/replica-set/pod-deletion-order.js";

const NOW = Date.UTC(2026, 0, 1, 12);

interface PodShape {
  name: string;
  node?: string;
  phase?: string;
  readySinceMs?: number;
  cost?: string;
  restarts?: number;
  createdMs?: number;
}

function pod(p: PodShape): Pod {
  return {
    metadata: {
      name: p.name,
      uid: `uid-${p.name}`,
      creationTimestamp: new Date(p.createdMs ?? NOW - 3_600_000).toISOString(),
      ...(p.cost !== undefined
        ? { annotations: { "controller.kubernetes.io/pod-deletion-cost": p.cost } }
        : {}),
    },
    spec: { containers: [], ...(p.node !== undefined ? { nodeName: p.node } : {}) },
    status: {
      phase: p.phase ?? "Running",
      conditions:
        p.readySinceMs !== undefined
          ? [
              {
                type: "Ready",
                status: "True",
                lastTransitionTime: new Date(p.readySinceMs).toISOString(),
              },
            ]
          : [{ type: "Ready", status: "False" }],
      containerStatuses: [
        { name: "c", image: "x", imageID: "", ready: true, restartCount: p.restarts ?? 0 },
      ],
    },
  };
}

const names = (pods: Pod[]): string[] => pods.map((p) => p.metadata?.name ?? "");
const HOUR_AGO = NOW - 3_600_000;

describe("podsToDelete (kube's ActivePodsWithRanks)", () => {
  it("ranks unassigned < Pending < Running, then not ready < ready", () => {
    const pods = [
      pod({ name: "ready", node: "n1", readySinceMs: HOUR_AGO }),
      pod({ name: "running", node: "n1" }),
      pod({ name: "pending", node: "n1", phase: "Pending" }),
      pod({ name: "unassigned", phase: "Pending" }),
    ];
    expect(names(podsToDelete(pods, pods, 3, NOW))).toEqual(["unassigned", "pending", "running"]);
  });

  it("prefers a lower pod-deletion-cost, then pods on crowded nodes", () => {
    const pods = [
      pod({ name: "dear", node: "n1", readySinceMs: HOUR_AGO, cost: "100" }),
      pod({ name: "alone", node: "n2", readySinceMs: HOUR_AGO }),
      pod({ name: "crowded", node: "n1", readySinceMs: HOUR_AGO }),
      pod({ name: "cheap", node: "n2", readySinceMs: HOUR_AGO, cost: "-5" }),
    ];
    const related = [...pods, pod({ name: "sibling", node: "n1", readySinceMs: HOUR_AGO })];
    expect(names(podsToDelete(pods, related, 3, NOW))).toEqual(["cheap", "crowded", "alone"]);
  });

  it("then ready for less time (on a log2 scale), more restarts, newer", () => {
    const pods = [
      pod({ name: "old-ready", node: "n1", readySinceMs: NOW - 86_400_000 }),
      pod({ name: "new-ready", node: "n1", readySinceMs: NOW - 1_000 }),
      pod({ name: "restarting", node: "n1", readySinceMs: NOW - 86_400_000, restarts: 3 }),
    ];
    expect(names(podsToDelete(pods, [], 2, NOW))).toEqual(["new-ready", "restarting"]);
    const created = [
      pod({ name: "older", node: "n1", createdMs: NOW - 86_400_000 }),
      pod({ name: "newer", node: "n1", createdMs: NOW - 1_000 }),
    ];
    expect(names(podsToDelete(created, [], 1, NOW))).toEqual(["newer"]);
  });

  it("returns every pod when the count covers them", () => {
    const pods = [pod({ name: "a" }), pod({ name: "b" })];
    expect(names(podsToDelete(pods, [], 5, NOW))).toEqual(["a", "b"]);
  });
});
