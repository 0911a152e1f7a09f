/**
 * authentication.k8s.io/v1 SelfSubjectReview (`kubectl auth whoami`): create-only, nothing
 * stored (`pkg/registry/authentication/selfsubjectreview/rest.go`). The answer is the user the
 * server authenticated the request as: a token's or client certificate's user, or
 * `system:anonymous` when the server has no authentication or the request had no credential.
 */
import type { JsonObject } from "kubekit";
import { formatTime } from "kubekit/apimachinery";
import type { VerbRequest } from "../verb-request.js";
import type { KindStrategy } from "./kind-strategy.js";
import { readReview, sendReview } from "./review-request.js";

/** Answers with a fresh SelfSubjectReview created now, `status.userInfo` the requester. */
async function createSelfSubjectReview(request: VerbRequest): Promise<void> {
  const read = await readReview(request);
  const { user } = request;
  // authentication/v1 UserInfo: every field omitted when empty.
  const userInfo: JsonObject = {
    ...(user.name === "" ? {} : { username: user.name }),
    ...(user.uid === undefined || user.uid === "" ? {} : { uid: user.uid }),
    ...(user.groups.length === 0 ? {} : { groups: [...user.groups] }),
  };
  sendReview(request, read, {
    metadata: { creationTimestamp: formatTime(request.ctx.clock.now()) },
    status: { userInfo },
  });
}

/** The SelfSubjectReview strategy. */
export const selfSubjectReviewStrategy: KindStrategy = {
  virtualCreate: createSelfSubjectReview,
};
