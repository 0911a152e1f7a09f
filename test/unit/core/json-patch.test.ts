import { describe, expect, it } from "vitest";
import {
  JsonPatchError,
  JsonPatchTooLargeError,
  applyJsonPatch,
  parseJsonPatch,
  type JsonValue,
} from "kubekit";

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function patchError(fn: () => unknown): JsonPatchError {
  try {
    fn();
  } catch (error) {
    if (error instanceof JsonPatchError) return error;
    throw error;
  }
  throw new Error("expected a JsonPatchError");
}

describe("applyJsonPatch: RFC 6902 appendix A", () => {
  it("A.1 adds an object member", () => {
    expect(applyJsonPatch({ foo: "bar" }, [{ op: "add", path: "/baz", value: "qux" }])).toEqual({
      foo: "bar",
      baz: "qux",
    });
  });

  it("A.2 inserts an array element before the given index", () => {
    expect(
      applyJsonPatch({ foo: ["bar", "baz"] }, [{ op: "add", path: "/foo/1", value: "qux" }]),
    ).toEqual({ foo: ["bar", "qux", "baz"] });
  });

  it("A.3 removes an object member", () => {
    expect(applyJsonPatch({ baz: "qux", foo: "bar" }, [{ op: "remove", path: "/baz" }])).toEqual({
      foo: "bar",
    });
  });

  it("A.4 removes an array element and shifts the rest", () => {
    expect(
      applyJsonPatch({ foo: ["bar", "qux", "baz"] }, [{ op: "remove", path: "/foo/1" }]),
    ).toEqual({ foo: ["bar", "baz"] });
  });

  it("A.5 replaces a value", () => {
    expect(
      applyJsonPatch({ baz: "qux", foo: "bar" }, [{ op: "replace", path: "/baz", value: "boo" }]),
    ).toEqual({ baz: "boo", foo: "bar" });
  });

  it("A.6 moves a value", () => {
    const doc = { foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } };
    expect(applyJsonPatch(doc, [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }])).toEqual({
      foo: { bar: "baz" },
      qux: { corge: "grault", thud: "fred" },
    });
  });

  it("A.7 moves an array element", () => {
    const doc = { foo: ["all", "grass", "cows", "eat"] };
    expect(applyJsonPatch(doc, [{ op: "move", from: "/foo/1", path: "/foo/3" }])).toEqual({
      foo: ["all", "cows", "eat", "grass"],
    });
  });

  it("A.8 passes a successful test", () => {
    const doc = { baz: "qux", foo: ["a", 2, "c"] };
    const patch = [
      { op: "test", path: "/baz", value: "qux" },
      { op: "test", path: "/foo/1", value: 2 },
    ];
    expect(applyJsonPatch(doc, patch)).toEqual(doc);
  });

  it("A.9 fails a test with a different value", () => {
    const error = patchError(() =>
      applyJsonPatch({ baz: "qux" }, [{ op: "test", path: "/baz", value: "bar" }]),
    );
    expect(error.kind).toBe("failed");
    expect(error.operationIndex).toBe(0);
    expect(error.detail).toBe("testing value /baz failed: test failed");
  });

  it("A.10 adds a nested member object", () => {
    expect(
      applyJsonPatch({ foo: "bar" }, [{ op: "add", path: "/child", value: { grandchild: {} } }]),
    ).toEqual({ foo: "bar", child: { grandchild: {} } });
  });

  it("A.11 ignores unrecognized members of an operation", () => {
    expect(
      applyJsonPatch({ foo: "bar" }, [{ op: "add", path: "/baz", value: "qux", xyz: 123 }]),
    ).toEqual({ foo: "bar", baz: "qux" });
  });

  it("A.12 fails to add to a nonexistent target", () => {
    const error = patchError(() =>
      applyJsonPatch({ foo: "bar" }, [{ op: "add", path: "/baz/bat", value: "qux" }]),
    );
    expect(error.kind).toBe("failed");
    expect(error.detail).toBe(
      'add operation does not apply: doc is missing path: "/baz/bat": missing value',
    );
  });

  it("A.14 decodes ~01 as ~1 (escapes unescaped in the right order)", () => {
    const doc = { "/": 9, "~1": 10 };
    expect(applyJsonPatch(doc, [{ op: "test", path: "/~01", value: 10 }])).toEqual(doc);
    expect(() => applyJsonPatch(doc, [{ op: "test", path: "/~01", value: 9 }])).toThrow(
      JsonPatchError,
    );
  });

  it("A.15 distinguishes strings from numbers in test", () => {
    const doc = { "/": 9, "~1": 10 };
    expect(() => applyJsonPatch(doc, [{ op: "test", path: "/~01", value: "10" }])).toThrow(
      "testing value /~01 failed: test failed",
    );
  });

  it("A.16 adds an array value as one element", () => {
    expect(
      applyJsonPatch({ foo: ["bar"] }, [{ op: "add", path: "/foo/-", value: ["abc", "def"] }]),
    ).toEqual({ foo: ["bar", ["abc", "def"]] });
  });
});

describe("applyJsonPatch: pointers and array indices", () => {
  it("unescapes ~1 to / and ~0 to ~ in keys", () => {
    const result = applyJsonPatch({ metadata: { labels: {} } }, [
      { op: "add", path: "/metadata/labels/app.kubernetes.io~1name", value: "web" },
      { op: "add", path: "/metadata/labels/m~0n", value: "tilde" },
    ]);
    expect(result).toEqual({
      metadata: { labels: { "app.kubernetes.io/name": "web", "m~n": "tilde" } },
    });
  });

  it("appends with - and accepts an index equal to the length for add", () => {
    const result = applyJsonPatch({ a: [1, 2] }, [
      { op: "add", path: "/a/-", value: 3 },
      { op: "add", path: "/a/3", value: 4 },
    ]);
    expect(result).toEqual({ a: [1, 2, 3, 4] });
  });

  it("rejects an add index beyond the length", () => {
    const error = patchError(() =>
      applyJsonPatch({ a: [1] }, [{ op: "add", path: "/a/2", value: 0 }]),
    );
    expect(error.kind).toBe("failed");
    expect(error.detail).toBe(
      "error in add for path: '/a/2': Unable to access invalid index: 2: invalid index referenced",
    );
  });

  it.each([
    ["leading zero", "/a/01"],
    ["negative index", "/a/-1"],
    ["non-numeric token", "/a/x"],
    ["index equal to the length", "/a/2"],
    ["the append token", "/a/-"],
  ])("rejects %s outside add (replace, remove, test)", (_what, path) => {
    for (const op of [
      { op: "replace", path, value: 0 },
      { op: "remove", path },
      { op: "test", path, value: 1 },
    ]) {
      const error = patchError(() => applyJsonPatch({ a: [1, 2] }, [op]));
      expect(error.kind).toBe("failed");
    }
  });

  it("treats a numeric-looking token as a plain key on objects", () => {
    expect(
      applyJsonPatch({ a: { "01": 1 } }, [{ op: "replace", path: "/a/01", value: 2 }]),
    ).toEqual({
      a: { "01": 2 },
    });
  });

  it("adds, replaces and tests the whole document with the empty pointer", () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: "add", path: "", value: [1] }])).toEqual([1]);
    expect(applyJsonPatch({ a: 1 }, [{ op: "replace", path: "", value: "x" }])).toBe("x");
    expect(applyJsonPatch({ a: 1 }, [{ op: "test", path: "", value: { a: 1 } }])).toEqual({ a: 1 });
  });

  it("refuses to remove the whole document", () => {
    expect(patchError(() => applyJsonPatch({ a: 1 }, [{ op: "remove", path: "" }])).kind).toBe(
      "failed",
    );
  });

  it("addresses the empty key with the pointer /", () => {
    expect(applyJsonPatch({}, [{ op: "add", path: "/", value: 1 }])).toEqual({ "": 1 });
  });

  it("stores __proto__ as an own member without touching prototypes", () => {
    const result = applyJsonPatch({}, [
      { op: "add", path: "/__proto__", value: { polluted: true } },
    ]);
    expect(Object.hasOwn(result as object, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });
});

describe("applyJsonPatch: operations", () => {
  it("fails to remove or replace a missing member", () => {
    const remove = patchError(() => applyJsonPatch({ a: 1 }, [{ op: "remove", path: "/b" }]));
    expect(remove.detail).toBe(
      'remove operation does not apply: doc is missing path: "/b": missing value',
    );
    const replace = patchError(() =>
      applyJsonPatch({ a: 1 }, [{ op: "replace", path: "/b", value: 1 }]),
    );
    expect(replace.detail).toBe(
      "replace operation does not apply: doc is missing key: /b: missing value",
    );
  });

  it("adds over an existing member (replacing it)", () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: "add", path: "/a", value: 2 }])).toEqual({ a: 2 });
  });

  it("tests with structural equality regardless of key order", () => {
    const doc = { spec: { a: 1, b: [1, { c: null }] } };
    expect(
      applyJsonPatch(doc, [{ op: "test", path: "/spec", value: { b: [1, { c: null }], a: 1 } }]),
    ).toEqual(doc);
    expect(() =>
      applyJsonPatch(doc, [{ op: "test", path: "/spec", value: { a: 1, b: [{ c: null }, 1] } }]),
    ).toThrow(JsonPatchError);
  });

  it("tests null against an existing null but fails on a missing member", () => {
    expect(applyJsonPatch({ a: null }, [{ op: "test", path: "/a", value: null }])).toEqual({
      a: null,
    });
    const error = patchError(() => applyJsonPatch({}, [{ op: "test", path: "/a", value: null }]));
    expect(error.detail).toBe("test operation does not apply: is missing path: /a: missing value");
  });

  it("reports the failing operation's index in the message", () => {
    const error = patchError(() =>
      applyJsonPatch({ metadata: { name: "a" } }, [
        { op: "add", path: "/x", value: 1 },
        { op: "test", path: "/metadata/name", value: "b" },
      ]),
    );
    expect(error.operationIndex).toBe(1);
    expect(error.message).toBe("operation 1: testing value /metadata/name failed: test failed");
  });

  it("moves to the same location as a no-op and fails into its own child", () => {
    expect(applyJsonPatch({ a: { b: 1 } }, [{ op: "move", from: "/a", path: "/a" }])).toEqual({
      a: { b: 1 },
    });
    const error = patchError(() =>
      applyJsonPatch({ a: { b: 1 } }, [{ op: "move", from: "/a", path: "/a/b/c" }]),
    );
    expect(error.kind).toBe("failed");
  });

  it("fails move and copy from a missing location", () => {
    expect(
      patchError(() => applyJsonPatch({}, [{ op: "move", from: "/x", path: "/y" }])).detail,
    ).toBe("move operation does not apply: doc is missing from path: /x: missing value");
    expect(
      patchError(() => applyJsonPatch({}, [{ op: "copy", from: "/x", path: "/y" }])).detail,
    ).toBe("copy operation does not apply: doc is missing from path: /x: missing value");
  });

  it("copies by value: later changes to the copy leave the source alone", () => {
    const result = applyJsonPatch({ a: { list: [1] } }, [
      { op: "copy", from: "/a", path: "/b" },
      { op: "add", path: "/b/list/-", value: 2 },
    ]);
    expect(result).toEqual({ a: { list: [1] }, b: { list: [1, 2] } });
  });

  it("inserts a value added twice as independent copies", () => {
    const value = { n: 1 };
    const result = applyJsonPatch({ a: [] }, [
      { op: "add", path: "/a/-", value },
      { op: "add", path: "/a/-", value },
      { op: "replace", path: "/a/0/n", value: 2 },
    ]);
    expect(result).toEqual({ a: [{ n: 2 }, { n: 1 }] });
    expect(value).toEqual({ n: 1 });
  });

  it("never mutates the document or the patch, and shares nothing with them", () => {
    const doc = deepFreeze({ spec: { list: [1, 2], nested: { a: 1 } }, untouched: { x: [1] } });
    const patch = deepFreeze([
      { op: "add", path: "/spec/list/0", value: { deep: [1] } },
      { op: "remove", path: "/spec/nested/a" },
      { op: "move", from: "/spec/list/1", path: "/moved" },
    ]);
    const result = applyJsonPatch(doc, patch) as {
      untouched: unknown;
      spec: { list: JsonValue[] };
    };
    expect(result).toEqual({
      spec: { list: [{ deep: [1] }, 2], nested: {} },
      untouched: { x: [1] },
      moved: 1,
    });
    expect(result.untouched).not.toBe(doc.untouched);
    expect(result.spec.list[0]).not.toBe(patch[0]?.value);
  });

  it("is atomic: a failing operation leaves no partial result behind", () => {
    const doc = { a: 1 };
    expect(() =>
      applyJsonPatch(doc, [
        { op: "replace", path: "/a", value: 2 },
        { op: "remove", path: "/missing" },
      ]),
    ).toThrow(JsonPatchError);
    expect(doc).toEqual({ a: 1 });
  });
});

describe("applyJsonPatch: malformed patches", () => {
  it.each<[string, unknown, number | undefined, string]>([
    [
      "not an array",
      { op: "add" },
      undefined,
      "a JSON patch must be an array of operations, got an object",
    ],
    ["a non-object operation", ["add"], 0, "an operation must be a JSON object, got a string"],
    ["an unknown op", [{ op: "merge", path: "/a" }], 0, "Unexpected kind: merge"],
    ["a missing op", [{ path: "/a" }], 0, "Unexpected kind: unknown"],
    ["a missing path", [{ op: "remove" }], 0, "operation missing path field: missing value"],
    [
      "a non-string path",
      [{ op: "remove", path: 3 }],
      0,
      'the "path" member must be a string, got a number',
    ],
    [
      "a missing from",
      [{ op: "move", path: "/a" }],
      0,
      "operation, missing from field: missing value",
    ],
    [
      "a missing value",
      [{ op: "add", path: "/a" }],
      0,
      "operation, missing value field: missing value",
    ],
    [
      "a test without value",
      [{ op: "test", path: "/a" }],
      0,
      "operation, missing value field: missing value",
    ],
    [
      "a relative pointer",
      [{ op: "remove", path: "a/b" }],
      0,
      'invalid JSON pointer "a/b": must be empty or start with "/"',
    ],
    [
      "a bad escape",
      [{ op: "remove", path: "/a~2" }],
      0,
      'invalid JSON pointer "/a~2": "~" must be followed by "0" or "1"',
    ],
    [
      "a trailing tilde",
      [{ op: "copy", from: "/a~", path: "/b" }],
      0,
      'invalid JSON pointer "/a~": "~" must be followed by "0" or "1"',
    ],
  ])("rejects %s as malformed", (_what, patch, index, detail) => {
    const error = patchError(() => applyJsonPatch({ a: 1 }, patch));
    expect(error.kind).toBe("malformed");
    expect(error.operationIndex).toBe(index);
    expect(error.detail).toBe(detail);
  });

  it("validates the whole patch before applying anything", () => {
    const error = patchError(() =>
      applyJsonPatch({}, [
        { op: "test", path: "/missing", value: 1 },
        { op: "bogus", path: "/a" },
      ]),
    );
    expect(error.kind).toBe("malformed");
    expect(error.operationIndex).toBe(1);
  });

  it("accepts null as a value", () => {
    expect(applyJsonPatch({}, [{ op: "add", path: "/a", value: null }])).toEqual({ a: null });
  });
});

describe("applyJsonPatch: maxOperations", () => {
  const ops = [
    { op: "add", path: "/a", value: 1 },
    { op: "add", path: "/b", value: 2 },
    { op: "add", path: "/c", value: 3 },
  ];

  it("rejects more operations than allowed with JsonPatchTooLargeError", () => {
    let caught: unknown;
    try {
      applyJsonPatch({}, ops, { maxOperations: 2 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(JsonPatchTooLargeError);
    expect(caught).not.toBeInstanceOf(JsonPatchError);
    expect((caught as JsonPatchTooLargeError).operationCount).toBe(3);
    expect((caught as JsonPatchTooLargeError).maxOperations).toBe(2);
  });

  it("checks the size before validating operations", () => {
    expect(() => applyJsonPatch({}, [{}, {}, {}], { maxOperations: 2 })).toThrow(
      JsonPatchTooLargeError,
    );
  });

  it("allows exactly the limit, and has no limit by default", () => {
    expect(applyJsonPatch({}, ops, { maxOperations: 3 })).toEqual({ a: 1, b: 2, c: 3 });
    const many = Array.from({ length: 20_000 }, (_, i) => ({ op: "add", path: "/n", value: i }));
    expect(applyJsonPatch({}, many)).toEqual({ n: 19_999 });
  });
});

describe("parseJsonPatch", () => {
  it("returns typed operations with only their own members", () => {
    expect(
      parseJsonPatch([
        { op: "add", path: "/a", value: 1, extra: true },
        { op: "remove", path: "/a", value: 2 },
        { op: "move", from: "/a", path: "/b" },
        { op: "copy", from: "/a", path: "/b", value: 3 },
        { op: "replace", path: "", value: null },
        { op: "test", path: "/a/~1", value: [1] },
      ]),
    ).toEqual([
      { op: "add", path: "/a", value: 1 },
      { op: "remove", path: "/a" },
      { op: "move", from: "/a", path: "/b" },
      { op: "copy", from: "/a", path: "/b" },
      { op: "replace", path: "", value: null },
      { op: "test", path: "/a/~1", value: [1] },
    ]);
  });

  it("accepts an empty patch", () => {
    expect(parseJsonPatch([])).toEqual([]);
    expect(applyJsonPatch({ a: 1 }, [])).toEqual({ a: 1 });
  });

  it("throws malformed errors", () => {
    expect(patchError(() => parseJsonPatch(null)).kind).toBe("malformed");
  });
});
