/**
 * The RBAC authorizer (`--authorization-mode=RBAC`), as kube's
 * `plugin/pkg/auth/authorizer/rbac/rbac.go`, behind kube-apiserver's privileged-group
 * authorizer (`system:masters` may do everything, whatever the stored policy says).
 */
import type { JsonObject } from "kubekit";
import type { UserInfo } from "../auth/authentication.js";
import type { Storage } from "../storage/storage.js";
import type { AuthorizationAttributes } from "./authorization-attributes.js";
import type { AuthorizationDecision, Authorizer, SubjectRules } from "./authorizer.js";
import { ruleAllows, type PolicyRule } from "./policy-rule-matching.js";
import { RbacRuleResolver } from "./rbac-rule-resolver.js";

/** The group whose members every request is allowed (kube's `user.SystemPrivilegedGroup`). */
export const SYSTEM_MASTERS_GROUP = "system:masters";

/**
 * Creates the RBAC authorizer over `storage`'s Roles, ClusterRoles and bindings.
 *
 * Decisions: a member of `system:masters` is allowed (reason ""); otherwise the first rule of
 * a binding that applies allows, with kube's reason `RBAC: allowed by ClusterRoleBinding "b"
 * of ClusterRole "r" to User "u"`; no rule denies, with reason `RBAC: <errors>` when bindings
 * named missing roles and "" otherwise.
 */
export function createRbacAuthorizer(storage: Storage): Authorizer {
  const resolver = new RbacRuleResolver(storage);
  return {
    mode: "RBAC",
    authorize(attributes: AuthorizationAttributes): AuthorizationDecision {
      if (attributes.user.groups.includes(SYSTEM_MASTERS_GROUP))
        return { allowed: true, reason: "" };
      let allowedBy: string | undefined;
      const errors = resolver.visitRulesFor(
        attributes.user,
        attributes.namespace,
        (source, rule) => {
          if (!ruleAllows(attributes, rule)) return true;
          allowedBy = source;
          return false;
        },
      );
      if (allowedBy !== undefined)
        return { allowed: true, reason: `RBAC: allowed by ${allowedBy}` };
      return { allowed: false, reason: errors.length === 0 ? "" : `RBAC: ${goAggregate(errors)}` };
    },
    rulesFor(user: UserInfo, namespace: string): SubjectRules {
      const rules: PolicyRule[] = [];
      const errors = resolver.visitRulesFor(user, namespace, (_source, rule) => {
        rules.push(rule);
        return true;
      });
      return {
        resourceRules: rules
          .filter((r) => (r.resources ?? []).length > 0)
          .map((r): JsonObject => ({
            verbs: [...(r.verbs ?? [])],
            apiGroups: [...(r.apiGroups ?? [])],
            resources: [...(r.resources ?? [])],
            ...((r.resourceNames ?? []).length > 0
              ? { resourceNames: [...(r.resourceNames ?? [])] }
              : {}),
          })),
        nonResourceRules: rules
          .filter((r) => (r.nonResourceURLs ?? []).length > 0)
          .map((r): JsonObject => ({
            verbs: [...(r.verbs ?? [])],
            nonResourceURLs: [...(r.nonResourceURLs ?? [])],
          })),
        incomplete: false,
        ...(errors.length === 0 ? {} : { evaluationError: goAggregate(errors) }),
      };
    },
  };
}

/** Go's `utilerrors.NewAggregate(errs).Error()`: one message alone, several in brackets. */
export function goAggregate(messages: readonly string[]): string {
  return messages.length === 1 ? (messages[0] as string) : `[${messages.join(", ")}]`;
}
