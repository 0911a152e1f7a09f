import { describe, expect, it } from "vitest";
import { applyJsonPatch, createJsonPatch, type JsonValue } from "kubekit";
import { SeededRandom } from "../../support/seeded-random.js";

/** The patch from `a` to `b`, after checking that it turns `a` into `b` and leaves `a` alone. */
function roundTrip(a: JsonValue, b: JsonValue): ReturnType<typeof createJsonPatch> {
  const before = JSON.stringify(a);
  const patch = createJsonPatch(a, b);
  expect(applyJsonPatch(a, patch)).toEqual(b);
  expect(JSON.stringify(a)).toBe(before);
  return patch;
}

describe("createJsonPatch", () => {
  it("is empty for deep-equal documents, whatever the key order", () => {
    expect(createJsonPatch({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1.0 })).toEqual([]);
  });

  it("adds, removes and replaces object members, recursing into shared ones", () => {
    const patch = roundTrip(
      { metadata: { name: "a", labels: { x: "1", y: "2" } }, spec: { replicas: 1 } },
      { metadata: { name: "a", labels: { x: "1", z: "3" } }, spec: { replicas: 3 }, status: {} },
    );
    expect(patch).toEqual([
      { op: "remove", path: "/metadata/labels/y" },
      { op: "add", path: "/metadata/labels/z", value: "3" },
      { op: "replace", path: "/spec/replicas", value: 3 },
      { op: "add", path: "/status", value: {} },
    ]);
  });

  it("escapes ~ and / in member names (RFC 6901)", () => {
    const patch = roundTrip(
      { metadata: { annotations: {} } },
      { metadata: { annotations: { "example.com/a~b": "v" } } },
    );
    expect(patch).toEqual([
      { op: "add", path: "/metadata/annotations/example.com~1a~0b", value: "v" },
    ]);
  });

  it("grows arrays by appending at explicit indices and shrinks them from the end", () => {
    expect(roundTrip({ a: [1, 2] }, { a: [1, 5, 6, 7] })).toEqual([
      { op: "replace", path: "/a/1", value: 5 },
      { op: "add", path: "/a/2", value: 6 },
      { op: "add", path: "/a/3", value: 7 },
    ]);
    expect(roundTrip({ a: [1, 2, 3, 4] }, { a: [1] })).toEqual([
      { op: "remove", path: "/a/3" },
      { op: "remove", path: "/a/2" },
      { op: "remove", path: "/a/1" },
    ]);
  });

  it("replaces a value whose type changes, the root included", () => {
    expect(roundTrip({ a: [1] }, { a: { 0: 1 } })).toEqual([
      { op: "replace", path: "/a", value: { 0: 1 } },
    ]);
    expect(roundTrip([1], { a: 1 })).toEqual([{ op: "replace", path: "", value: { a: 1 } }]);
    expect(roundTrip({ a: null }, { a: 0 })).toEqual([{ op: "replace", path: "/a", value: 0 }]);
  });

  it("never shares values with the modified document", () => {
    const modified = { spec: { containers: [{ name: "c" }] } };
    const [operation] = createJsonPatch({}, modified);
    expect(operation).toMatchObject({ op: "add", path: "/spec" });
    modified.spec.containers[0]!.name = "changed";
    expect(operation).toEqual({ op: "add", path: "/spec", value: { containers: [{ name: "c" }] } });
  });

  it("round-trips 300 random pairs of documents", () => {
    const seeded = new SeededRandom(20);
    const random = (): number => seeded.next();
    const value = (depth: number): JsonValue => {
      const pick = Math.floor(random() * (depth > 2 ? 4 : 6));
      if (pick === 0) return null;
      if (pick === 1) return random() < 0.5;
      if (pick === 2) return Math.floor(random() * 5);
      if (pick === 3) return ["a", "b", "~/", ""][Math.floor(random() * 4)]!;
      if (pick === 4)
        return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      const keys = ["a", "b", "c/d", "e~f"].filter(() => random() < 0.5);
      return Object.fromEntries(keys.map((key) => [key, value(depth + 1)]));
    };
    for (let i = 0; i < 300; i++) roundTrip(value(0), value(0));
  });
});
