import { describe, expect, it } from "vitest";
import { type JsonObject, StatusError } from "kubekit";
import { namespaceStrategy } from "../../../../packages/apiserver/src/kinds/namespace.js";
import { definedHooks, DELETE_NOW, hooksOf } from "./kind-test-helpers.js";

/**
 * core/v1 Namespaces (`pkg/registry/core/namespace/strategy.go`,
 * `pkg/registry/core/namespace/storage/storage.go`; SetDefaults_Namespace).
 */

const namespace = hooksOf(namespaceStrategy);

function namespaceNamed(name: string, metadata: JsonObject = {}): JsonObject {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name, ...metadata } };
}

describe("Namespace create and defaults", () => {
  it("starts Active with the kubernetes finalizer, whatever the client sent", () => {
    const created = namespace.created({
      ...namespaceNamed("team-a"),
      spec: { finalizers: [] },
      status: { phase: "Terminating" },
    });
    expect(created["spec"]).toEqual({ finalizers: ["kubernetes"] });
    expect(created["status"]).toEqual({ phase: "Active" });
  });

  it("labels every namespace with its name, on every write", () => {
    expect(
      (
        namespace.applyDefaults(namespaceNamed("team-a", { labels: { env: "dev" } }))[
          "metadata"
        ] as JsonObject
      )["labels"],
    ).toEqual({
      env: "dev",
      "kubernetes.io/metadata.name": "team-a",
    });
    const tampered = namespaceNamed("team-a", {
      labels: { "kubernetes.io/metadata.name": "other" },
    });
    expect((namespace.applyDefaults(tampered)["metadata"] as JsonObject)["labels"]).toEqual({
      "kubernetes.io/metadata.name": "team-a",
    });
    const unnamed = { metadata: { generateName: "ns-" } };
    expect(namespace.applyDefaults(unnamed)).toEqual(unnamed);
  });
});

describe("Namespace delete", () => {
  it("marks the namespace Terminating instead of removing it", () => {
    const active = namespace.created(namespaceNamed("team-a"));
    const decision = namespace.beforeDelete(active, { name: "team-a" });
    expect(decision.terminate?.["metadata"]).toMatchObject({
      deletionTimestamp: DELETE_NOW,
      deletionGracePeriodSeconds: 0,
    });
    expect(decision.terminate?.["status"]).toEqual({ phase: "Terminating" });
    expect(decision.terminate?.["spec"]).toEqual({ finalizers: ["kubernetes"] });
  });

  it("leaves a namespace already terminating as it is", () => {
    const terminating = namespaceNamed("team-a", { deletionTimestamp: "2025-01-01T00:00:00Z" });
    expect(namespace.beforeDelete(terminating, { name: "team-a" }).terminate).toEqual(terminating);
  });

  it.each(["default", "kube-system", "kube-public"])(
    "refuses to delete %s (403 Forbidden)",
    (name) => {
      const deleting = () => namespace.beforeDelete(namespaceNamed(name), { name });
      expect(deleting).toThrow(StatusError);
      expect(deleting).toThrow(
        expect.objectContaining({
          status: expect.objectContaining({
            code: 403,
            reason: "Forbidden",
            message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
            details: { name, kind: "namespaces" },
          }),
        }),
      );
    },
  );
});

describe("Namespace policy and printer", () => {
  it("answers DELETE with the object, names are DNS-1123 labels, selects by status.phase", () => {
    expect(namespaceStrategy.policy).toMatchObject({
      deleteReturnsObject: true,
      nameRule: "label",
    });
    expect(
      namespaceStrategy.policy?.selectableFields?.["status.phase"]?.({
        status: { phase: "Active" },
      }),
    ).toBe("Active");
    expect(definedHooks(namespaceStrategy)).toEqual([
      "prepareForCreate",
      "applyDefaults",
      "beforeDelete",
    ]);
    expect(namespaceStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Status",
      "Age",
    ]);
  });
});
