import { describe, expect, it } from "vitest";
import {
  formatApiVersion,
  gvkFromObject,
  parseApiVersion,
  qualifiedKind,
  qualifiedResource,
} from "kubekit";

describe("parseApiVersion", () => {
  it("maps a bare version to the core group", () => {
    expect(parseApiVersion("v1")).toEqual({ group: "", version: "v1" });
  });

  it("splits group/version", () => {
    expect(parseApiVersion("apps/v1")).toEqual({ group: "apps", version: "v1" });
    expect(parseApiVersion("example.com/v1beta1")).toEqual({
      group: "example.com",
      version: "v1beta1",
    });
  });

  it("rejects the empty string", () => {
    expect(() => parseApiVersion("")).toThrow(/empty/);
  });

  it("rejects more than one slash with apimachinery's message", () => {
    expect(() => parseApiVersion("a/b/c")).toThrow("unexpected GroupVersion string: a/b/c");
  });

  it("rejects an empty group or version around the slash", () => {
    expect(() => parseApiVersion("/v1")).toThrow(/empty group/);
    expect(() => parseApiVersion("apps/")).toThrow(/empty version/);
    expect(() => parseApiVersion("/")).toThrow(Error);
  });
});

describe("formatApiVersion", () => {
  it("omits the core group and round-trips", () => {
    expect(formatApiVersion({ group: "", version: "v1" })).toBe("v1");
    expect(formatApiVersion({ group: "apps", version: "v1" })).toBe("apps/v1");
    for (const av of ["v1", "apps/v1", "coordination.k8s.io/v1"]) {
      expect(formatApiVersion(parseApiVersion(av))).toBe(av);
    }
  });
});

describe("gvkFromObject", () => {
  it("reads apiVersion and kind", () => {
    expect(gvkFromObject({ apiVersion: "apps/v1", kind: "Deployment" })).toEqual({
      group: "apps",
      version: "v1",
      kind: "Deployment",
    });
    expect(gvkFromObject({ apiVersion: "v1", kind: "Pod" })).toEqual({
      group: "",
      version: "v1",
      kind: "Pod",
    });
  });

  it("is undefined when a field is missing, empty or malformed", () => {
    expect(gvkFromObject({})).toBeUndefined();
    expect(gvkFromObject({ kind: "Pod" })).toBeUndefined();
    expect(gvkFromObject({ apiVersion: "v1" })).toBeUndefined();
    expect(gvkFromObject({ apiVersion: "v1", kind: "" })).toBeUndefined();
    expect(gvkFromObject({ apiVersion: "", kind: "Pod" })).toBeUndefined();
    expect(gvkFromObject({ apiVersion: "a/b/c", kind: "Pod" })).toBeUndefined();
  });
});

describe("qualified names", () => {
  it("qualifies resources like kube-apiserver messages", () => {
    expect(qualifiedResource({ group: "", resource: "pods" })).toBe("pods");
    expect(qualifiedResource({ group: "apps", resource: "deployments" })).toBe("deployments.apps");
    expect(qualifiedResource({ group: "example.com", resource: "foos" })).toBe("foos.example.com");
  });

  it("qualifies kinds", () => {
    expect(qualifiedKind({ group: "", kind: "Pod" })).toBe("Pod");
    expect(qualifiedKind({ group: "apps", kind: "Deployment" })).toBe("Deployment.apps");
    expect(qualifiedKind({ group: "meta.k8s.io", kind: "CreateOptions" })).toBe(
      "CreateOptions.meta.k8s.io",
    );
  });
});
