import { describe, expect, it } from "vitest";
import { applyMergePatch, createMergePatch, type JsonObject, type JsonValue } from "kubekit";

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe("applyMergePatch", () => {
  // RFC 7386 appendix A, every example.
  it.each<[JsonValue, JsonValue, JsonValue]>([
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [
      ["a", "b"],
      ["c", "d"],
      ["c", "d"],
    ],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])("RFC 7386 example: %j + %j", (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it("treats a missing target like a non-object one", () => {
    expect(applyMergePatch(undefined, { a: { b: null, c: 1 } })).toEqual({ a: { c: 1 } });
    expect(applyMergePatch(undefined, 3)).toBe(3);
  });

  it("keeps null elements inside arrays", () => {
    expect(applyMergePatch({}, { a: [null, { b: null }] })).toEqual({ a: [null, { b: null }] });
  });

  it("merges kubectl label and annotate patches", () => {
    const pod = { metadata: { name: "alpha", labels: { a: "b", keep: "y" } }, spec: { x: 1 } };
    expect(
      applyMergePatch(pod, {
        metadata: { labels: { a: null, c: "d" }, annotations: { note: "hi" } },
      }),
    ).toEqual({
      metadata: { name: "alpha", labels: { keep: "y", c: "d" }, annotations: { note: "hi" } },
      spec: { x: 1 },
    });
  });

  it("never mutates its inputs, shares untouched target subtrees and nothing of the patch", () => {
    const target = deepFreeze({ spec: { a: 1 }, status: { conditions: [{ type: "Ready" }] } });
    const patch = deepFreeze({ spec: { list: [{ x: 1 }] } });
    const result = applyMergePatch(target, patch) as JsonObject & {
      spec: { list: JsonValue[] };
    };
    expect(result).toEqual({
      spec: { a: 1, list: [{ x: 1 }] },
      status: { conditions: [{ type: "Ready" }] },
    });
    expect(result).not.toBe(target);
    expect(result.spec).not.toBe(target.spec);
    expect(result["status"]).toBe(target.status);
    expect(result.spec.list).not.toBe(patch.spec.list);
    expect(result.spec.list[0]).not.toBe(patch.spec.list[0]);
  });

  it("stores __proto__ as an own member", () => {
    const result = applyMergePatch({}, JSON.parse('{"__proto__":{"polluted":true}}') as JsonValue);
    expect(Object.hasOwn(result as object, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });
});

describe("createMergePatch", () => {
  it("produces added, changed and deleted members only", () => {
    const original = { metadata: { name: "w", labels: { a: "1", b: "2" } }, spec: { size: 3 } };
    const modified = { metadata: { name: "w", labels: { a: "1", c: "3" } }, spec: { size: 4 } };
    expect(createMergePatch(original, modified)).toEqual({
      metadata: { labels: { b: null, c: "3" } },
      spec: { size: 4 },
    });
  });

  it("returns {} for equal objects regardless of key order", () => {
    expect(createMergePatch({ a: 1, b: { c: [1] } }, { b: { c: [1] }, a: 1 })).toEqual({});
  });

  it("sends a changed array whole", () => {
    expect(createMergePatch({ a: [1, 2, 3] }, { a: [1, 2] })).toEqual({ a: [1, 2] });
  });

  it("replaces a member whose type changes", () => {
    expect(createMergePatch({ a: { b: 1 } }, { a: "x" })).toEqual({ a: "x" });
    expect(createMergePatch({ a: "x" }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
  });

  it("returns modified itself when either side is not an object", () => {
    expect(createMergePatch([1], [2])).toEqual([2]);
    expect(createMergePatch(1, 1)).toBe(1);
    expect(createMergePatch({ a: 1 }, "s")).toBe("s");
    expect(createMergePatch("s", { a: 1 })).toEqual({ a: 1 });
  });

  it("cannot express a null member: it becomes a deletion", () => {
    const patch = createMergePatch({ a: 1, b: 2 }, { a: null, b: 2, c: null });
    expect(patch).toEqual({ a: null });
    expect(applyMergePatch({ a: 1, b: 2 }, patch)).toEqual({ b: 2 });
  });

  it("does not share objects with its inputs", () => {
    const modified = { added: { deep: [1] } };
    const patch = createMergePatch({}, modified) as { added: unknown };
    expect(patch.added).toEqual(modified.added);
    expect(patch.added).not.toBe(modified.added);
  });

  it.each<[JsonValue, JsonValue]>([
    [
      { a: { b: { c: 1, d: [1, 2] } }, e: "x" },
      { a: { b: { c: 2 } }, f: [{ g: 1 }] },
    ],
    [{}, { a: { b: {} } }],
    [{ a: { b: {} } }, {}],
    [{ a: [{ x: 1 }] }, { a: { x: 1 } }],
    [{ a: 1 }, ["replaced"]],
    [3, { back: { to: "object" } }],
  ])("round-trips: apply(%j, create(...)) gives %j", (original, modified) => {
    expect(applyMergePatch(original, createMergePatch(original, modified))).toEqual(modified);
  });
});
