/** rbac.authorization.k8s.io/v1 Roles (`pkg/apis/rbac/validation/validation.go`): names are path segments; rules: verbs, api groups and resources required, no non-resource URLs. */
import type { KindStrategy } from "./kind-strategy.js";
import { validatePolicyRules } from "./rbac-rules.js";

/** The Role strategy. */
export const roleStrategy: KindStrategy = {
  policy: { nameRule: "path-segment" },
  validateCreate: (obj) => validatePolicyRules(obj, true),
  validateUpdate: (next) => validatePolicyRules(next, true),
};
