import { describe, expect, it } from "vitest";
import { CustomResourceSchema } from "../../../../packages/apiserver/src/apiextensions/custom-resource-schema.js";
import { formatGoSyntax } from "../../../../packages/apiserver/src/apiextensions/list-types/go-syntax.js";
import { shapeOfSchema } from "../../../../packages/apiserver/src/apiextensions/list-types/schema-apply-shape.js";
import { validateListTypes } from "../../../../packages/apiserver/src/apiextensions/list-types/validate-list-types.js";
import type { JSONSchemaProps } from "../../../../packages/apiserver/src/apiextensions/schema-props.js";
import { formatFieldError } from "../../../../packages/kubekit/src/core/field-errors.js";

const ITEMS: JSONSchemaProps = {
  type: "array",
  "x-kubernetes-list-type": "map",
  "x-kubernetes-list-map-keys": ["name", "port"],
  items: {
    type: "object",
    properties: {
      name: { type: "string" },
      port: { type: "integer", default: 80 },
      value: { type: "string" },
    },
  },
};

const SCHEMA: JSONSchemaProps = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        items: ITEMS,
        tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
        plain: { type: "array", items: { type: "string" } },
        labels: { type: "object", additionalProperties: { type: "string" } },
        selector: {
          type: "object",
          "x-kubernetes-map-type": "atomic",
          properties: { app: { type: "string" } },
        },
        port: { "x-kubernetes-int-or-string": true },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        color: { type: "string" },
        size: { type: "integer" },
      },
    },
  },
};

function version(extra: Record<string, unknown> = {}): CustomResourceSchema {
  return CustomResourceSchema.compile({
    name: "v1",
    served: true,
    storage: true,
    schema: { openAPIV3Schema: SCHEMA as never },
    ...(extra as Record<string, never>),
  });
}

describe("the apply shape of a CRD schema", () => {
  it("maps list types, map types and the root's metadata", () => {
    const root = version().applyShape;
    const spec = root.field("spec").shape;
    expect(spec.kind).toBe("struct");
    if (spec.kind !== "struct") return;
    expect(spec.field("items").shape).toMatchObject({
      kind: "list",
      keys: [{ name: "name" }, { name: "port", defaultValue: 80 }],
    });
    expect(spec.field("tags").shape).toEqual({ kind: "set" });
    expect(spec.field("plain").shape).toEqual({ kind: "leaf" });
    expect(spec.field("labels").shape).toEqual({ kind: "map", value: { kind: "leaf" } });
    expect(spec.field("selector").shape).toEqual({ kind: "leaf" });
    expect(spec.field("port").shape).toEqual({ kind: "leaf" });
    expect(spec.field("free").shape).toEqual({ kind: "dynamic" });
    expect(spec.field("undeclared").shape).toEqual({ kind: "dynamic" });
    expect(root.field("metadata").shape.kind).toBe("struct");
  });

  it("treats a schemaless value as dynamic", () => {
    expect(shapeOfSchema({ "x-kubernetes-preserve-unknown-fields": true })).toEqual({
      kind: "dynamic",
    });
  });
});

describe("list-type invariants", () => {
  it("reports duplicate keys and set values in kube's words", () => {
    const errors = validateListTypes(
      {
        spec: {
          items: [
            { name: "a", port: 1 },
            { name: "a", port: 1, value: "x" },
            { name: "a", port: 1 },
            { name: "b" },
          ],
          tags: ["x", "y", "x"],
        },
      },
      SCHEMA,
    );
    expect(errors.map(formatFieldError)).toEqual([
      'spec.items[1]: Duplicate value: map[string]interface {}{"name":"a", "port":1}',
      'spec.tags[2]: Duplicate value: "x"',
    ]);
  });

  it("requires objects in a map list", () => {
    const errors = validateListTypes({ spec: { items: [{ name: "a" }, "b"] } }, SCHEMA);
    expect(errors.map(formatFieldError)).toEqual([
      'spec.items[1]: Invalid value: "b": must be an object for an array of list-type map',
    ]);
  });

  it("ratchets on update: an old object that broke the invariants lets the new one through", () => {
    const schema = version();
    const bad = { apiVersion: "example.com/v1", kind: "Thing", spec: { tags: ["x", "x"] } };
    expect(schema.validate(bad, undefined).map(formatFieldError)).toEqual([
      'spec.tags[1]: Duplicate value: "x"',
    ]);
    expect(schema.validate(bad, bad)).toEqual([]);
  });
});

describe("Go's %#v of unstructured values", () => {
  it("prints maps with sorted keys, slices, nil and scalars", () => {
    expect(formatGoSyntax({ b: [1, "x", null], a: { c: true } })).toBe(
      'map[string]interface {}{"a":map[string]interface {}{"c":true}, "b":[]interface {}{1, "x", interface {}(nil)}}',
    );
  });
});

describe("selectable fields", () => {
  it("reads each field as text, empty when absent or not a scalar", () => {
    const schema = version({
      selectableFields: [{ jsonPath: ".spec.color" }, { jsonPath: ".spec.size" }],
    });
    expect(schema.selectableFields.map((f) => f.name)).toEqual(["spec.color", "spec.size"]);
    expect(schema.selectableValues({ spec: { color: "red", size: 2 } })).toEqual({
      "spec.color": "red",
      "spec.size": "2",
    });
    expect(schema.selectableValues({ spec: { size: { x: 1 } } })).toEqual({
      "spec.color": "",
      "spec.size": "",
    });
  });
});
