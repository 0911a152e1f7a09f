import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import {
  customResourceDefinitionName,
  customResourceDefinitions,
} from "../../../../packages/apiserver/src/apiextensions/openapi/custom-resource-definitions.js";

function kindOf(schema: JsonObject | undefined, flavor: "v2" | "v3"): JsonObject {
  const defs = customResourceDefinitions(
    {
      group: "example.com",
      version: "v1",
      kind: "Widget",
      listKind: "WidgetList",
      schema,
      selectableFields: [],
    },
    flavor,
  );
  return defs.get("com.example.v1.Widget") as JsonObject;
}

function specProps(def: JsonObject): JsonObject {
  return ((def["properties"] as JsonObject)["spec"] as JsonObject)["properties"] as JsonObject;
}

describe("customResourceDefinitions", () => {
  it("names definitions by the reversed group", () => {
    expect(customResourceDefinitionName("stable.example.com", "v1beta1", "CronTab")).toBe(
      "com.example.stable.v1beta1.CronTab",
    );
  });

  it("without a schema publishes a bare object with the GVK", () => {
    expect(kindOf(undefined, "v3")).toEqual({
      type: "object",
      "x-kubernetes-group-version-kind": [{ group: "example.com", kind: "Widget", version: "v1" }],
    });
  });

  it("drops keywords a structural schema does not have and unknown types", () => {
    const def = kindOf(
      {
        type: "object",
        properties: {
          spec: {
            type: "object",
            properties: {
              a: { type: "string", $ref: "#/x", patternProperties: {} },
              b: { type: "date" },
              c: { type: 7 },
            },
          },
        },
      },
      "v3",
    );
    expect(specProps(def)).toEqual({ a: { type: "string" }, b: {}, c: {} });
  });

  it("keeps a property named __proto__ as a property", () => {
    const spec = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"}}}',
    ) as JsonObject;
    const def = kindOf({ type: "object", properties: { spec } }, "v3");
    expect(Object.keys(specProps(def))).toEqual(["__proto__"]);
  });

  it("bounds the depth it converts (deeper nodes preserve unknown fields)", () => {
    let leaf: JsonObject = { type: "string" };
    for (let i = 0; i < 200; i++) leaf = { type: "object", properties: { x: leaf } };
    const def = kindOf({ type: "object", properties: { spec: leaf } }, "v3");
    let node = (def["properties"] as JsonObject)["spec"] as JsonObject;
    let depth = 0;
    while (node["properties"]) {
      node = (node["properties"] as JsonObject)["x"] as JsonObject;
      depth++;
    }
    expect(depth).toBeLessThan(70);
    expect(node).toEqual({ "x-kubernetes-preserve-unknown-fields": true });
  });

  it("lowers nullable and junctors for v2 and unfolds int-or-string for v3", () => {
    const schema: JsonObject = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          required: ["n", "m"],
          properties: {
            n: { type: "object", nullable: true, properties: { a: { type: "string" } } },
            m: { type: "string", anyOf: [{ pattern: "^a" }, { pattern: "^b" }] },
            list: { type: "array" },
            ios: { "x-kubernetes-int-or-string": true, allOf: [{ maximum: 3 }] },
            ios2: { "x-kubernetes-int-or-string": true, anyOf: [{ maximum: 3 }, { minimum: 1 }] },
          },
        },
      },
    };
    const v2 = specProps(kindOf(schema, "v2"));
    expect(v2["n"]).toEqual({});
    expect(v2["m"]).toEqual({ type: "string" });
    expect(v2["list"]).toEqual({});
    const v2Spec = (kindOf(schema, "v2")["properties"] as JsonObject)["spec"] as JsonObject;
    expect(v2Spec["required"]).toEqual(["m"]);
    const v3 = specProps(kindOf(schema, "v3"));
    const intOrString = [{ type: "integer" }, { type: "string" }];
    expect(v3["ios"]).toEqual({
      "x-kubernetes-int-or-string": true,
      anyOf: intOrString,
      allOf: [{ maximum: 3 }],
    });
    expect(v3["ios2"]).toEqual({
      "x-kubernetes-int-or-string": true,
      anyOf: [{ maximum: 3 }, { minimum: 1 }],
      allOf: [{ anyOf: intOrString }],
    });
  });

  it("for v2, a root that preserves unknown fields is a bare object", () => {
    const def = kindOf(
      { type: "object", "x-kubernetes-preserve-unknown-fields": true, properties: {} },
      "v2",
    );
    expect(def["type"]).toBe("object");
    expect(def["properties"]).toBeUndefined();
  });
});
