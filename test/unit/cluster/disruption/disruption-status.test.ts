import type { Pod } from "kubernetes-types/core/v1.js";
import type { PodDisruptionBudget } from "kubernetes-types/policy/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import {
  DELETION_TIMEOUT_MS,
  budgetStatus,
  expectedPodCount,
  failSafeStatus,
} from "../../../../packages/cluster/src/disruption/disruption-status.js";

const START = Date.parse("2026-01-01T00:00:00Z");

function pod(name: string, ready: boolean, deleting = false): Pod {
  return {
    metadata: {
      name,
      ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
    },
    status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  };
}

function pdb(spec: PodDisruptionBudget["spec"], status?: PodDisruptionBudget["status"]) {
  return { metadata: { name: "b", generation: 3 }, spec, ...(status ? { status } : {}) };
}

describe("disruption status", () => {
  const pods = [pod("a", true), pod("b", true), pod("c", false), pod("d", true, true)];

  it("scales percentages by the controllers' scale, rounding up, and integers by the pod count", () => {
    const scale = (): number => 5;
    expect(expectedPodCount(pdb({ maxUnavailable: "30%" }), pods, scale)).toEqual({
      expectedPods: 5,
      desiredHealthy: 3,
    });
    expect(expectedPodCount(pdb({ minAvailable: "30%" }), pods, scale)).toEqual({
      expectedPods: 5,
      desiredHealthy: 2,
    });
    expect(expectedPodCount(pdb({ minAvailable: 2 }), pods, scale)).toEqual({
      expectedPods: 4,
      desiredHealthy: 2,
    });
    expect(expectedPodCount(pdb({ maxUnavailable: 9 }), pods, scale).desiredHealthy).toBe(0);
  });

  it("counts Ready pods not being deleted nor just evicted, and rechecks when an eviction expires", () => {
    const clock = new FakeClock(START + 30_000);
    const evicted = { a: "2026-01-01T00:00:00Z", gone: "2026-01-01T00:00:00Z" };
    const result = budgetStatus(
      pdb(
        { minAvailable: 1 },
        {
          disruptedPods: evicted,
          disruptionsAllowed: 0,
          currentHealthy: 0,
          desiredHealthy: 0,
          expectedPods: 0,
        },
      ),
      pods,
      () => 0,
      clock,
    );
    expect(result.status).toMatchObject({
      currentHealthy: 1,
      desiredHealthy: 1,
      expectedPods: 4,
      disruptionsAllowed: 0,
      observedGeneration: 3,
      disruptedPods: { a: "2026-01-01T00:00:00Z" },
    });
    expect(result.status.conditions?.[0]).toMatchObject({
      type: "DisruptionAllowed",
      status: "False",
      reason: "InsufficientPods",
      message: "",
    });
    expect(result.recheckAfterMs).toBe(DELETION_TIMEOUT_MS - 30_000);
    clock.setTime(START + DELETION_TIMEOUT_MS);
    const later = budgetStatus(pdb({ minAvailable: 1 }, result.status), pods, () => 0, clock);
    expect(later.status.disruptedPods).toBeUndefined();
    expect(later.status).toMatchObject({ currentHealthy: 2, disruptionsAllowed: 1 });
    expect(later.status.conditions?.[0]).toMatchObject({
      status: "True",
      reason: "SufficientPods",
    });
    expect(later.recheckAfterMs).toBeUndefined();
  });

  it("fails safe with no disruption allowed and the error as a SyncFailed condition", () => {
    const status = failSafeStatus(
      pdb({ minAvailable: "50%" }),
      "found no controllers",
      new FakeClock(START),
    );
    expect(status).toMatchObject({ disruptionsAllowed: 0, observedGeneration: 3 });
    expect(status.conditions?.[0]).toMatchObject({
      status: "False",
      reason: "SyncFailed",
      message: "found no controllers",
    });
  });
});
