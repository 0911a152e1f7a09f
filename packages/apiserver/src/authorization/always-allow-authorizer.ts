/**
 * The default authorizer, kube's AlwaysAllow
 * (`staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go`), with one
 * rule of the embedded server's own for anonymous requests.
 *
 * The rule: when the server authenticates requests (`auth` configured) and anonymous access
 * was not asked for explicitly (`auth.anonymous: true`), an anonymous request is authorized
 * as a real cluster's RBAC bootstrap policy authorizes `system:anonymous`: only
 * `system:public-info-viewer`'s `GET /version`, `/healthz`, `/livez` and `/readyz`; anything
 * else is 403 Forbidden. A real kube-apiserver with `--anonymous-auth` and AlwaysAllow would
 * allow everything; every real cluster runs RBAC, and this is what its users see. Without
 * authentication configured, every request is anonymous and allowed.
 */
import type { UserInfo } from "../auth/authentication.js";
import type { AuthorizationAttributes } from "./authorization-attributes.js";
import type { AuthorizationDecision, Authorizer, SubjectRules } from "./authorizer.js";
import { PUBLIC_INFO_RULE } from "./bootstrap-policy.js";
import { ruleAllows } from "./policy-rule-matching.js";

/** The reason AlwaysAllow gives (kube's gives none; kubectl prints reasons only for denials). */
export const ALWAYS_ALLOW_REASON =
  "kubekit: no authorization is enforced, every request is allowed";

/** The group of anonymous requests. */
const UNAUTHENTICATED_GROUP = "system:unauthenticated";

/** What every user may do under AlwaysAllow. */
const EVERYTHING: SubjectRules = Object.freeze({
  resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
  nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
  incomplete: false,
});

/** What an anonymous user may do when anonymous requests are restricted. */
const PUBLIC_INFO: SubjectRules = Object.freeze({
  resourceRules: [],
  nonResourceRules: [
    {
      verbs: [...(PUBLIC_INFO_RULE.verbs ?? [])],
      nonResourceURLs: [...(PUBLIC_INFO_RULE.nonResourceURLs ?? [])],
    },
  ],
  incomplete: false,
});

/**
 * Creates the AlwaysAllow authorizer; `restrictAnonymous` applies the anonymous rule above.
 */
export function createAlwaysAllowAuthorizer(options: { restrictAnonymous: boolean }): Authorizer {
  const restricted = (user: UserInfo): boolean =>
    options.restrictAnonymous && user.groups.includes(UNAUTHENTICATED_GROUP);
  return {
    mode: "AlwaysAllow",
    authorize(attributes: AuthorizationAttributes): AuthorizationDecision {
      if (!restricted(attributes.user)) return { allowed: true, reason: ALWAYS_ALLOW_REASON };
      return { allowed: ruleAllows(attributes, PUBLIC_INFO_RULE), reason: "" };
    },
    rulesFor(user: UserInfo): SubjectRules {
      return restricted(user) ? PUBLIC_INFO : EVERYTHING;
    },
  };
}
