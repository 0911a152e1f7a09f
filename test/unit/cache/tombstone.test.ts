import { describe, expect, it } from "vitest";
import { ObjectKeyError, DeletedFinalStateUnknown, deletionHandlingKey } from "kubekit";
import { obj } from "./fixtures.js";

describe("DeletedFinalStateUnknown", () => {
  it("keeps the key and the possibly missing last state", () => {
    const last = obj("ns/a", "7");
    const t = new DeletedFinalStateUnknown("ns/a", last);
    expect(t.key).toBe("ns/a");
    expect(t.obj).toBe(last);
    expect(new DeletedFinalStateUnknown("ns/b", undefined).obj).toBeUndefined();
  });
});

describe("deletionHandlingKey", () => {
  it("uses a tombstone's own key, even when its object would key differently or not at all", () => {
    expect(deletionHandlingKey(new DeletedFinalStateUnknown("ns/a", obj("other/x")))).toBe("ns/a");
    expect(deletionHandlingKey(new DeletedFinalStateUnknown("gone", undefined))).toBe("gone");
  });

  it("keys objects as ns/name, or name when cluster-scoped", () => {
    expect(deletionHandlingKey(obj("ns/a"))).toBe("ns/a");
    expect(deletionHandlingKey(obj("node-1"))).toBe("node-1");
  });

  it("propagates the typed key error for objects without a name", () => {
    expect(() => deletionHandlingKey({ metadata: {} })).toThrow(ObjectKeyError);
    expect(() => deletionHandlingKey({})).toThrow(ObjectKeyError);
  });
});
