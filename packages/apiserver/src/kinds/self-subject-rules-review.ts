/**
 * authorization.k8s.io/v1 SelfSubjectRulesReview (`kubectl auth can-i --list`): create-only,
 * nothing stored (`pkg/registry/authorization/selfsubjectrulesreview/rest.go`). With no
 * authorizer the answer is AlwaysAllow's rules
 * (`staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go`).
 *
 * @kind SelfSubjectRulesReview
 * @defaults answers every verb on every resource of every group and every non-resource URL,
 * complete; create-only, nothing stored
 * @validation spec.namespace required (400 `no namespace on request`)
 */
import type { KindStrategy } from "./kind-strategy.js";

/**
 * The SelfSubjectRulesReview strategy: no rules on the object; the namespace check and the
 * answer are its virtual create's (`endpoints/access-reviews.ts`).
 */
export const selfSubjectRulesReviewStrategy: KindStrategy = {};
