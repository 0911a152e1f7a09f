import { describe, expect, it } from "vitest";
import { selfSubjectRulesReviewStrategy } from "../../../../packages/apiserver/src/kinds/self-subject-rules-review.js";
import { strategyFor } from "../../../../packages/apiserver/src/kinds/strategies.js";
import { definedHooks } from "./kind-test-helpers.js";

/** authorization.k8s.io/v1 SelfSubjectRulesReview: create-only, nothing stored (answered over HTTP). */

describe("SelfSubjectRulesReview", () => {
  it("is the strategy of selfsubjectrulesreviews, with no hooks: its virtual create answers", () => {
    expect(strategyFor({ group: "authorization.k8s.io", plural: "selfsubjectrulesreviews" })).toBe(
      selfSubjectRulesReviewStrategy,
    );
    expect(definedHooks(selfSubjectRulesReviewStrategy)).toEqual([]);
    expect(selfSubjectRulesReviewStrategy.policy).toBeUndefined();
  });
});
