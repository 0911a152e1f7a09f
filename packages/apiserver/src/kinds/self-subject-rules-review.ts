/**
 * authorization.k8s.io/v1 SelfSubjectRulesReview (`kubectl auth can-i --list`): create-only,
 * nothing stored (`pkg/registry/authorization/selfsubjectrulesreview/rest.go`). With no
 * authorizer the answer is AlwaysAllow's rules (`staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/builtin.go`):
 * every verb on every resource of every group, and every verb on every non-resource URL,
 * complete.
 */
import { isJsonObject } from "kubekit/apimachinery";
import { newBadRequest } from "kubekit";
import type { VerbRequest } from "../verb-request.js";
import type { KindStrategy } from "./kind-strategy.js";
import { readReview, sendReview } from "./review-request.js";

/**
 * Answers a SelfSubjectRulesReview: `spec.namespace` is required (400 `no namespace on
 * request`, as kube-apiserver words it); the response is a fresh object (the spec is not
 * echoed, as kube-apiserver's is not) holding the rules.
 */
async function createSelfSubjectRulesReview(request: VerbRequest): Promise<void> {
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

/** The SelfSubjectRulesReview strategy. */
export const selfSubjectRulesReviewStrategy: KindStrategy = {
  virtualCreate: createSelfSubjectRulesReview,
};
