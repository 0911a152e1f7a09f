import { describe, expect, it } from "vitest";
import { endpointsStrategy } from "../../../../packages/apiserver/src/kinds/endpoints.js";
import { definedHooks } from "./kind-test-helpers.js";

/** core/v1 Endpoints (`pkg/registry/core/endpoint/strategy.go`: AllowCreateOnUpdate true). */

describe("Endpoints", () => {
  it("are created by a PUT on a missing object and print kube's columns", () => {
    expect(endpointsStrategy.policy).toEqual({ allowCreateOnUpdate: true });
    expect(endpointsStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Endpoints",
      "Age",
    ]);
    expect(definedHooks(endpointsStrategy)).toEqual([]);
  });
});
