import { describe, expect, it } from "vitest";
import type { JsonValue } from "kubekit";
import { formatFieldError } from "../../../../packages/kubekit/src/core/field-errors.js";
import type { JSONSchemaProps } from "../../../../packages/apiserver/src/apiextensions/schema-props.js";
import { validateSchemaValue } from "../../../../packages/apiserver/src/apiextensions/validation/validate-schema-value.js";

const SCHEMA: JSONSchemaProps = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        size: { type: "integer", maximum: 5 },
        name: { type: "string", maxLength: 3 },
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["port"],
          items: {
            type: "object",
            properties: {
              port: { type: "integer" },
              name: { type: "string", pattern: "^[a-z]+$" },
            },
          },
        },
        tags: { type: "array", items: { type: "string", maxLength: 2 } },
      },
    },
  },
};

function update(value: JsonValue, oldValue: JsonValue): string[] {
  return validateSchemaValue(value, SCHEMA, "", { oldValue }).map(formatFieldError);
}

describe("validateSchemaValue with oldValue (CRD validation ratcheting)", () => {
  it("drops errors of fields unchanged since the old object", () => {
    const old = { spec: { size: 10, name: "long" } };
    expect(update({ spec: { size: 10, name: "long" } }, old)).toEqual([]);
    expect(update({ spec: { size: 11, name: "long" } }, old)).toEqual([
      "spec.size: Invalid value: 11: spec.size in body should be less than or equal to 5",
    ]);
  });

  it("reports every error without an old value", () => {
    expect(validateSchemaValue({ spec: { size: 10 } }, SCHEMA, "")).toHaveLength(1);
  });

  it("correlates map-list items by their keys, whatever their order", () => {
    const old = {
      spec: {
        ports: [
          { port: 1, name: "BAD" },
          { port: 2, name: "ok" },
        ],
      },
    };
    expect(
      update(
        {
          spec: {
            ports: [
              { port: 2, name: "ok" },
              { port: 1, name: "BAD" },
            ],
          },
        },
        old,
      ),
    ).toEqual([]);
    expect(update({ spec: { ports: [{ port: 3, name: "BAD" }] } }, old)).toEqual([
      "spec.ports[0].name: Invalid value: \"BAD\": spec.ports[0].name in body should match '^[a-z]+$'",
    ]);
  });

  it("does not correlate items of atomic lists", () => {
    const old = { spec: { tags: ["long", "ok"] } };
    expect(update({ spec: { tags: ["long", "ok", "x"] } }, old)).toEqual([
      "spec.tags[0]: Too long: may not be more than 2 bytes",
    ]);
  });
});
