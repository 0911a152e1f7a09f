import { describe, expect, it } from "vitest";
import { isQualifiedName, isValidLabelValue } from "kubekit/apimachinery";
import {
  isConvertibleLabelSelector,
  validateLabelSelector,
} from "../../../../packages/apiserver/src/kinds/label-selector-validation.js";
import { frozen, messages } from "./kind-test-helpers.js";

/**
 * apimachinery's ValidateLabelSelector, ValidateLabelSelectorRequirement and ValidateLabels
 * (`staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go`).
 */

describe("validateLabelSelector", () => {
  it("accepts a missing selector and valid ones", () => {
    expect(validateLabelSelector(undefined, "spec.selector")).toEqual([]);
    expect(
      validateLabelSelector(
        frozen({
          matchLabels: { app: "web", "example.com/tier": "front" },
          matchExpressions: [
            { key: "env", operator: "In", values: ["prod", "staging"] },
            { key: "canary", operator: "DoesNotExist" },
          ],
        }),
        "spec.selector",
      ),
    ).toEqual([]);
  });

  it("reports bad matchLabels keys and values at `<path>.matchLabels`", () => {
    expect(
      messages(
        validateLabelSelector(
          frozen({ matchLabels: { "bad key": "bad value!" } }),
          "spec.selector",
        ),
      ),
    ).toEqual([
      ...isQualifiedName("bad key").map(
        (m) => `spec.selector.matchLabels: Invalid value: "bad key": ${m}`,
      ),
      ...isValidLabelValue("bad value!").map(
        (m) => `spec.selector.matchLabels: Invalid value: "bad value!": ${m}`,
      ),
    ]);
  });

  it("checks each requirement's operator, values and key", () => {
    expect(
      messages(
        validateLabelSelector(
          frozen({
            matchExpressions: [
              { key: "a", operator: "In", values: [] },
              { key: "b", operator: "Exists", values: ["x"] },
              { key: "c", operator: "Gt", values: ["1"] },
              { key: "", operator: "NotIn", values: ["-bad-"] },
            ],
          }),
          "spec.podSelector",
        ),
      ),
    ).toEqual([
      "spec.podSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.podSelector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.podSelector.matchExpressions[2].operator: Invalid value: "Gt": not a valid selector operator',
      ...isQualifiedName("").map(
        (m) => `spec.podSelector.matchExpressions[3].key: Invalid value: "": ${m}`,
      ),
      ...isValidLabelValue("-bad-").map(
        (m) => `spec.podSelector.matchExpressions[3].values[0]: Invalid value: "-bad-": ${m}`,
      ),
    ]);
  });

  it("skips the value format when invalid label values are allowed", () => {
    const selector = frozen({
      matchExpressions: [{ key: "a", operator: "In", values: ["-bad-"] }],
    });
    expect(validateLabelSelector(selector, "s", { allowInvalidLabelValues: true })).toEqual([]);
    expect(validateLabelSelector(selector, "s")).toHaveLength(1);
  });
});

describe("isConvertibleLabelSelector (metav1.LabelSelectorAsSelector)", () => {
  it("accepts what converts, a missing selector included", () => {
    expect(isConvertibleLabelSelector(undefined)).toBe(true);
    expect(isConvertibleLabelSelector(frozen({ matchLabels: { app: "web" } }))).toBe(true);
  });

  it("rejects what LabelSelectorAsSelector rejects", () => {
    expect(
      isConvertibleLabelSelector(
        frozen({ matchExpressions: [{ key: "a", operator: "In", values: [] }] }),
      ),
    ).toBe(false);
    expect(
      isConvertibleLabelSelector(
        frozen({ matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] }),
      ),
    ).toBe(false);
  });
});
