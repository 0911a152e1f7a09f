/** rbac.authorization.k8s.io/v1 ClusterRoles (`pkg/apis/rbac/validation/validation.go`): names are path segments; rules: verbs required, resources or non-resource URLs. */
import type { KindStrategy } from "./kind-strategy.js";
import { validatePolicyRules } from "./rbac-rules.js";

/** The ClusterRole strategy. */
export const clusterRoleStrategy: KindStrategy = {
  policy: { nameRule: "path-segment" },
  validateCreate: (obj) => validatePolicyRules(obj, false),
  validateUpdate: (next) => validatePolicyRules(next, false),
};
