import { describe, expect, it } from "vitest";
import {
  toPartialObjectMetadata,
  toPartialObjectMetadataList,
} from "../../../packages/kubekit/src/client/partial-object-metadata.js";

describe("toPartialObjectMetadata", () => {
  it("keeps the metadata of a full object and drops the rest", () => {
    const metadata = { name: "a", namespace: "n", labels: { x: "y" }, resourceVersion: "3" };
    expect(
      toPartialObjectMetadata({ apiVersion: "v1", kind: "Secret", metadata, data: { k: "v" } }),
    ).toEqual({ apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata });
  });

  it("returns a PartialObjectMetadata unchanged (same object)", () => {
    const partial = { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: {} };
    expect(toPartialObjectMetadata(partial)).toBe(partial);
  });

  it("gives empty metadata to an object without (or with malformed) metadata", () => {
    expect(toPartialObjectMetadata({ kind: "Thing" }).metadata).toEqual({});
    expect(toPartialObjectMetadata({ kind: "Thing", metadata: "bad" }).metadata).toEqual({});
  });

  it("rejects values that are not objects", () => {
    expect(() => toPartialObjectMetadata(null)).toThrow(TypeError);
    expect(() => toPartialObjectMetadata([])).toThrow(TypeError);
    expect(() => toPartialObjectMetadata("x")).toThrow(TypeError);
  });
});

describe("toPartialObjectMetadataList", () => {
  it("converts a full list: list metadata kept, every item converted", () => {
    const list = toPartialObjectMetadataList({
      apiVersion: "v1",
      kind: "SecretList",
      metadata: { resourceVersion: "9", continue: "tok", remainingItemCount: 4 },
      items: [
        { kind: "Secret", metadata: { name: "a" }, data: {} },
        { kind: "Secret", metadata: { name: "b" }, data: {} },
      ],
    });
    expect(list).toEqual({
      apiVersion: "meta.k8s.io/v1",
      kind: "PartialObjectMetadataList",
      metadata: { resourceVersion: "9", continue: "tok", remainingItemCount: 4 },
      items: [
        { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: { name: "a" } },
        { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: { name: "b" } },
      ],
    });
  });

  it("returns a PartialObjectMetadataList unchanged, and reads a missing items as empty", () => {
    const list = { kind: "PartialObjectMetadataList", metadata: {}, items: [] };
    expect(toPartialObjectMetadataList(list)).toBe(list);
    expect(toPartialObjectMetadataList({ kind: "ThingList" }).items).toEqual([]);
  });

  it("rejects a list whose items are not objects", () => {
    expect(() => toPartialObjectMetadataList({ kind: "L", items: [1] })).toThrow(TypeError);
    expect(() => toPartialObjectMetadataList(undefined)).toThrow(TypeError);
  });
});
