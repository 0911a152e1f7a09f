import type { Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import { describe, expect, it } from "vitest";
import {
  rolloutStatus,
  stuckRequeueMs,
} from "../../../../packages/cluster/src/deployment/deployment-status.js";

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

function deployment(status: Deployment["status"] = {}): Deployment {
  return {
    metadata: { name: "web", generation: 2 },
    spec: { replicas: 3, selector: {}, template: {}, progressDeadlineSeconds: 600 },
    status,
  };
}

function rs(name: string, replicas: number, available: number): ReplicaSet {
  return {
    metadata: { name, uid: name },
    spec: { replicas, selector: {} },
    status: { replicas, readyReplicas: available, availableReplicas: available },
  };
}

const progressing = (status: ReturnType<typeof rolloutStatus>) =>
  status.conditions?.find((c) => c.type === "Progressing");

describe("rolloutStatus (kube's syncRolloutStatus)", () => {
  it("reports NewReplicaSetAvailable once complete, with kube's message", () => {
    const newRS = rs("web-abc", 3, 3);
    const status = rolloutStatus(deployment(), [newRS], newRS, T0);
    expect(status).toMatchObject({
      observedGeneration: 2,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
    expect(progressing(status)).toEqual({
      type: "Progressing",
      status: "True",
      reason: "NewReplicaSetAvailable",
      message: 'ReplicaSet "web-abc" has successfully progressed.',
      lastUpdateTime: at(T0),
      lastTransitionTime: at(T0),
    });
    expect(status.conditions?.find((c) => c.type === "Available")?.reason).toBe(
      "MinimumReplicasAvailable",
    );
  });

  it("refreshes ReplicaSetUpdated's update time on progress and keeps its transition time", () => {
    const before = deployment({
      replicas: 3,
      updatedReplicas: 1,
      conditions: [
        {
          type: "Progressing",
          status: "True",
          reason: "ReplicaSetUpdated",
          message: 'ReplicaSet "web-abc" is progressing.',
          lastUpdateTime: at(T0),
          lastTransitionTime: at(T0),
        },
      ],
    });
    const status = rolloutStatus(
      before,
      [rs("web-old", 1, 1), rs("web-abc", 2, 1)],
      rs("web-abc", 2, 1),
      T0 + 5_000,
    );
    expect(progressing(status)).toMatchObject({
      reason: "ReplicaSetUpdated",
      lastUpdateTime: at(T0 + 5_000),
      lastTransitionTime: at(T0),
    });
  });

  it("times out after progressDeadlineSeconds without progress, and requeues for the deadline before", () => {
    const stuck = deployment({
      observedGeneration: 2,
      replicas: 3,
      updatedReplicas: 1,
      readyReplicas: 2,
      availableReplicas: 2,
      conditions: [
        {
          type: "Progressing",
          status: "True",
          reason: "ReplicaSetUpdated",
          lastUpdateTime: at(T0),
          lastTransitionTime: at(T0),
        },
      ],
    });
    const all = [rs("web-old", 2, 2), rs("web-abc", 1, 0)];
    const early = rolloutStatus(stuck, all, all[1], T0 + 599_000);
    expect(progressing(early)?.reason).toBe("ReplicaSetUpdated");
    expect(stuckRequeueMs(stuck, early, T0 + 599_000)).toBe(1_000);
    const late = rolloutStatus(stuck, all, all[1], T0 + 600_001);
    expect(progressing(late)).toMatchObject({
      status: "False",
      reason: "ProgressDeadlineExceeded",
      message: 'ReplicaSet "web-abc" has timed out progressing.',
    });
    expect(stuckRequeueMs(stuck, late, T0 + 600_001)).toBeUndefined();
  });

  it("has no Progressing condition without a progress deadline", () => {
    const d = deployment();
    d.spec = { ...d.spec, selector: {}, template: {}, progressDeadlineSeconds: 2147483647 };
    const newRS = rs("web-abc", 3, 3);
    expect(progressing(rolloutStatus(d, [newRS], newRS, T0))).toBeUndefined();
  });
});
