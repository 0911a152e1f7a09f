/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies (`pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go`): generation tracked. */
import type { KindStrategy } from "./kind-strategy.js";

/** The ValidatingAdmissionPolicy strategy. */
export const validatingAdmissionPolicyStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
};
