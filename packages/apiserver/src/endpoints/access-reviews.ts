/**
 * The virtual creates of the create-only review resources: the access reviews
 * (SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview), SelfSubjectRulesReview
 * and SelfSubjectReview. kube-apiserver serves them with `rest.Creater`s that store nothing
 * (`pkg/registry/authorization/*review/rest.go`,
 * `pkg/registry/authentication/selfsubjectreview/rest.go`); the embedded server has no
 * authorizer, so every answer is AlwaysAllow's
 * (`staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go`). The rules
 * on a review body are its kind's strategy (`kinds/subject-access-review.ts`).
 */
import { newBadRequest, newInvalid, type JsonObject } from "kubekit";
import { formatTime, isJsonObject } from "kubekit/apimachinery";
import { strategyFor } from "../kinds/strategies.js";
import { readReview, reviewManagedFields, sendReview } from "./review-request.js";
import type { VerbRequest } from "./verb-request.js";

/**
 * The status of every access review: allowed, with a reason saying why (kube's AlwaysAllow
 * authorizer gives none; kubectl prints the reason only for a denial).
 */
export const ALWAYS_ALLOWED_STATUS: JsonObject = Object.freeze({
  allowed: true,
  reason: "kubekit: no authorization is enforced, every request is allowed",
});

/**
 * Answers an access review: its kind's validation (422 Invalid), then the review echoed
 * (namespace kept only for the namespaced LocalSubjectAccessReview), allowed.
 */
export async function createAccessReview(request: VerbRequest): Promise<void> {
  const read = await readReview(request);
  const { review } = read;
  const { entry } = request;
  const errors = strategyFor(entry.info).validateCreate?.(review) ?? [];
  if (errors.length > 0) {
    throw newInvalid({ group: entry.info.group, kind: entry.info.kind }, "", errors);
  }
  const spec = isJsonObject(review["spec"]) ? review["spec"] : {};
  sendReview(request, read, {
    ...review,
    metadata: {
      ...(entry.info.namespaced ? { namespace: request.namespace } : {}),
      creationTimestamp: null,
      managedFields: reviewManagedFields(request, read),
    },
    spec,
    status: ALWAYS_ALLOWED_STATUS,
  });
}

/**
 * Answers a SelfSubjectRulesReview: `spec.namespace` is required (400 `no namespace on
 * request`, as kube-apiserver words it); the response is a fresh object (the spec is not
 * echoed, as kube-apiserver's is not) holding AlwaysAllow's rules: every verb on every
 * resource of every group, and every verb on every non-resource URL, complete.
 */
export async function createSelfSubjectRulesReview(request: VerbRequest): Promise<void> {
  const read = await readReview(request);
  const spec = read.review["spec"];
  const namespace = isJsonObject(spec) ? spec["namespace"] : undefined;
  if (typeof namespace !== "string" || namespace === "") {
    throw newBadRequest("no namespace on request");
  }
  sendReview(request, read, {
    metadata: { creationTimestamp: null },
    spec: {},
    status: {
      resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
      nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      incomplete: false,
    },
  });
}

/**
 * Answers a SelfSubjectReview (`kubectl auth whoami`) created now, `status.userInfo` the user
 * the server authenticated the request as (`system:anonymous` without a credential).
 */
export async function createSelfSubjectReview(request: VerbRequest): Promise<void> {
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
