import { describe, expect, it } from "vitest";
import { serviceCidrStrategy } from "../../../../packages/apiserver/src/kinds/service-cidr.js";
import { definedHooks } from "./kind-test-helpers.js";

/** networking.k8s.io/v1 ServiceCIDRs (`pkg/registry/networking/servicecidr/strategy.go`). */

describe("ServiceCIDR", () => {
  it("tracks generation and has no write hooks", () => {
    expect(serviceCidrStrategy.policy).toEqual({ tracksGeneration: true });
    expect(definedHooks(serviceCidrStrategy)).toEqual([]);
  });
});
