/** rbac.authorization.k8s.io/v1 RoleBindings (`pkg/apis/rbac/validation/validation.go`): names are path segments; roleRef to a Role or ClusterRole, valid subjects, roleRef immutable. */
import type { KindStrategy } from "./kind-strategy.js";
import { validateBinding, validateRoleRefUnchanged } from "./rbac-rules.js";

/** The RoleBinding strategy. */
export const roleBindingStrategy: KindStrategy = {
  policy: { nameRule: "path-segment" },
  validateCreate: (obj) => validateBinding(obj, ["Role", "ClusterRole"], false),
  validateUpdate: (next, old) => [
    ...validateBinding(next, ["Role", "ClusterRole"], false),
    ...validateRoleRefUnchanged(next, old),
  ],
};
