import { describe, expect, it } from "vitest";
import {
  type ObjectWithMetadata,
  OwnerReferenceError,
  controllerOf,
  hasOwnerReference,
  removeControllerReference,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from "kubekit";

const rs: ObjectWithMetadata = {
  apiVersion: "apps/v1",
  kind: "ReplicaSet",
  metadata: { name: "web", namespace: "ns", uid: "uid-web" },
};

function pod(metadata: ObjectWithMetadata["metadata"] = {}): ObjectWithMetadata {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web-1", namespace: "ns", ...metadata },
  };
}

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof OwnerReferenceError) return err.reason;
    throw err;
  }
  return undefined;
}

describe("owner references", () => {
  it("controllerOf returns the first reference with controller: true", () => {
    const refs = [
      { apiVersion: "v1", kind: "A", name: "a", uid: "1" },
      { apiVersion: "v1", kind: "B", name: "b", uid: "2", controller: false },
      { apiVersion: "v1", kind: "C", name: "c", uid: "3", controller: true },
      { apiVersion: "v1", kind: "D", name: "d", uid: "4", controller: true },
    ];
    expect(controllerOf(pod({ ownerReferences: refs }))?.name).toBe("c");
    expect(controllerOf(pod())).toBeUndefined();
  });

  it("sets a controller reference with controller and blockOwnerDeletion true, without touching the old metadata", () => {
    const other = { apiVersion: "v1", kind: "ConfigMap", name: "cfg", uid: "u" };
    const original = pod({ ownerReferences: [other] });
    const oldMetadata = original.metadata;
    const result = setControllerReference(rs, original);
    expect(result).toBe(original);
    expect(result.metadata?.ownerReferences).toEqual([
      other,
      {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: "web",
        uid: "uid-web",
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(oldMetadata?.ownerReferences).toEqual([other]);
    expect(controllerOf(result)?.uid).toBe("uid-web");
  });

  it("replaces a reference to the same owner (any version) and refuses another controller", () => {
    const obj = pod({
      ownerReferences: [
        {
          apiVersion: "apps/v1beta2",
          kind: "ReplicaSet",
          name: "web",
          uid: "old",
          controller: true,
        },
      ],
    });
    setControllerReference(rs, obj, { blockOwnerDeletion: false });
    expect(obj.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: "web",
        uid: "uid-web",
        controller: true,
        blockOwnerDeletion: false,
      },
    ]);
    const owned = pod({
      ownerReferences: [
        { apiVersion: "apps/v1", kind: "ReplicaSet", name: "other", uid: "o", controller: true },
      ],
    });
    let error: unknown;
    try {
      setControllerReference(rs, owned);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(OwnerReferenceError);
    expect(error).toMatchObject({ reason: "AlreadyOwned", existing: { name: "other" } });
    expect((error as Error).message).toBe(
      "Object ns/web-1 is already owned by another ReplicaSet controller other",
    );
    expect(owned.metadata?.ownerReferences).toHaveLength(1);
  });

  it("enforces the namespace rules and needs the owner's type, name and uid", () => {
    expect(reasonOf(() => setControllerReference(rs, pod({ namespace: "elsewhere" })))).toBe(
      "CrossNamespace",
    );
    expect(reasonOf(() => setControllerReference(rs, { metadata: { name: "node-x" } }))).toBe(
      "ClusterScopedDependent",
    );
    const clusterOwner = { apiVersion: "v1", kind: "Node", metadata: { name: "n", uid: "u" } };
    expect(reasonOf(() => setControllerReference(clusterOwner, pod()))).toBeUndefined();
    const listItem = { metadata: { name: "web", namespace: "ns", uid: "u" } };
    expect(reasonOf(() => setControllerReference(listItem, pod()))).toBe("OwnerTypeUnknown");
    expect(
      controllerOf(
        setControllerReference(listItem, pod(), { apiVersion: "apps/v1", kind: "ReplicaSet" }),
      )?.kind,
    ).toBe("ReplicaSet");
    expect(reasonOf(() => setControllerReference({ ...rs, metadata: { name: "x" } }, pod()))).toBe(
      "OwnerIncomplete",
    );
  });

  it("setOwnerReference upserts a non-controller reference and validates like the controller one", () => {
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cfg", namespace: "ns", uid: "u-cfg" },
    };
    const obj = pod();
    const oldMetadata = obj.metadata;
    expect(setOwnerReference(cm, obj)).toBe(obj);
    expect(obj.metadata?.ownerReferences).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", name: "cfg", uid: "u-cfg" },
    ]);
    expect(oldMetadata?.ownerReferences).toBeUndefined();
    expect(controllerOf(obj)).toBeUndefined();
    // Another controller does not block a plain owner.
    setControllerReference(rs, obj);
    setOwnerReference(cm, obj, { blockOwnerDeletion: true });
    expect(obj.metadata?.ownerReferences).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", name: "cfg", uid: "u-cfg", blockOwnerDeletion: true },
      expect.objectContaining({ kind: "ReplicaSet", controller: true }),
    ]);
    // The same owner under another version replaces its reference, dropping `controller` as upstream.
    setOwnerReference({ ...rs, apiVersion: "apps/v1beta2" }, obj);
    expect(obj.metadata?.ownerReferences?.[1]).toEqual({
      apiVersion: "apps/v1beta2",
      kind: "ReplicaSet",
      name: "web",
      uid: "uid-web",
    });
    expect(controllerOf(obj)).toBeUndefined();
    expect(reasonOf(() => setOwnerReference(rs, pod({ namespace: "elsewhere" })))).toBe(
      "CrossNamespace",
    );
    expect(reasonOf(() => setOwnerReference(rs, { metadata: { name: "node-x" } }))).toBe(
      "ClusterScopedDependent",
    );
    expect(reasonOf(() => setOwnerReference({ metadata: rs.metadata }, pod()))).toBe(
      "OwnerTypeUnknown",
    );
    expect(reasonOf(() => setOwnerReference({ ...rs, metadata: { name: "x" } }, pod()))).toBe(
      "OwnerIncomplete",
    );
  });

  it("hasOwnerReference matches group, kind and name, not version or uid", () => {
    const obj = setOwnerReference(rs, pod());
    expect(hasOwnerReference(rs, obj)).toBe(true);
    expect(hasOwnerReference({ ...rs, apiVersion: "apps/v1beta1" }, obj)).toBe(true);
    expect(hasOwnerReference({ ...rs, metadata: { name: "web", uid: "other" } }, obj)).toBe(true);
    expect(hasOwnerReference({ ...rs, apiVersion: "extensions/v1beta1" }, obj)).toBe(false);
    expect(hasOwnerReference({ ...rs, kind: "Deployment" }, obj)).toBe(false);
    expect(hasOwnerReference({ ...rs, metadata: { name: "api" } }, obj)).toBe(false);
    expect(hasOwnerReference(rs, pod())).toBe(false);
    expect(reasonOf(() => hasOwnerReference({ metadata: { name: "web" } }, obj))).toBe(
      "OwnerTypeUnknown",
    );
    expect(
      hasOwnerReference({ metadata: { name: "web" } }, obj, {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
      }),
    ).toBe(true);
  });

  it("removeOwnerReference removes the owner's reference, controller or not, and refuses an absent one", () => {
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cfg", namespace: "ns", uid: "u" },
    };
    const obj = setOwnerReference(cm, setControllerReference(rs, pod()));
    const before = obj.metadata?.ownerReferences;
    expect(removeOwnerReference(rs, obj)).toBe(obj);
    expect(obj.metadata?.ownerReferences).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", name: "cfg", uid: "u" },
    ]);
    expect(before).toHaveLength(2);
    expect(reasonOf(() => removeOwnerReference(rs, obj))).toBe("NotOwned");
    expect(reasonOf(() => removeOwnerReference(rs, pod()))).toBe("NotOwned");
    removeOwnerReference(cm, obj);
    expect(obj.metadata?.ownerReferences).toEqual([]);
  });

  it("removeControllerReference removes only the owner's controller reference", () => {
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cfg", namespace: "ns", uid: "u" },
    };
    expect(reasonOf(() => removeControllerReference(rs, setOwnerReference(rs, pod())))).toBe(
      "NotOwned",
    );
    const obj = setOwnerReference(cm, setControllerReference(rs, pod()));
    expect(reasonOf(() => removeControllerReference(cm, obj))).toBe("NotController");
    const other = { ...rs, metadata: { name: "other", namespace: "ns", uid: "o" } };
    expect(reasonOf(() => removeControllerReference(other, obj))).toBe("NotOwned");
    expect(obj.metadata?.ownerReferences).toHaveLength(2);
    expect(removeControllerReference({ ...rs, apiVersion: "apps/v1beta2" }, obj)).toBe(obj);
    expect(obj.metadata?.ownerReferences).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", name: "cfg", uid: "u" },
    ]);
    expect(controllerOf(obj)).toBeUndefined();
  });
});
