import { describe, expect, it } from "vitest";
import { genericStrategy } from "../../../../packages/apiserver/src/kinds/generic.js";
import { definedHooks } from "./kind-test-helpers.js";

/** The strategy of every resource without rules of its own, custom resources included. */

describe("genericStrategy", () => {
  it("adds nothing to the generic path: no hooks, the store's default policy and table", () => {
    expect(definedHooks(genericStrategy)).toEqual([]);
    expect(genericStrategy.policy).toBeUndefined();
    expect(genericStrategy.printer).toBeUndefined();
  });
});
