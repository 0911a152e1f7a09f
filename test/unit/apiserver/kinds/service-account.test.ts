import { describe, expect, it } from "vitest";
import { serviceAccountStrategy } from "../../../../packages/apiserver/src/kinds/service-account.js";
import { definedHooks } from "./kind-test-helpers.js";

/** core/v1 ServiceAccounts: only the generic write rules, kube's columns. */

describe("ServiceAccount", () => {
  it("has no defaults or validation of its own: names are the generic DNS-1123 subdomains", () => {
    expect(definedHooks(serviceAccountStrategy)).toEqual([]);
    expect(serviceAccountStrategy.policy?.nameRule).toBeUndefined();
  });

  it("answers DELETE with the object and prints kube's columns", () => {
    expect(serviceAccountStrategy.policy).toEqual({ deleteReturnsObject: true });
    expect(serviceAccountStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Secrets",
      "Age",
    ]);
  });
});
