/**
 * authorization.k8s.io/v1 SelfSubjectAccessReview, SubjectAccessReview and
 * LocalSubjectAccessReview (`kubectl auth can-i`): create-only, nothing stored. The embedded
 * server has no authorizer, so every review is allowed, as under kube-apiserver's
 * `--authorization-mode=AlwaysAllow`; malformed specs get kube-apiserver's 422
 * (`pkg/apis/authorization/validation/validation.go`).
 *
 * @kind SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview
 * @defaults status allowed, with a reason; create-only, nothing stored
 * @validation exactly one of spec.resourceAttributes and spec.nonResourceAttributes; metadata
 * empty (LocalSubjectAccessReview: but the namespace); SubjectAccessReview and
 * LocalSubjectAccessReview: spec.user or spec.groups; LocalSubjectAccessReview:
 * resourceAttributes.namespace equal to the review's, no nonResourceAttributes
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import { fieldInvalid, isJsonObject, metadataOf } from "kubekit/apimachinery";
import type { KindStrategy } from "./kind-strategy.js";

/** Go prints a nil pointer's bad value as the string "null" (field.Error.ErrorBody). */
const NIL_POINTER = "null";

function specOf(review: JsonObject): JsonObject {
  const spec = review["spec"];
  return isJsonObject(spec) ? spec : {};
}

/** Whether a decoded value is Go's zero value (Semantic.DeepEqual: empty equals nil). */
function isZero(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null || value === "" || value === 0 || value === false)
    return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isJsonObject(value)) return Object.values(value).every(isZero);
  return false;
}

/**
 * `spec.resourceAttributes` and `spec.nonResourceAttributes`: exactly one of them
 * (ValidateSelfSubjectAccessReviewSpec); `subject` adds the user-or-groups rule of
 * ValidateSubjectAccessReviewSpec.
 */
function specErrors(spec: JsonObject, subject: boolean): FieldError[] {
  const resource = spec["resourceAttributes"];
  const nonResource = spec["nonResourceAttributes"];
  const hasResource = resource !== undefined && resource !== null;
  const hasNonResource = nonResource !== undefined && nonResource !== null;
  const errors: FieldError[] = [];
  if (hasResource && hasNonResource) {
    errors.push(
      fieldInvalid(
        "spec.nonResourceAttributes",
        nonResource,
        "cannot be specified in combination with resourceAttributes",
      ),
    );
  }
  if (!hasResource && !hasNonResource) {
    errors.push(
      fieldInvalid(
        "spec.resourceAttributes",
        NIL_POINTER,
        "exactly one of nonResourceAttributes or resourceAttributes must be specified",
      ),
    );
  }
  if (subject) {
    const user = typeof spec["user"] === "string" ? spec["user"] : "";
    if (user === "" && isZero(spec["groups"])) {
      errors.push(
        fieldInvalid("spec.user", user, "at least one of user or group must be specified"),
      );
    }
  }
  return errors;
}

/**
 * metadata must be empty apart from managedFields (the create handler's field manager sets
 * them) and the `allowed` keys.
 */
function metadataErrors(
  review: JsonObject,
  allowed: readonly string[],
  detail: string,
): FieldError[] {
  const meta = metadataOf(review) ?? {};
  const ignored = new Set(["managedFields", ...allowed]);
  const rest = Object.entries(meta).filter(([key]) => !ignored.has(key));
  return rest.every(([, value]) => isZero(value)) ? [] : [fieldInvalid("metadata", meta, detail)];
}

/** LocalSubjectAccessReview's extra rules (ValidateLocalSubjectAccessReview). */
function localErrors(review: JsonObject): FieldError[] {
  const spec = specOf(review);
  const errors = metadataErrors(review, ["namespace"], "must be empty except for namespace");
  const attributes = spec["resourceAttributes"];
  if (isJsonObject(attributes)) {
    const namespace = typeof attributes["namespace"] === "string" ? attributes["namespace"] : "";
    if (namespace !== metadataOf(review)?.["namespace"]) {
      errors.push(
        fieldInvalid(
          "spec.resourceAttributes.namespace",
          namespace,
          "must match metadata.namespace",
        ),
      );
    }
  }
  const nonResource = spec["nonResourceAttributes"];
  if (nonResource !== undefined && nonResource !== null) {
    errors.push(
      fieldInvalid("spec.nonResourceAttributes", nonResource, "disallowed on this kind of request"),
    );
  }
  return errors;
}

/** SelfSubjectAccessReview: may the requester do this? Always yes (the answer is the endpoint's). */
export const selfSubjectAccessReviewStrategy: KindStrategy = {
  validateCreate: (review) => [
    ...specErrors(specOf(review), false),
    ...metadataErrors(review, [], "must be empty"),
  ],
};

/** SubjectAccessReview: may `spec.user`/`spec.groups` do this, cluster-wide? Always yes. */
export const subjectAccessReviewStrategy: KindStrategy = {
  validateCreate: (review) => [
    ...specErrors(specOf(review), true),
    ...metadataErrors(review, [], "must be empty"),
  ],
};

/**
 * LocalSubjectAccessReview: the same, inside the request's namespace. Always yes. Validated
 * with the request's namespace already in `metadata.namespace`.
 */
export const localSubjectAccessReviewStrategy: KindStrategy = {
  validateCreate: (review) => [...specErrors(specOf(review), true), ...localErrors(review)],
};
