/**
 * authentication.k8s.io/v1 SelfSubjectReview (`kubectl auth whoami`): create-only, nothing
 * stored (`pkg/registry/authentication/selfsubjectreview/rest.go`).
 *
 * @kind SelfSubjectReview
 * @defaults the answer is the user the server authenticated the request as (a token's or client
 * certificate's user), or `system:anonymous` when the server has no authentication or the
 * request had no credential; create-only, nothing stored
 */
import type { KindStrategy } from "./kind-strategy.js";

/**
 * The SelfSubjectReview strategy: no rules on the object; the answer is built by its virtual
 * create (`endpoints/access-reviews.ts`).
 */
export const selfSubjectReviewStrategy: KindStrategy = {};
