/**
 * TokenReview (authentication.k8s.io/v1, create-only): reviews `spec.token` as kube's
 * `pkg/registry/authentication/tokenreview/storage.go` does, through the server's bearer
 * token authenticators (static tokens, service-account tokens) for `spec.audiences` (default
 * the API audiences). The answer echoes the review with `status.authenticated`, `user`,
 * `audiences` or `error`. A server without authentication still reviews service-account
 * tokens.
 */
import { newBadRequest, type JsonObject } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import { reviewToken } from "../auth/authentication.js";
import { defaultAccessControl } from "../authorization/access-control.js";
import { userInfoObject } from "./access-reviews.js";
import { readReview, reviewManagedFields, sendReview } from "./review-request.js";
import type { VerbRequest } from "./verb-request.js";

/** Answers a TokenReview: 400 without a token (kube's message), else the review's status. */
export async function createTokenReview(request: VerbRequest): Promise<void> {
  const read = await readReview(request);
  const { review } = read;
  const spec = isJsonObject(review["spec"]) ? review["spec"] : {};
  const token = typeof spec["token"] === "string" ? spec["token"] : "";
  if (token === "") throw newBadRequest("token is required for TokenReview in authentication");
  const { ctx } = request;
  const access = ctx.access ?? defaultAccessControl(ctx);
  const asked = Array.isArray(spec["audiences"])
    ? spec["audiences"].filter((a): a is string => typeof a === "string")
    : [];
  const outcome = reviewToken(
    token,
    access.authentication ?? { serviceAccountTokens: access.serviceAccountTokens },
    access.serviceAccountTokens.apiAudiences,
    asked.length > 0 ? asked : undefined,
  );
  // authentication/v1 TokenReviewStatus: `user` is a struct (always written), the rest omitempty.
  const status: JsonObject = outcome.authenticated
    ? {
        authenticated: true,
        user: userInfoObject(outcome.user),
        audiences: [...outcome.audiences],
      }
    : { user: {}, error: outcome.error };
  sendReview(request, read, {
    ...review,
    metadata: { creationTimestamp: null, managedFields: reviewManagedFields(request, read) },
    spec,
    status,
  });
}
