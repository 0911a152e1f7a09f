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

const SCHEMA = { openAPIV3Schema: { type: "object" } };

function crdWith(spec: JsonObject, name = "widgets.example.com"): JsonObject {
  return {
    metadata: { name },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
      versions: [
        { name: "v1", served: true, storage: true, schema: SCHEMA },
        { name: "v1beta1", served: true, storage: false, schema: SCHEMA },
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

  it("defaults singular, listKind, the conversion strategy and a conversion service's port", () => {
    const obj = crdWith({
      names: { plural: "widgets", kind: "Widget" },
      conversion: {
        strategy: "Webhook",
        webhook: { clientConfig: { service: { name: "s", namespace: "n" } } },
      },
    });
    const spec = crd.applyDefaults(obj)["spec"] as JsonObject;
    expect(spec["names"]).toEqual({
      plural: "widgets",
      kind: "Widget",
      singular: "widget",
      listKind: "WidgetList",
    });
    expect(spec["conversion"]).toEqual({
      strategy: "Webhook",
      webhook: { clientConfig: { service: { name: "s", namespace: "n", port: 443 } } },
    });
    expect((crd.applyDefaults(crdWith({}))["spec"] as JsonObject)["conversion"]).toEqual({
      strategy: "None",
    });
  });

  it("accepts a valid definition, on create and update", () => {
    const created = crd.created(crdWith({}));
    expect(crd.validateCreate(created)).toEqual([]);
    expect(crd.validateUpdate(crd.updated(created, created), created)).toEqual([]);
  });

  it("requires the name to be <plural>.<group>", () => {
    expect(messages(crd.validateCreate(crd.created(crdWith({}, "widget.example.com"))))).toEqual([
      'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group',
    ]);
  });

  it("requires exactly one storage version", () => {
    const versions = [
      { name: "v1", storage: true, schema: SCHEMA },
      { name: "v2", storage: true, schema: SCHEMA },
    ];
    expect(messages(crd.validateCreate(crd.created(crdWith({ versions }))))).toEqual([
      'spec.versions: Invalid value: [{"name":"v1","storage":true},{"name":"v2","storage":true}]: must have exactly one version marked as storage version',
      // kube records only the first storage version on create.
      'status.storedVersions: Invalid value: ["v1"]: must have the storage version v2',
    ]);
  });
});

describe("CustomResourceDefinition update", () => {
  it("keeps the stored status and records a new storage version in storedVersions", () => {
    const old = {
      ...crd.created(crdWith({})),
      status: { storedVersions: ["v1"], conditions: [{ type: "Established", status: "True" }] },
    };
    const next = crdWith({
      versions: [
        { name: "v1", served: true, storage: false, schema: SCHEMA },
        { name: "v2", served: true, storage: true, schema: SCHEMA },
      ],
    });
    expect(
      crd.prepareForUpdate({ ...next, status: { storedVersions: [] } }, old)["status"],
    ).toEqual({
      storedVersions: ["v1", "v2"],
      conditions: [{ type: "Established", status: "True" }],
    });
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
