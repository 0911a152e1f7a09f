import { describe, expect, it } from "vitest";
import { selfSubjectReviewStrategy } from "../../../../packages/apiserver/src/kinds/self-subject-review.js";
import { strategyFor } from "../../../../packages/apiserver/src/kinds/strategies.js";
import { definedHooks } from "./kind-test-helpers.js";

/** authentication.k8s.io/v1 SelfSubjectReview: create-only, nothing stored (answered over HTTP). */

describe("SelfSubjectReview", () => {
  it("is the strategy of selfsubjectreviews, with no hooks: its virtual create answers", () => {
    expect(strategyFor({ group: "authentication.k8s.io", plural: "selfsubjectreviews" })).toBe(
      selfSubjectReviewStrategy,
    );
    expect(definedHooks(selfSubjectReviewStrategy)).toEqual([]);
    expect(selfSubjectReviewStrategy.policy).toBeUndefined();
  });
});
