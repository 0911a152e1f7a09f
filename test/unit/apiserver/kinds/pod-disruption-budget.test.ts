import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { podDisruptionBudgetStrategy } from "../../../../packages/apiserver/src/kinds/pod-disruption-budget.js";
import { hooksOf, messages, withoutValues } from "./kind-test-helpers.js";

/** policy/v1 PodDisruptionBudgets (`pkg/apis/policy/validation/validation.go` ValidatePodDisruptionBudgetSpec). */

const pdb = hooksOf(podDisruptionBudgetStrategy);

function pdbWith(spec: JsonObject): JsonObject {
  return {
    metadata: { name: "web", namespace: "default" },
    spec: { selector: { matchLabels: { app: "web" } }, ...spec },
  };
}

describe("PodDisruptionBudget", () => {
  it("accepts an integer or a percentage, and a supported eviction policy", () => {
    expect(pdb.validateCreate(pdbWith({ minAvailable: 2 }))).toEqual([]);
    expect(
      pdb.validateCreate(
        pdbWith({ maxUnavailable: "100%", unhealthyPodEvictionPolicy: "AlwaysAllow" }),
      ),
    ).toEqual([]);
  });

  it("rejects both bounds together, at `spec`", () => {
    expect(
      withoutValues(pdb.validateCreate(pdbWith({ minAvailable: 1, maxUnavailable: 1 }))),
    ).toEqual([
      {
        type: "FieldValueInvalid",
        field: "spec",
        detail: "minAvailable and maxUnavailable cannot be both set",
      },
    ]);
  });

  it("rejects negative numbers, percentages above 100% and non-percent strings", () => {
    expect(messages(pdb.validateCreate(pdbWith({ minAvailable: -1 })))).toEqual([
      "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0",
    ]);
    expect(messages(pdb.validateCreate(pdbWith({ maxUnavailable: "150%" })))).toEqual([
      'spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
    ]);
    expect(messages(pdb.validateCreate(pdbWith({ minAvailable: "half" })))).toEqual([
      "spec.minAvailable: Invalid value: \"half\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    ]);
  });

  it("checks unhealthyPodEvictionPolicy, on update too: the spec may change", () => {
    const bad = pdbWith({ unhealthyPodEvictionPolicy: "Never" });
    const expected = [
      'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
    ];
    expect(messages(pdb.validateCreate(bad))).toEqual(expected);
    expect(messages(pdb.validateUpdate(bad, pdbWith({})))).toEqual(expected);
    expect(pdb.validateUpdate(pdbWith({ minAvailable: 3 }), pdbWith({ minAvailable: 1 }))).toEqual(
      [],
    );
  });

  it("tracks generation and names are path segments", () => {
    expect(podDisruptionBudgetStrategy.policy).toEqual({
      tracksGeneration: true,
      nameRule: "path-segment",
    });
  });
});
