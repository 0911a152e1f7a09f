import { describe, expect, it } from "vitest";
import {
  MAX_OBJECT_DEPTH,
  objectBoundsProblem,
} from "../../../packages/apiserver/src/schema/object-bounds.js";

function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { k: value } : [value];
  return value;
}

describe("objectBoundsProblem", () => {
  it("accepts JSON values up to the depth limit (the top-level object is level 1)", () => {
    expect(objectBoundsProblem(nested(MAX_OBJECT_DEPTH))).toBeUndefined();
    expect(objectBoundsProblem({ a: [1, "s", true, null, { b: -0.5 }] })).toBeUndefined();
  });

  it("reports nesting one level past the limit", () => {
    expect(objectBoundsProblem(nested(MAX_OBJECT_DEPTH + 1))).toEqual({
      kind: "tooDeep",
      limit: MAX_OBJECT_DEPTH,
    });
  });

  it("walks without recursion: 100,000 levels are reported, not a stack overflow", () => {
    expect(objectBoundsProblem(nested(100_000))?.kind).toBe("tooDeep");
  });

  it.each([
    ["Infinity", { a: Infinity }],
    ["NaN", [NaN]],
    ["a byte array (YAML !!binary)", { a: new Uint8Array(2) }],
    ["a Map", { a: new Map() }],
    ["a Date", { a: new Date(0) }],
    ["a bigint", { a: 1n }],
    ["undefined", { a: undefined }],
  ])("reports %s as not JSON", (_what, value) => {
    expect(objectBoundsProblem(value)?.kind).toBe("notJson");
  });

  it("accepts objects without a prototype", () => {
    expect(objectBoundsProblem(Object.create(null) as object)).toBeUndefined();
  });
});
