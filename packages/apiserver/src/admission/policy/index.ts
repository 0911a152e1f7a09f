/**
 * ValidatingAdmissionPolicy enforcement (admissionregistration.k8s.io/v1): the admission plugin
 * the chain registers, and what the policy kinds and the type-checking controller share.
 */
export {
  BINDING_STORAGE_ID,
  createValidatingAdmissionPolicyPlugin,
  POLICY_STORAGE_ID,
} from "./validating-admission-policy-plugin.js";
