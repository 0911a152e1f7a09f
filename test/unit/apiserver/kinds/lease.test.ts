import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { leaseStrategy } from "../../../../packages/apiserver/src/kinds/lease.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/** coordination.k8s.io/v1 Leases (`pkg/apis/coordination/validation/validation.go` ValidateLeaseSpec). */

const lease = hooksOf(leaseStrategy);

function leaseWith(spec: JsonObject): JsonObject {
  return { metadata: { name: "leader", namespace: "kube-system" }, spec };
}

describe("Lease", () => {
  it("accepts a valid spec, and one without the optional fields", () => {
    expect(
      lease.validateCreate(
        leaseWith({ holderIdentity: "a", leaseDurationSeconds: 15, leaseTransitions: 0 }),
      ),
    ).toEqual([]);
    expect(lease.validateCreate(leaseWith({}))).toEqual([]);
  });

  it("requires a positive duration and non-negative transitions, on create and update", () => {
    const bad = leaseWith({ leaseDurationSeconds: 0, leaseTransitions: -1 });
    const expected = [
      "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
      "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
    ];
    expect(messages(lease.validateCreate(bad))).toEqual(expected);
    expect(messages(lease.validateUpdate(bad, leaseWith({})))).toEqual(expected);
  });

  it("is created on update, needs a resourceVersion to update, and prints kube's columns", () => {
    expect(leaseStrategy.policy).toEqual({
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: false,
    });
    expect(leaseStrategy.printer?.columns.map((c) => c.name)).toEqual(["Name", "Holder", "Age"]);
  });
});
