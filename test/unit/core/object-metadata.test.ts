import { describe, expect, it } from "vitest";
import {
  annotationOf,
  hasMetadata,
  labelsOf,
  metadataOf,
  nameOf,
  namespaceOf,
  resourceVersionOf,
} from "../../../packages/kubekit/src/core/object-metadata.js";

const pod = {
  metadata: {
    name: "web",
    namespace: "default",
    resourceVersion: "42",
    labels: { app: "web", bad: 1 },
    annotations: { "k8s.io/initial-events-end": "true", n: 2 },
  },
};

describe("object metadata accessors", () => {
  it("read the fields of an object's metadata", () => {
    expect(metadataOf(pod)).toBe(pod.metadata);
    expect(hasMetadata(pod)).toBe(true);
    expect(nameOf(pod)).toBe("web");
    expect(namespaceOf(pod)).toBe("default");
    expect(resourceVersionOf(pod)).toBe("42");
    expect(labelsOf(pod)).toEqual({ app: "web" });
    expect(labelsOf(pod)).not.toBe(pod.metadata.labels);
    expect(annotationOf(pod, "k8s.io/initial-events-end")).toBe("true");
    expect(annotationOf(pod, "n")).toBeUndefined();
  });

  it("read absent fields as absent, never throwing", () => {
    for (const obj of [undefined, null, "x", 1, [], {}, { metadata: [] }, { metadata: null }]) {
      expect(metadataOf(obj)).toBeUndefined();
      expect(hasMetadata(obj)).toBe(false);
      expect(nameOf(obj)).toBe("");
      expect(namespaceOf(obj)).toBe("");
      expect(resourceVersionOf(obj)).toBeUndefined();
      expect(labelsOf(obj)).toBeUndefined();
      expect(annotationOf(obj, "a")).toBeUndefined();
    }
  });

  it("treat an empty or non-string resourceVersion as unset", () => {
    expect(resourceVersionOf({ metadata: {} })).toBeUndefined();
    expect(resourceVersionOf({ metadata: { resourceVersion: "" } })).toBeUndefined();
    expect(resourceVersionOf({ metadata: { resourceVersion: 7 } })).toBeUndefined();
    expect(hasMetadata({ metadata: {} })).toBe(true);
    expect(nameOf({ metadata: { name: 3 } })).toBe("");
  });
});
