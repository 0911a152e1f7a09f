/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies
 * (`pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go`); the policies are
 * stored, not enforced.
 *
 * @kind ValidatingAdmissionPolicy
 * @update metadata.generation bumped on spec changes
 */
import type { KindStrategy } from "./kind-strategy.js";

/** The ValidatingAdmissionPolicy strategy. */
export const validatingAdmissionPolicyStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
};
