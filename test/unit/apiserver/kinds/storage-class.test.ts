import { describe, expect, it } from "vitest";
import { storageClassStrategy } from "../../../../packages/apiserver/src/kinds/storage-class.js";
import { definedHooks } from "./kind-test-helpers.js";

/** storage.k8s.io/v1 StorageClasses: DELETE answers with the object (kube's store has ReturnDeletedObject). */

describe("StorageClass", () => {
  it("answers DELETE with the object and has no write hooks", () => {
    expect(storageClassStrategy.policy).toEqual({ deleteReturnsObject: true });
    expect(definedHooks(storageClassStrategy)).toEqual([]);
  });
});
