import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { strategyFor } from "../../../../packages/apiserver/src/kinds/strategies.js";
import {
  localSubjectAccessReviewStrategy,
  selfSubjectAccessReviewStrategy,
  subjectAccessReviewStrategy,
} from "../../../../packages/apiserver/src/kinds/subject-access-review.js";
import { definedHooks, hooksOf, messages, withoutValues } from "./kind-test-helpers.js";

/**
 * The access reviews' request rules (`pkg/apis/authorization/validation/validation.go`:
 * ValidateSelfSubjectAccessReview, ValidateSubjectAccessReview,
 * ValidateLocalSubjectAccessReview). The answer (always allowed) is the endpoint's.
 */

const self = hooksOf(selfSubjectAccessReviewStrategy);
const subject = hooksOf(subjectAccessReviewStrategy);
const local = hooksOf(localSubjectAccessReviewStrategy);

const RESOURCE = { verb: "get", resource: "pods", namespace: "team" };
const EXACTLY_ONE =
  'spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified';

function review(spec: JsonObject, metadata: JsonObject = {}): JsonObject {
  return { apiVersion: "authorization.k8s.io/v1", metadata, spec };
}

describe("access review strategies", () => {
  it("are the strategies of their resources, validating creates only", () => {
    const group = "authorization.k8s.io";
    expect(strategyFor({ group, plural: "selfsubjectaccessreviews" })).toBe(
      selfSubjectAccessReviewStrategy,
    );
    expect(strategyFor({ group, plural: "subjectaccessreviews" })).toBe(
      subjectAccessReviewStrategy,
    );
    expect(strategyFor({ group, plural: "localsubjectaccessreviews" })).toBe(
      localSubjectAccessReviewStrategy,
    );
    for (const strategy of [
      selfSubjectAccessReviewStrategy,
      subjectAccessReviewStrategy,
      localSubjectAccessReviewStrategy,
    ])
      expect(definedHooks(strategy)).toEqual(["validateCreate"]);
  });
});

describe("SelfSubjectAccessReview", () => {
  it("accepts resource or non-resource attributes, and managedFields in metadata", () => {
    expect(self.validateCreate(review({ resourceAttributes: RESOURCE }))).toEqual([]);
    expect(
      self.validateCreate(
        review(
          { nonResourceAttributes: { verb: "get", path: "/healthz" } },
          { managedFields: [{ manager: "kubectl" }] },
        ),
      ),
    ).toEqual([]);
  });

  it("requires exactly one kind of attributes", () => {
    expect(messages(self.validateCreate(review({})))).toEqual([EXACTLY_ONE]);
    expect(
      messages(
        self.validateCreate(
          review({ resourceAttributes: RESOURCE, nonResourceAttributes: { path: "/" } }),
        ),
      ),
    ).toEqual([
      'spec.nonResourceAttributes: Invalid value: {"path":"/"}: cannot be specified in combination with resourceAttributes',
    ]);
  });

  it("requires empty metadata", () => {
    expect(
      withoutValues(self.validateCreate(review({ resourceAttributes: RESOURCE }, { name: "x" }))),
    ).toEqual([{ type: "FieldValueInvalid", field: "metadata", detail: "must be empty" }]);
  });
});

describe("SubjectAccessReview", () => {
  it("requires a user or groups", () => {
    expect(subject.validateCreate(review({ resourceAttributes: RESOURCE, user: "alice" }))).toEqual(
      [],
    );
    expect(
      subject.validateCreate(review({ resourceAttributes: RESOURCE, groups: ["devs"] })),
    ).toEqual([]);
    expect(
      messages(subject.validateCreate(review({ resourceAttributes: RESOURCE, groups: [] }))),
    ).toEqual(['spec.user: Invalid value: "": at least one of user or group must be specified']);
  });
});

describe("LocalSubjectAccessReview", () => {
  it("allows the namespace in metadata and requires the attributes to name it", () => {
    expect(
      local.validateCreate(
        review({ resourceAttributes: RESOURCE, user: "alice" }, { namespace: "team" }),
      ),
    ).toEqual([]);
    expect(
      messages(
        local.validateCreate(
          review(
            { resourceAttributes: { ...RESOURCE, namespace: "other" }, user: "alice" },
            { namespace: "team" },
          ),
        ),
      ),
    ).toEqual([
      'spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace',
    ]);
  });

  it("forbids non-resource attributes and other metadata", () => {
    const errors = local.validateCreate(
      review(
        { nonResourceAttributes: { path: "/" }, user: "alice" },
        { namespace: "team", labels: { a: "b" } },
      ),
    );
    expect(withoutValues(errors)).toEqual([
      {
        type: "FieldValueInvalid",
        field: "metadata",
        detail: "must be empty except for namespace",
      },
      {
        type: "FieldValueInvalid",
        field: "spec.nonResourceAttributes",
        detail: "disallowed on this kind of request",
      },
    ]);
  });
});
