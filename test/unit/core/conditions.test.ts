import { describe, expect, it } from "vitest";
import {
  type Condition,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from "kubekit";
import { FakeClock } from "kubekit/testing";

const T0 = Date.parse("2026-01-01T00:00:00Z");

describe("status conditions", () => {
  it("appends a new condition with lastTransitionTime from the clock unless given", () => {
    const clock = new FakeClock(T0 + 1500);
    const conditions: Condition[] = [];
    const ready = { type: "Ready", status: "False", reason: "Starting", message: "" };
    expect(setStatusCondition(conditions, ready, clock)).toBe(true);
    expect(conditions).toEqual([{ ...ready, lastTransitionTime: "2026-01-01T00:00:01Z" }]);
    const given = {
      type: "Synced",
      status: "True",
      reason: "Done",
      message: "ok",
      lastTransitionTime: "2025-12-31T00:00:00Z",
    };
    expect(setStatusCondition(conditions, given, clock)).toBe(true);
    expect(conditions[1]).toEqual(given);
  });

  it("changes lastTransitionTime only when the status changes", () => {
    const clock = new FakeClock(T0);
    const conditions: Condition[] = [];
    setStatusCondition(
      conditions,
      { type: "Ready", status: "False", reason: "A", message: "" },
      clock,
    );
    const first = conditions[0];
    clock.advance(60_000);
    // Same everything: no change, nothing replaced.
    expect(
      setStatusCondition(
        conditions,
        { type: "Ready", status: "False", reason: "A", message: "" },
        clock,
      ),
    ).toBe(false);
    expect(conditions[0]).toBe(first);
    // Reason, message and observedGeneration change without a transition.
    expect(
      setStatusCondition(
        conditions,
        { type: "Ready", status: "False", reason: "B", message: "m", observedGeneration: 3 },
        clock,
      ),
    ).toBe(true);
    expect(conditions[0]).toEqual({
      type: "Ready",
      status: "False",
      reason: "B",
      message: "m",
      observedGeneration: 3,
      lastTransitionTime: "2026-01-01T00:00:00Z",
    });
    expect(first).toEqual({
      type: "Ready",
      status: "False",
      reason: "A",
      message: "",
      lastTransitionTime: "2026-01-01T00:00:00Z",
    });
    // A status change moves the time.
    clock.advance(60_000);
    expect(
      setStatusCondition(
        conditions,
        { type: "Ready", status: "True", reason: "B", message: "m", observedGeneration: 3 },
        clock,
      ),
    ).toBe(true);
    expect(conditions[0]?.lastTransitionTime).toBe("2026-01-01T00:02:00Z");
    // A given time is used on a transition.
    setStatusCondition(
      conditions,
      {
        type: "Ready",
        status: "Unknown",
        reason: "B",
        message: "m",
        observedGeneration: 3,
        lastTransitionTime: "2026-02-01T00:00:00Z",
      },
      clock,
    );
    expect(conditions[0]?.lastTransitionTime).toBe("2026-02-01T00:00:00Z");
    // An absent observedGeneration is 0: dropping it is a change, 0 against absent is not.
    expect(
      setStatusCondition(
        conditions,
        { type: "Ready", status: "Unknown", reason: "B", message: "m" },
        clock,
      ),
    ).toBe(true);
    expect(conditions[0]).not.toHaveProperty("observedGeneration");
    expect(
      setStatusCondition(
        conditions,
        { type: "Ready", status: "Unknown", reason: "B", message: "m", observedGeneration: 0 },
        clock,
      ),
    ).toBe(false);
    expect(conditions).toHaveLength(1);
  });

  it("finds, tests and removes conditions by type", () => {
    const clock = new FakeClock(T0);
    const conditions: Condition[] = [];
    setStatusCondition(
      conditions,
      { type: "Ready", status: "True", reason: "Up", message: "" },
      clock,
    );
    setStatusCondition(
      conditions,
      { type: "Degraded", status: "False", reason: "Fine", message: "" },
      clock,
    );
    expect(findStatusCondition(conditions, "Degraded")?.reason).toBe("Fine");
    expect(findStatusCondition(conditions, "Missing")).toBeUndefined();
    expect(findStatusCondition(undefined, "Ready")).toBeUndefined();
    expect(isStatusConditionTrue(conditions, "Ready")).toBe(true);
    expect(isStatusConditionFalse(conditions, "Ready")).toBe(false);
    expect(isStatusConditionFalse(conditions, "Degraded")).toBe(true);
    expect(isStatusConditionTrue(conditions, "Missing")).toBe(false);
    expect(isStatusConditionFalse(undefined, "Missing")).toBe(false);
    expect(isStatusConditionPresentAndEqual(conditions, "Ready", "Unknown")).toBe(false);
    const array = conditions;
    expect(removeStatusCondition(conditions, "Ready")).toBe(true);
    expect(conditions).toBe(array);
    expect(conditions.map((c) => c.type)).toEqual(["Degraded"]);
    expect(removeStatusCondition(conditions, "Ready")).toBe(false);
    expect(removeStatusCondition([], "Ready")).toBe(false);
  });
});
