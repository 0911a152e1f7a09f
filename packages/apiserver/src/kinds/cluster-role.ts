/**
 * rbac.authorization.k8s.io/v1 ClusterRoles (`pkg/apis/rbac/validation/validation.go`
 * ValidateClusterRole; the rules shared with Roles in `rbac-rules.ts`).
 *
 * @kind ClusterRole
 * @validation name a path segment; rules: verbs required, and api groups and resources, or
 * non-resource URLs (not both)
 * @update same checks
 */
import type { KindStrategy } from "./kind-strategy.js";
import { validatePolicyRules } from "./rbac-rules.js";

/** The ClusterRole strategy. */
export const clusterRoleStrategy: KindStrategy = {
  policy: { nameRule: "path-segment" },
  validateCreate: (obj) => validatePolicyRules(obj, false),
  validateUpdate: (next) => validatePolicyRules(next, false),
};
