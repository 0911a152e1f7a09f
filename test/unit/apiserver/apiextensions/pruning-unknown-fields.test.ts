import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import type { JSONSchemaProps } from "../../../../packages/apiserver/src/apiextensions/schema-props.js";
import {
  pruneUnknownFields,
  pruneValue,
} from "../../../../packages/apiserver/src/apiextensions/pruning/prune-unknown-fields.js";

/** The schema of kube's field validation integration test (test/integration/apiserver/field_validation_test.go). */
const SCHEMA: JSONSchemaProps = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        knownField1: { type: "string" },
        embeddedObj: {
          "x-kubernetes-embedded-resource": true,
          type: "object",
          properties: {
            apiversion: { type: "string" },
            kind: { type: "string" },
            metadata: { type: "object" },
          },
        },
        ports: {
          type: "array",
          items: {
            type: "object",
            properties: {
              containerPort: { type: "integer" },
              hostPort: { type: "integer" },
              name: { type: "string" },
              protocol: { type: "string" },
            },
          },
        },
      },
    },
  },
};

describe("pruneUnknownFields", () => {
  it("reports unknown fields in kube's order: root metadata, pruned (sorted), embedded metadata", () => {
    const obj: JsonObject = {
      apiVersion: "example.com/v1",
      kind: "Thing",
      metadata: { name: "n", unknownMeta: "metaVal", resourceVersion: "1" },
      spec: {
        unknown1: "val1",
        unknownDupe: "valDupe2",
        knownField1: "val2",
        ports: [{ name: "p", containerPort: 8080, protocol: "TCP", unknownNested: "val" }],
        embeddedObj: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "my-cm", namespace: "my-ns", unknownEmbeddedMeta: "foo" },
        },
      },
    };
    const before = structuredClone(obj);
    const { value, unknownFields } = pruneUnknownFields(obj, SCHEMA, { isResourceRoot: true });
    expect(unknownFields).toEqual([
      "metadata.unknownMeta",
      "spec.ports[0].unknownNested",
      "spec.unknown1",
      "spec.unknownDupe",
      "spec.embeddedObj.metadata.unknownEmbeddedMeta",
    ]);
    expect(value).toEqual({
      apiVersion: "example.com/v1",
      kind: "Thing",
      metadata: { name: "n", resourceVersion: "1" },
      spec: {
        knownField1: "val2",
        ports: [{ name: "p", containerPort: 8080, protocol: "TCP" }],
        embeddedObj: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "my-cm", namespace: "my-ns" },
        },
      },
    });
    expect(obj).toEqual(before);
  });

  it("keeps unknown fields under x-kubernetes-preserve-unknown-fields, pruning specified ones", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-preserve-unknown-fields": true,
          properties: { known: { type: "object", properties: { a: { type: "string" } } } },
        },
      },
    };
    const { value, unknownFields } = pruneUnknownFields(
      { spec: { free: { x: [1, { y: 2 }] }, known: { a: "1", b: "2" } } },
      schema,
    );
    expect(value).toEqual({ spec: { free: { x: [1, { y: 2 }] }, known: { a: "1" } } });
    expect(unknownFields).toEqual(["spec.known.b"]);
  });

  it("keeps every key of a map (additionalProperties) and prunes inside its values", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      additionalProperties: { type: "object", properties: { a: { type: "integer" } } },
    };
    const { value, unknownFields } = pruneUnknownFields({ k1: { a: 1, b: 2 }, k2: {} }, schema);
    expect(value).toEqual({ k1: { a: 1 }, k2: {} });
    expect(unknownFields).toEqual(["k1.b"]);
  });

  it("empties objects under a schema-less map value (additionalProperties: true)", () => {
    const schema: JSONSchemaProps = { type: "object", additionalProperties: true };
    const { value, unknownFields } = pruneUnknownFields({ k: { a: 1 }, s: "x" }, schema);
    expect(value).toEqual({ k: {}, s: "x" });
    expect(unknownFields).toEqual(["k.a"]);
  });

  it("drops apiVersion, kind and metadata silently at a root that is not a resource", () => {
    const schema: JSONSchemaProps = { type: "object", properties: { a: { type: "string" } } };
    const { value, unknownFields } = pruneUnknownFields(
      { apiVersion: "v1", kind: "K", metadata: {}, a: "x", b: 1 },
      schema,
    );
    expect(value).toEqual({ a: "x" });
    expect(unknownFields).toEqual(["b"]);
  });

  it("removes non-nullable nulls that have no default, keeps the others", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        a: { type: "string" },
        b: { type: "string", nullable: true },
        c: { type: "string", default: "d" },
        l: { type: "array", items: { type: "object", properties: { x: { type: "string" } } } },
      },
    };
    const { value, unknownFields } = pruneUnknownFields(
      { a: null, b: null, c: null, l: [{ x: null }] },
      schema,
    );
    expect(value).toEqual({ b: null, c: null, l: [{}] });
    expect(unknownFields).toEqual([]);
  });

  it("sorts pruned paths by bytes as Go's sort.Strings", () => {
    const schema: JSONSchemaProps = { type: "object", properties: {} };
    const { unknownFields } = pruneUnknownFields({ b: 1, B: 1, a: 1, é: 1, z: 1 }, schema);
    expect(unknownFields).toEqual(["B", "a", "b", "z", "é"]);
  });

  it("prunes any value (pruneValue), e.g. a default", () => {
    const node: JsonObject = { type: "object", properties: { a: { type: "integer" } } };
    expect(pruneValue({ a: 1, b: { c: 1 } }, node, false)).toEqual({
      value: { a: 1 },
      unknownFields: ["b"],
    });
    expect(pruneValue([{ a: 1, b: 2 }], { type: "array", items: node }, false)).toEqual({
      value: [{ a: 1 }],
      unknownFields: ["[0].b"],
    });
  });
});
