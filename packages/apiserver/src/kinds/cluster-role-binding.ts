/**
 * rbac.authorization.k8s.io/v1 ClusterRoleBindings (`pkg/apis/rbac/validation/validation.go`
 * ValidateClusterRoleBinding, ValidateClusterRoleBindingUpdate; shared with RoleBindings in
 * `rbac-rules.ts`).
 *
 * @kind ClusterRoleBinding
 * @validation name a path segment; roleRef group rbac.authorization.k8s.io, kind ClusterRole,
 * name required; subjects as RoleBinding, ServiceAccounts with a namespace
 * @update same checks; roleRef immutable
 */
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
