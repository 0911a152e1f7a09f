import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import {
  customResourceDefinitionStrategy,
  withCondition,
} from "../../../../packages/apiserver/src/kinds/custom-resource-definition.js";
import { DELETE_NOW, frozen, hooksOf, messages } from "./kind-test-helpers.js";

/**
 * apiextensions.k8s.io/v1 CustomResourceDefinitions
 * (`staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition/strategy.go`,
 * `pkg/apis/apiextensions/validation/validation.go`).
 */

const crd = hooksOf(customResourceDefinitionStrategy);

function crdWith(spec: JsonObject, name = "widgets.example.com"): JsonObject {
  return {
    metadata: { name },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
      versions: [
        { name: "v1", served: true, storage: true },
        { name: "v1beta1", served: true, storage: false },
      ],
      ...spec,
    },
  };
}

describe("CustomResourceDefinition create", () => {
  it("starts with an empty status holding the storage version", () => {
    expect(
      crd.prepareForCreate({ ...crdWith({}), status: { storedVersions: ["v0"] } })["status"],
    ).toEqual({
      conditions: [],
      acceptedNames: { plural: "", kind: "" },
      storedVersions: ["v1"],
    });
  });

  it("accepts a valid definition, on create and update", () => {
    expect(crd.validateCreate(crdWith({}))).toEqual([]);
    expect(crd.validateUpdate(crdWith({}), crdWith({}))).toEqual([]);
  });

  it("requires the name to be <plural>.<group>", () => {
    expect(messages(crd.validateCreate(crdWith({}, "widget.example.com")))).toEqual([
      'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group',
    ]);
  });

  it("requires exactly one storage version", () => {
    const versions = [
      { name: "v1", storage: true },
      { name: "v2", storage: true },
    ];
    expect(messages(crd.validateCreate(crdWith({ versions })))).toEqual([
      'spec.versions: Invalid value: [{"name":"v1","storage":true},{"name":"v2","storage":true}]: must have exactly one version marked as storage version',
    ]);
  });
});

describe("CustomResourceDefinition delete", () => {
  it("adds the cleanup finalizer and a Terminating condition", () => {
    const established = {
      ...crdWith({}),
      status: {
        conditions: [
          { type: "Established", status: "True" },
          { type: "Terminating", status: "False" },
        ],
      },
    };
    expect(crd.beforeDelete(established)).toEqual({
      addFinalizers: ["customresourcecleanup.apiextensions.k8s.io"],
      status: {
        conditions: [
          { type: "Established", status: "True" },
          {
            type: "Terminating",
            status: "True",
            lastTransitionTime: DELETE_NOW,
            reason: "InstanceDeletionPending",
            message:
              "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
          },
        ],
      },
    });
  });

  it("withCondition adds a condition to a status without any", () => {
    expect(withCondition(frozen({}), frozen({ type: "Established", status: "True" }))).toEqual({
      conditions: [{ type: "Established", status: "True" }],
    });
  });

  it("tracks generation, needs a resourceVersion to update, answers DELETE with the object", () => {
    expect(customResourceDefinitionStrategy.policy).toEqual({
      tracksGeneration: true,
      allowUnconditionalUpdate: false,
      deleteReturnsObject: true,
    });
  });
});
