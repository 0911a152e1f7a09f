import { describe, expect, it } from "vitest";
import { persistentVolumeStrategy } from "../../../../packages/apiserver/src/kinds/persistent-volume.js";
import { definedHooks } from "./kind-test-helpers.js";

/** core/v1 PersistentVolumes: DELETE answers with the object (kube's store has ReturnDeletedObject). */

describe("PersistentVolume", () => {
  it("answers DELETE with the object and has no write hooks", () => {
    expect(persistentVolumeStrategy.policy).toEqual({ deleteReturnsObject: true });
    expect(definedHooks(persistentVolumeStrategy)).toEqual([]);
  });
});
