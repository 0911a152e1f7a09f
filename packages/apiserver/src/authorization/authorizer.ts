/**
 * The authorizer contract of the embedded server, as kube-apiserver's `authorizer.Authorizer`
 * and `authorizer.RuleResolver` (`staging/src/k8s.io/apiserver/pkg/authorization/authorizer/interfaces.go`).
 */
import type { JsonObject } from "kubekit";
import type { UserInfo } from "../auth/authentication.js";
import type { AuthorizationAttributes } from "./authorization-attributes.js";

/**
 * The authorization modes of `ApiServer.start({ authorization })` and
 * `kubekit serve --authorization`, named as kube-apiserver's `--authorization-mode` values.
 */
export type AuthorizationMode = "AlwaysAllow" | "RBAC";

/** The authorization modes, in the order help texts list them. */
export const AUTHORIZATION_MODES: readonly AuthorizationMode[] = Object.freeze([
  "AlwaysAllow",
  "RBAC",
]);

/**
 * An authorizer's answer. kube's three decisions collapse to two here: a request is allowed,
 * or it is not (no opinion and deny both end in 403). `reason` is what SubjectAccessReviews
 * report and, when not empty, what a 403 appends.
 */
export interface AuthorizationDecision {
  readonly allowed: boolean;
  readonly reason: string;
}

/** The rules that apply to a user in a namespace, as a SelfSubjectRulesReview reports them. */
export interface SubjectRules {
  /** authorization/v1 ResourceRule objects: verbs, apiGroups, resources, resourceNames. */
  readonly resourceRules: readonly JsonObject[];
  /** authorization/v1 NonResourceRule objects: verbs, nonResourceURLs. */
  readonly nonResourceRules: readonly JsonObject[];
  /** Whether the list may be missing rules (an authorizer that cannot enumerate them). */
  readonly incomplete: boolean;
  /** Why some rules could not be read, when some could not (kube's evaluationError). */
  readonly evaluationError?: string;
}

/** Decides requests, and lists the rules that apply to a user. */
export interface Authorizer {
  /** The authorization mode this authorizer implements. */
  readonly mode: AuthorizationMode;
  /** Decides one request; never throws. */
  authorize(attributes: AuthorizationAttributes): AuthorizationDecision;
  /** The rules `user` has in `namespace` (cluster-wide rules included). */
  rulesFor(user: UserInfo, namespace: string): SubjectRules;
}
