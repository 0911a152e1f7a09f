/**
 * The virtual creates of the create-only review resources: the access reviews
 * (SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview), SelfSubjectRulesReview
 * and SelfSubjectReview. kube-apiserver serves them with `rest.Creater`s that store nothing
 * (`pkg/registry/authorization/*review/rest.go`,
 * `pkg/registry/authentication/selfsubjectreview/rest.go`) and answers them from its
 * authorizer: here the server's (AlwaysAllow by default, whose answers say so; RBAC when
 * started with `authorization: "RBAC"`). The rules on a review body are its kind's strategy
 * (`kinds/subject-access-review.ts`).
 */
import { newBadRequest, newInvalid, type JsonObject } from "kubekit";
import { formatTime, isJsonObject } from "kubekit/apimachinery";
import type { UserInfo } from "../auth/authentication.js";
import { defaultAccessControl } from "../authorization/access-control.js";
import {
  nonResourceAttributes,
  type AuthorizationAttributes,
} from "../authorization/authorization-attributes.js";
import { strategyFor } from "../kinds/strategies.js";
import { readReview, reviewManagedFields, sendReview } from "./review-request.js";
import type { VerbRequest } from "./verb-request.js";

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/**
 * The user a review asks about: the requester for a SelfSubjectAccessReview, the spec's user,
 * groups, uid and extra otherwise (as `pkg/registry/authorization/subjectaccessreview/rest.go`
 * reads them).
 */
function reviewedUser(request: VerbRequest, spec: JsonObject): UserInfo {
  if (request.entry.info.kind === "SelfSubjectAccessReview") return request.user;
  const extra: Record<string, string[]> = {};
  if (isJsonObject(spec["extra"]))
    for (const [key, values] of Object.entries(spec["extra"])) extra[key] = strings(values);
  const uid = text(spec["uid"]);
  return {
    name: text(spec["user"]),
    groups: strings(spec["groups"]),
    ...(uid === "" ? {} : { uid }),
    ...(Object.keys(extra).length === 0 ? {} : { extra }),
  };
}

/**
 * The attributes of a review's spec (`pkg/registry/authorization/util/helpers.go`
 * ResourceAttributesFrom / NonResourceAttributesFrom): an empty version means every version.
 */
function reviewAttributes(user: UserInfo, spec: JsonObject): AuthorizationAttributes {
  const resource = spec["resourceAttributes"];
  if (isJsonObject(resource)) {
    return {
      user,
      verb: text(resource["verb"]),
      resourceRequest: true,
      path: "",
      namespace: text(resource["namespace"]),
      apiGroup: text(resource["group"]),
      apiVersion: text(resource["version"]) || "*",
      resource: text(resource["resource"]),
      subresource: text(resource["subresource"]),
      name: text(resource["name"]),
    };
  }
  const nonResource = isJsonObject(spec["nonResourceAttributes"])
    ? spec["nonResourceAttributes"]
    : {};
  return nonResourceAttributes(user, text(nonResource["verb"]), text(nonResource["path"]));
}

/**
 * Answers an access review: its kind's validation (422 Invalid), then the review echoed
 * (namespace kept only for the namespaced LocalSubjectAccessReview) with the authorizer's
 * decision: `allowed`, and the `reason` when it gave one.
 */
export async function createAccessReview(request: VerbRequest): Promise<void> {
  const read = await readReview(request);
  const { review } = read;
  const { entry, ctx } = request;
  const errors = strategyFor(entry.info).validateCreate?.(review) ?? [];
  if (errors.length > 0) {
    throw newInvalid({ group: entry.info.group, kind: entry.info.kind }, "", errors);
  }
  const spec = isJsonObject(review["spec"]) ? review["spec"] : {};
  const authorizer = (ctx.access ?? defaultAccessControl(ctx)).authorizer;
  const decision = authorizer.authorize(reviewAttributes(reviewedUser(request, spec), spec));
  sendReview(request, read, {
    ...review,
    metadata: {
      ...(entry.info.namespaced ? { namespace: request.namespace } : {}),
      creationTimestamp: null,
      managedFields: reviewManagedFields(request, read),
    },
    spec,
    status: {
      allowed: decision.allowed,
      ...(decision.reason === "" ? {} : { reason: decision.reason }),
    },
  });
}

/**
 * Answers a SelfSubjectRulesReview: `spec.namespace` is required (400 `no namespace on
 * request`, as kube-apiserver words it); the response is a fresh object (the spec is not
 * echoed, as kube-apiserver's is not) holding the authorizer's rules for the requester in that
 * namespace (AlwaysAllow: every verb on everything, complete).
 */
export async function createSelfSubjectRulesReview(request: VerbRequest): Promise<void> {
  const read = await readReview(request);
  const spec = read.review["spec"];
  const namespace = isJsonObject(spec) ? spec["namespace"] : undefined;
  if (typeof namespace !== "string" || namespace === "") {
    throw newBadRequest("no namespace on request");
  }
  const { ctx } = request;
  const rules = (ctx.access ?? defaultAccessControl(ctx)).authorizer.rulesFor(
    request.user,
    namespace,
  );
  sendReview(request, read, {
    metadata: { creationTimestamp: null },
    spec: {},
    status: {
      resourceRules: [...rules.resourceRules],
      nonResourceRules: [...rules.nonResourceRules],
      incomplete: rules.incomplete,
      ...(rules.evaluationError === undefined ? {} : { evaluationError: rules.evaluationError }),
    },
  });
}

/** authentication/v1 UserInfo of a user: every field omitted when empty. */
export function userInfoObject(user: UserInfo): JsonObject {
  const extra = Object.entries(user.extra ?? {});
  return {
    ...(user.name === "" ? {} : { username: user.name }),
    ...(user.uid === undefined || user.uid === "" ? {} : { uid: user.uid }),
    ...(user.groups.length === 0 ? {} : { groups: [...user.groups] }),
    ...(extra.length === 0
      ? {}
      : { extra: Object.fromEntries(extra.map(([key, values]) => [key, [...values]])) }),
  };
}

/**
 * Answers a SelfSubjectReview (`kubectl auth whoami`) created now, `status.userInfo` the user
 * the server authenticated the request as (`system:anonymous` without a credential).
 */
export async function createSelfSubjectReview(request: VerbRequest): Promise<void> {
  const read = await readReview(request);
  sendReview(request, read, {
    metadata: { creationTimestamp: formatTime(request.ctx.clock.now()) },
    status: { userInfo: userInfoObject(request.user) },
  });
}
