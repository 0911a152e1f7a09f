/** rbac.authorization.k8s.io/v1 ClusterRoleBindings (`pkg/apis/rbac/validation/validation.go`): names are path segments; roleRef to a ClusterRole, valid subjects (ServiceAccounts with a namespace), roleRef immutable. */
import type { KindStrategy } from "./kind-strategy.js";
import { validateBinding, validateRoleRefUnchanged } from "./rbac-rules.js";

/** The ClusterRoleBinding strategy. */
export const clusterRoleBindingStrategy: KindStrategy = {
  policy: { nameRule: "path-segment" },
  validateCreate: (obj) => validateBinding(obj, ["ClusterRole"], true),
  validateUpdate: (next, old) => [
    ...validateBinding(next, ["ClusterRole"], true),
    ...validateRoleRefUnchanged(next, old),
  ],
};
