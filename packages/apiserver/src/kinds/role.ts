/**
 * rbac.authorization.k8s.io/v1 Roles (`pkg/apis/rbac/validation/validation.go` ValidateRole; the
 * rules shared with ClusterRoles in `rbac-rules.ts`).
 *
 * @kind Role
 * @validation name a path segment; rules: verbs, api groups and resources required, no
 * non-resource URLs
 * @update same checks
 */
import type { KindStrategy } from "./kind-strategy.js";
import { validatePolicyRules } from "./rbac-rules.js";

/** The Role strategy. */
export const roleStrategy: KindStrategy = {
  policy: { nameRule: "path-segment" },
  validateCreate: (obj) => validatePolicyRules(obj, true),
  validateUpdate: (next) => validatePolicyRules(next, true),
};
