import { describe, expect, it } from "vitest";
import { ROOT, schemaErrors, withSpec } from "./crd-fixtures.js";

/**
 * Defaults (`ValidateDefaults` in apiextensions-apiserver
 * `pkg/apiserver/schema/defaulting/validation.go`) and CEL rules compiled against the schema
 * (the CEL part of `pkg/apis/apiextensions/validation/validation.go`) in a CRD create.
 */

const SPEC = `${ROOT}.properties[spec]`;

describe("defaults", () => {
  it("accepts defaults that are valid and pruned", () => {
    expect(
      schemaErrors(
        withSpec({
          type: "object",
          default: { size: 1 },
          properties: {
            size: { type: "integer", default: 3 },
            tags: { type: "array", items: { type: "string" }, default: ["a"] },
          },
        }),
      ),
    ).toEqual([]);
  });

  it("refuses a default of the wrong type, at the default's path", () => {
    const errors = schemaErrors(
      withSpec({ type: "object", properties: { size: { type: "integer", default: "big" } } }),
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[size\]\.default: Invalid value: "string": .*must be of type integer/,
    );
  });

  it("refuses a default with fields the schema would prune", () => {
    expect(
      schemaErrors(
        withSpec({
          type: "object",
          default: { size: 1, color: "red" },
          properties: { size: { type: "integer" } },
        }),
      ),
    ).toEqual([
      `${SPEC}.default: Invalid value: {"color":"red","size":1}: must not have unknown fields`,
    ]);
    expect(
      schemaErrors(
        withSpec({
          type: "array",
          default: [{ name: "a", port: 1 }],
          items: { type: "object", properties: { name: { type: "string" } } },
        }),
      ),
    ).toEqual([
      `${SPEC}.default: Invalid value: [{"name":"a","port":1}]: must not have unknown fields`,
    ]);
  });

  it("refuses a default that fails the node's CEL rules", () => {
    expect(
      schemaErrors(
        withSpec({
          type: "object",
          properties: {
            size: {
              type: "integer",
              default: 0,
              "x-kubernetes-validations": [{ rule: "self > 0", message: "size must be positive" }],
            },
          },
        }),
      ),
    ).toEqual([
      `${SPEC}.properties[size].default: Invalid value: "integer": size must be positive`,
    ]);
  });
});

describe("CEL rules", () => {
  it("compiles rules against the schema's types, naming each rule that does not compile", () => {
    const errors = schemaErrors(
      withSpec({
        type: "object",
        properties: { min: { type: "integer" }, max: { type: "integer" } },
        "x-kubernetes-validations": [
          { rule: "self.min <= self.max" },
          { rule: "self.min == 'zero'" },
          { rule: "self.nope > 1" },
        ],
      }),
    );
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(
      /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[1\]\.rule: Invalid value: "self\.min == 'zero'": compilation failed: /,
    );
    expect(errors[1]).toMatch(
      /x-kubernetes-validations\[2\]\.rule: Invalid value: "self\.nope > 1": compilation failed: .*undefined field 'nope'/,
    );
  });

  it("compiles nothing while the schema itself has errors", () => {
    expect(
      schemaErrors(
        withSpec({
          type: "object",
          properties: { a: { type: "bogus" } },
          "x-kubernetes-validations": [{ rule: "self.a == 'x' +" }],
        }),
      ),
    ).toEqual([
      `${SPEC}.properties[a].type: Unsupported value: "bogus": supported values: "array", "boolean", "integer", "number", "object", "string"`,
    ]);
  });

  it("still compiles the rules of nodes without schema errors", () => {
    const errors = schemaErrors({
      type: "object",
      properties: {
        status: { type: "bogus" },
        spec: {
          type: "object",
          properties: { a: { type: "integer" } },
          "x-kubernetes-validations": [{ rule: "self.a == 'x'" }],
        },
      },
    });
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(
      /^spec\.validation\.openAPIV3Schema\.properties\[status\]\.type: Unsupported value/,
    );
    expect(errors[1]).toMatch(
      /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: "self\.a == 'x'": compilation failed/,
    );
  });

  it("refuses an expensive rule at creation", () => {
    const errors = schemaErrors(
      withSpec({
        type: "object",
        properties: { items: { type: "array", items: { type: "string" } } },
        "x-kubernetes-validations": [
          { rule: "self.items.all(a, self.items.all(b, self.items.all(c, a + b + c != '')))" },
        ],
      }),
    );
    expect(errors).toContain(
      `${SPEC}.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    );
  });
});
