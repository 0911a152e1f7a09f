import { describe, expect, it } from "vitest";
import { validatingAdmissionPolicyStrategy } from "../../../../packages/apiserver/src/kinds/validating-admission-policy.js";
import { definedHooks } from "./kind-test-helpers.js";

/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies
 * (`pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go`).
 */

describe("ValidatingAdmissionPolicy", () => {
  it("tracks generation and has no write hooks", () => {
    expect(validatingAdmissionPolicyStrategy.policy).toEqual({ tracksGeneration: true });
    expect(definedHooks(validatingAdmissionPolicyStrategy)).toEqual([]);
  });
});
