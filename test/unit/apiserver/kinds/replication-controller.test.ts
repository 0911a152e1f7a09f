import { describe, expect, it } from "vitest";
import { replicationControllerStrategy } from "../../../../packages/apiserver/src/kinds/replication-controller.js";
import { definedHooks } from "./kind-test-helpers.js";

/** core/v1 ReplicationControllers (`pkg/registry/core/replicationcontroller/strategy.go`). */

describe("ReplicationController", () => {
  it("tracks generation and selects by status.replicas", () => {
    expect(replicationControllerStrategy.policy?.tracksGeneration).toBe(true);
    expect(
      replicationControllerStrategy.policy?.selectableFields?.["status.replicas"]?.({
        status: { replicas: 2 },
      }),
    ).toBe("2");
  });

  it("has no write hooks of its own", () => {
    expect(definedHooks(replicationControllerStrategy)).toEqual([]);
    expect(replicationControllerStrategy.printer).toBeUndefined();
  });
});
