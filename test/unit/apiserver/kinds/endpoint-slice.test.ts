import { describe, expect, it } from "vitest";
import { endpointSliceStrategy } from "../../../../packages/apiserver/src/kinds/endpoint-slice.js";
import { definedHooks } from "./kind-test-helpers.js";

/** discovery.k8s.io/v1 EndpointSlices (`pkg/registry/discovery/endpointslice/strategy.go`). */

describe("EndpointSlice", () => {
  it("tracks generation and prints kube's columns", () => {
    expect(endpointSliceStrategy.policy).toEqual({ tracksGeneration: true });
    expect(endpointSliceStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "AddressType",
      "Ports",
      "Endpoints",
      "Age",
    ]);
    expect(definedHooks(endpointSliceStrategy)).toEqual([]);
  });
});
