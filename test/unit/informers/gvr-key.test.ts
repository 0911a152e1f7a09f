import { describe, expect, it } from "vitest";
import { gvrKey, isGvrKey } from "../../../packages/kubekit/src/informers/gvr-key.js";
import { informerResourceOf } from "../../../packages/kubekit/src/informers/informer-resource-of.js";

describe("gvrKey", () => {
  it("is group/version/resource, with an empty group for core", () => {
    expect(gvrKey({ group: "apps", version: "v1", resource: "deployments" })).toBe(
      "apps/v1/deployments",
    );
    expect(gvrKey({ group: "", version: "v1", resource: "pods" })).toBe("/v1/pods");
  });

  it("recognises only keys of that shape", () => {
    expect(isGvrKey("/v1/pods")).toBe(true);
    expect(isGvrKey("example.com/v1alpha1/widgets")).toBe(true);
    expect(isGvrKey("v1/pods")).toBe(false);
    expect(isGvrKey("apps/v1/deployments/scale")).toBe(false);
    expect(isGvrKey("apps//deployments")).toBe(false);
    expect(isGvrKey("apps/v1/")).toBe(false);
  });
});

describe("informerResourceOf", () => {
  it("scopes built-in resources by the resource table and custom ones as namespaced", () => {
    expect(informerResourceOf({ group: "", version: "v1", resource: "nodes" })).toEqual({
      group: "",
      version: "v1",
      resource: "nodes",
      namespaced: false,
    });
    expect(
      informerResourceOf({ group: "apps", version: "v1", resource: "deployments" }).namespaced,
    ).toBe(true);
    expect(
      informerResourceOf({ group: "example.com", version: "v1", resource: "gadgets" }).namespaced,
    ).toBe(true);
  });

  it("rejects empty versions and resources and parts containing a slash", () => {
    for (const gvr of [
      { group: "example.com", version: "", resource: "widgets" },
      { group: "example.com", version: "v1", resource: "" },
      { group: "example.com", version: "v1", resource: "widgets/status" },
      { group: "a/b", version: "v1", resource: "widgets" },
      { group: "", version: "v1/x", resource: "widgets" },
    ]) {
      expect(() => informerResourceOf(gvr), JSON.stringify(gvr)).toThrow(TypeError);
    }
  });
});
