import type { Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import { describe, expect, it } from "vitest";
import {
  maxSurge,
  maxUnavailable,
  newReplicaSetReplicas,
} from "../../../../packages/cluster/src/deployment/rolling-update-bounds.js";

function deployment(
  replicas: number,
  surge: number | string,
  unavailable: number | string,
  type = "RollingUpdate",
): Deployment {
  return {
    spec: {
      replicas,
      selector: {},
      template: {},
      strategy:
        type === "RollingUpdate"
          ? { type, rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } }
          : { type },
    },
  };
}

const rs = (replicas: number): ReplicaSet => ({ spec: { replicas, selector: {} } });

describe("rolling update bounds (ResolveFenceposts, NewRSNewReplicas)", () => {
  it("rounds a percentage surge up and unavailable down", () => {
    const d = deployment(10, "25%", "25%");
    expect(maxSurge(d)).toBe(3);
    expect(maxUnavailable(d)).toBe(2);
  });

  it("makes unavailable 1 when both round to 0, and caps it at replicas", () => {
    expect(maxUnavailable(deployment(3, 0, "10%"))).toBe(1);
    expect(maxSurge(deployment(3, "10%", "10%"))).toBe(1);
    expect(maxUnavailable(deployment(3, "10%", "10%"))).toBe(0);
    expect(maxUnavailable(deployment(2, 0, 5))).toBe(2);
  });

  it("is 0 for Recreate and for no replicas", () => {
    expect(maxSurge(deployment(3, 1, 1, "Recreate"))).toBe(0);
    expect(maxUnavailable(deployment(3, 1, 1, "Recreate"))).toBe(0);
    expect(maxUnavailable(deployment(0, 1, 1))).toBe(0);
  });

  it("grows the new ReplicaSet within replicas + maxSurge, never past replicas", () => {
    const d = deployment(10, 3, 2);
    const newRS = rs(0);
    expect(newReplicaSetReplicas(d, [rs(10), newRS], newRS)).toBe(3);
    const grown = rs(5);
    expect(newReplicaSetReplicas(d, [rs(8), grown], grown)).toBe(5);
    const almost = rs(9);
    expect(newReplicaSetReplicas(d, [rs(0), almost], almost)).toBe(10);
    expect(newReplicaSetReplicas(deployment(10, 3, 2, "Recreate"), [rs(10), newRS], newRS)).toBe(
      10,
    );
  });

  it("rejects a value that is not an integer or a percentage", () => {
    expect(() => maxSurge(deployment(3, "many", 1))).toThrow(TypeError);
  });
});
