import { describe, expect, it } from "vitest";
import { ObjectKeyError, objectKey, splitObjectKey } from "kubekit";

function keyError(fn: () => unknown): ObjectKeyError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ObjectKeyError) return e;
    throw e;
  }
  throw new Error("expected an ObjectKeyError");
}

describe("objectKey", () => {
  it("joins namespace and name", () => {
    expect(objectKey({ metadata: { namespace: "default", name: "web" } })).toBe("default/web");
  });

  it("uses the bare name when the namespace is absent or empty", () => {
    expect(objectKey({ metadata: { name: "node-1" } })).toBe("node-1");
    expect(objectKey({ metadata: { namespace: "", name: "node-1" } })).toBe("node-1");
  });

  it("throws a typed error naming what is missing", () => {
    const noMeta = keyError(() => objectKey({}));
    expect(noMeta.reason).toBe("NoMetadata");
    expect(noMeta.message).toMatch(/metadata/);
    const noName = keyError(() => objectKey({ metadata: { namespace: "ns" } }));
    expect(noName.reason).toBe("NoName");
    expect(noName.message).toMatch(/metadata\.name/);
    expect(keyError(() => objectKey({ metadata: { name: "" } })).reason).toBe("NoName");
    expect(noName).toBeInstanceOf(Error);
    expect(noName.name).toBe("ObjectKeyError");
  });
});

describe("splitObjectKey", () => {
  it("splits namespaced keys", () => {
    expect(splitObjectKey("default/web")).toEqual({ namespace: "default", name: "web" });
  });

  it("gives an empty namespace for a bare name", () => {
    expect(splitObjectKey("node-1")).toEqual({ namespace: "", name: "node-1" });
  });

  it("keeps empty parts like client-go", () => {
    expect(splitObjectKey("")).toEqual({ namespace: "", name: "" });
    expect(splitObjectKey("/x")).toEqual({ namespace: "", name: "x" });
    expect(splitObjectKey("ns/")).toEqual({ namespace: "ns", name: "" });
  });

  it("rejects more than one slash", () => {
    const e = keyError(() => splitObjectKey("a/b/c"));
    expect(e.reason).toBe("MalformedKey");
    expect(e.key).toBe("a/b/c");
    expect(e.message).toBe('unexpected key format: "a/b/c"');
  });

  it("round-trips with objectKey", () => {
    for (const meta of [{ namespace: "ns", name: "a" }, { name: "b" }]) {
      const { namespace, name } = splitObjectKey(objectKey({ metadata: meta }));
      expect(name).toBe(meta.name);
      expect(namespace).toBe(meta.namespace ?? "");
    }
  });
});
