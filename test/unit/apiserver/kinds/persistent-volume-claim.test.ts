import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import {
  defaultClaim,
  persistentVolumeClaimStrategy,
} from "../../../../packages/apiserver/src/kinds/persistent-volume-claim.js";
import { frozen, hooksOf, messages } from "./kind-test-helpers.js";

/**
 * core/v1 PersistentVolumeClaims: SetDefaults_PersistentVolumeClaimSpec
 * (`pkg/apis/core/v1/defaults.go`), ValidatePersistentVolumeClaim and its Update
 * (`pkg/apis/core/validation/validation.go`).
 */

const claim = hooksOf(persistentVolumeClaimStrategy);
const IMMUTABLE =
  "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims";

function claimWith(spec: JsonObject): JsonObject {
  return {
    metadata: { name: "data", namespace: "default" },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, ...spec },
  };
}

describe("PersistentVolumeClaim create", () => {
  it("starts Pending with volumeMode Filesystem", () => {
    const created = claim.created(claimWith({}));
    expect(created["status"]).toEqual({ phase: "Pending" });
    expect((created["spec"] as JsonObject)["volumeMode"]).toBe("Filesystem");
    expect(defaultClaim(frozen(claimWith({ volumeMode: "Block" })))["spec"]).toMatchObject({
      volumeMode: "Block",
    });
  });

  it("requires access modes and a storage request", () => {
    expect(claim.validateCreate(claim.created(claimWith({})))).toEqual([]);
    expect(
      messages(claim.validateCreate(claim.created(claimWith({ accessModes: [], resources: {} })))),
    ).toEqual([
      "spec.accessModes: Required value: at least 1 access mode is required",
      "spec.resources[storage]: Required value",
    ]);
    expect(
      claim.validateCreate(
        claim.created(claimWith({ resources: {}, dataSourceRef: { kind: "X", name: "y" } })),
      ),
    ).toEqual([]);
  });
});

describe("PersistentVolumeClaim update", () => {
  const old = claim.created(claimWith({ storageClassName: "standard" }));

  it("allows requests, volumeAttributesClassName and the binding's volumeName to change", () => {
    const next = claim.updated(
      claimWith({
        storageClassName: "standard",
        resources: { requests: { storage: "2Gi" } },
        volumeAttributesClassName: "fast",
        volumeName: "pv-1",
      }),
      old,
    );
    expect(claim.validateUpdate(next, old)).toEqual([]);
  });

  it("forbids any other spec change, a set volumeName included", () => {
    expect(
      messages(
        claim.validateUpdate(claim.updated(claimWith({ storageClassName: "other" }), old), old),
      ),
    ).toEqual([IMMUTABLE]);
    const bound = claim.created(claimWith({ storageClassName: "standard", volumeName: "pv-1" }));
    expect(
      messages(
        claim.validateUpdate(
          claim.updated(claimWith({ storageClassName: "standard", volumeName: "pv-2" }), bound),
          bound,
        ),
      ),
    ).toEqual([IMMUTABLE]);
  });

  it("answers DELETE with the object and prints kube's columns", () => {
    expect(persistentVolumeClaimStrategy.policy).toEqual({ deleteReturnsObject: true });
    expect(persistentVolumeClaimStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Status",
      "Volume",
      "Capacity",
      "Access Modes",
      "StorageClass",
      "VolumeAttributesClass",
      "Age",
      "VolumeMode",
    ]);
  });
});
