/**
 * rbac.authorization.k8s.io/v1 RoleBindings (`pkg/apis/rbac/validation/validation.go`
 * ValidateRoleBinding, ValidateRoleBindingUpdate; shared with ClusterRoleBindings in
 * `rbac-rules.ts`).
 *
 * @kind RoleBinding
 * @validation name a path segment; roleRef group rbac.authorization.k8s.io, kind Role or
 * ClusterRole, name required; subjects: name required, kind ServiceAccount (api group "") or
 * User / Group (api group rbac.authorization.k8s.io)
 * @update same checks; roleRef immutable
 */
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
