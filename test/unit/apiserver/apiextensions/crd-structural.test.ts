import { describe, expect, it } from "vitest";
import { resolveFieldPath } from "../../../../packages/apiserver/src/apiextensions/structural/field-path.js";
import { isNonStructural } from "../../../../packages/apiserver/src/apiextensions/structural/validate-structural.js";
import { ROOT, schemaErrors, withSpec } from "./crd-fixtures.js";

/**
 * Structural schemas (apiextensions-apiserver `pkg/apiserver/schema/validation.go`,
 * `complete.go`, `convert.go`) as a CRD create reports them.
 */

describe("types on every specified node", () => {
  it("requires a type at the root, on fields and on array items, each with kube's words", () => {
    expect(schemaErrors({ properties: { spec: { type: "object" } } })).toEqual([
      `${ROOT}.type: Required value: must not be empty at the root`,
    ]);
    expect(schemaErrors(withSpec({ properties: { a: { type: "string" } } }))).toEqual([
      `${ROOT}.properties[spec].type: Required value: must not be empty for specified object fields`,
    ]);
    expect(schemaErrors(withSpec({ type: "array", items: { description: "x" } }))).toEqual([
      `${ROOT}.properties[spec].items.type: Required value: must not be empty for specified array items`,
    ]);
  });

  it("accepts no type under x-kubernetes-preserve-unknown-fields or x-kubernetes-int-or-string", () => {
    expect(schemaErrors(withSpec({ "x-kubernetes-preserve-unknown-fields": true }))).toEqual([]);
    expect(schemaErrors(withSpec({ "x-kubernetes-int-or-string": true }))).toEqual([]);
    expect(
      schemaErrors(
        withSpec({
          "x-kubernetes-int-or-string": true,
          anyOf: [{ type: "integer" }, { type: "string" }],
        }),
      ),
    ).toEqual([]);
    expect(
      schemaErrors(
        withSpec({
          "x-kubernetes-int-or-string": true,
          allOf: [{ anyOf: [{ type: "integer" }, { type: "string" }] }, { pattern: "^[0-9]+%?$" }],
        }),
      ),
    ).toEqual([]);
  });

  it("requires type object at the root and items on arrays", () => {
    expect(schemaErrors({ type: "string" })).toEqual([
      `${ROOT}.type: Invalid value: "string": must be object at the root`,
    ]);
    expect(schemaErrors(withSpec({ type: "array" }))).toEqual([
      `${ROOT}.properties[spec].items: Required value: must be specified`,
    ]);
  });

  it("refuses int-or-string together with preserve-unknown-fields or embedded-resource", () => {
    expect(
      schemaErrors(
        withSpec({
          "x-kubernetes-int-or-string": true,
          "x-kubernetes-preserve-unknown-fields": true,
        }),
      ),
    ).toEqual([
      `${ROOT}.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
    ]);
  });
});

describe("value validations only restrict", () => {
  it("forbids specifying under allOf/anyOf/oneOf/not, in sorted order", () => {
    expect(
      schemaErrors(
        withSpec({
          type: "string",
          anyOf: [{ type: "string", description: "d", nullable: true }],
          not: { default: "x", "x-kubernetes-validations": [{ rule: "true" }] },
        }),
      ),
    ).toEqual([
      `${ROOT}.properties[spec].anyOf[0].description: Forbidden: must be empty to be structural`,
      `${ROOT}.properties[spec].anyOf[0].nullable: Forbidden: must be false to be structural`,
      `${ROOT}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${ROOT}.properties[spec].not.default: Forbidden: must be undefined to be structural`,
      `${ROOT}.properties[spec].not.x-kubernetes-validations: Forbidden: must be empty to be structural`,
    ]);
  });

  it("requires what a root value validation names to be specified structurally", () => {
    // kube checks completeness for the junctors of the root schema only (complete.go).
    expect(
      schemaErrors({
        type: "object",
        properties: { spec: { type: "object" } },
        oneOf: [{ required: ["spec"] }, { properties: { status: { minProperties: 1 } } }],
      }),
    ).toEqual([
      `${ROOT}.properties[status]: Required value: because it is defined in ${ROOT}.oneOf[1].properties[status]`,
    ]);
  });

  it("reports a pattern that is not a Go regular expression with Go's message", () => {
    expect(schemaErrors(withSpec({ type: "string", pattern: "[a" }))).toEqual([
      `${ROOT}.properties[spec].pattern: Invalid value: "[a": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: \`[a\``,
    ]);
  });
});

describe("metadata and embedded resources", () => {
  it("restricts the root metadata to name and generateName", () => {
    expect(
      schemaErrors({
        type: "object",
        properties: {
          metadata: { type: "object", properties: { name: { type: "string", maxLength: 10 } } },
        },
      }),
    ).toEqual([]);
    expect(
      schemaErrors({
        type: "object",
        properties: { metadata: { type: "object", properties: { labels: { type: "object" } } } },
      }),
    ).toEqual([
      `${ROOT}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
  });

  it("checks kind, apiVersion and metadata types at a resource root", () => {
    expect(
      schemaErrors({
        type: "object",
        properties: { kind: { type: "integer" }, metadata: { type: "string" } },
      }),
    ).toEqual([
      `${ROOT}.properties[kind].type: Invalid value: "integer": must be string`,
      `${ROOT}.properties[metadata].type: Invalid value: "string": must be object`,
    ]);
  });

  it("forbids metadata in a nested context", () => {
    expect(
      schemaErrors(withSpec({ type: "object", allOf: [{ properties: { metadata: {} } }] })),
    ).toContain(
      `${ROOT}.properties[spec].allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
    );
  });

  it("needs an object type and properties (or preserve-unknown-fields) for an embedded resource", () => {
    expect(schemaErrors(withSpec({ "x-kubernetes-embedded-resource": true }))).toEqual([
      `${ROOT}.properties[spec].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${ROOT}.properties[spec].type: Required value: must be object if x-kubernetes-embedded-resource is true`,
    ]);
    expect(
      schemaErrors(
        withSpec({
          type: "object",
          "x-kubernetes-embedded-resource": true,
          "x-kubernetes-preserve-unknown-fields": true,
        }),
      ),
    ).toEqual([]);
  });

  it("forbids additionalProperties at the root", () => {
    expect(schemaErrors({ type: "object", additionalProperties: { type: "string" } })).toEqual([
      `${ROOT}.additionalProperties: Forbidden: must not be used at the root`,
    ]);
  });
});

describe("schemas NewStructural refuses", () => {
  it("reports the conversion error at the schema only when nothing else failed", () => {
    expect(schemaErrors(withSpec({ type: "object", $schema: "http://json-schema.org/x" }))).toEqual(
      [`${ROOT}: Invalid value: "": OpenAPIV3Schema 'schema' is not supported`],
    );
    expect(schemaErrors(withSpec({ type: "object", $ref: "#/definitions/x" }))).toEqual([
      `${ROOT}.properties[spec].$ref: Forbidden: $ref is not supported`,
    ]);
  });

  it("tells structural from non-structural schemas", () => {
    expect(isNonStructural({ type: "object" })).toBe(false);
    expect(isNonStructural({ type: "object", properties: { a: {} } })).toBe(true);
    expect(isNonStructural({ type: "object", definitions: { a: { type: "string" } } })).toBe(true);
  });
});

describe("JSON paths into a schema (ValidFieldPath)", () => {
  const schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: { size: { type: "integer" }, "x-y": { type: "string" } },
      },
      labels: { type: "object", additionalProperties: { type: "string" } },
    },
  };

  it("resolves fields, quoted fields and map keys", () => {
    expect(resolveFieldPath(".spec.size", schema)).toMatchObject({
      path: "spec.size",
      root: "spec",
      schema: { type: "integer" },
    });
    expect(resolveFieldPath(".spec['x-y']", schema)).toMatchObject({ path: "spec.x-y" });
    expect(resolveFieldPath(".labels['app']", schema)).toMatchObject({
      path: "labels[app]",
      schema: { type: "string" },
    });
  });

  it("answers kube's errors", () => {
    expect(resolveFieldPath(".spec.nope", schema)).toEqual({
      error: "does not refer to a valid field",
    });
    expect(resolveFieldPath("spec", schema)).toEqual({ error: "expected [ or . but got: spec" });
    expect(resolveFieldPath(".spec[", schema)).toEqual({ error: "unexpected end of JSON path" });
    expect(resolveFieldPath(".spec['size'", schema)).toEqual({
      error: "unexpected end of JSON path",
    });
    expect(resolveFieldPath(".spec['size']", schema, { allowArrayNotation: false })).toEqual({
      error: "array notation is not allowed",
    });
    expect(resolveFieldPath(".spec['\\q']", schema)).toEqual({
      error: "invalid string literal: invalid escape char \\q",
    });
  });
});
