import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { createErrors, crdWithSchema, ROOT, schemaErrors, withSpec } from "./crd-fixtures.js";

/**
 * The per-node rules of a CRD schema (`ValidateCustomResourceDefinitionOpenAPISchema` and
 * `specStandardValidatorV3` in apiextensions-apiserver
 * `pkg/apis/apiextensions/validation/validation.go`).
 */

const SPEC = `${ROOT}.properties[spec]`;

describe("keywords", () => {
  it("allows only OpenAPI v3 types, and no null type", () => {
    expect(schemaErrors(withSpec({ type: "map" }))).toEqual([
      `${SPEC}.type: Unsupported value: "map": supported values: "array", "boolean", "integer", "number", "object", "string"`,
    ]);
    expect(schemaErrors(withSpec({ type: "null" }))).toEqual([
      `${SPEC}.type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `${SPEC}.type: Forbidden: type cannot be set to null, use nullable as an alternative`,
    ]);
  });

  it("forbids the keywords kube does not support", () => {
    expect(
      schemaErrors(
        withSpec({
          type: "object",
          id: "x",
          additionalItems: false,
          patternProperties: { "^a": { type: "string" } },
          definitions: { d: { type: "string" } },
          dependencies: { a: ["b"] },
        }),
      ),
    ).toEqual([
      `${SPEC}.id: Forbidden: id is not supported`,
      `${SPEC}.additionalItems: Forbidden: additionalItems is not supported`,
      `${SPEC}.patternProperties: Forbidden: patternProperties is not supported`,
      `${SPEC}.definitions: Forbidden: definitions is not supported`,
      `${SPEC}.dependencies: Forbidden: dependencies is not supported`,
    ]);
    expect(schemaErrors(withSpec({ type: "array", items: [{ type: "string" }] }))).toEqual([
      `${SPEC}.items: Forbidden: items must be a schema object and not an array`,
    ]);
  });

  it("forbids uniqueItems true (quadratic), and properties next to additionalProperties", () => {
    expect(
      schemaErrors(withSpec({ type: "array", items: { type: "string" }, uniqueItems: true })),
    ).toEqual([
      `${SPEC}.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
    ]);
    expect(
      schemaErrors(
        withSpec({
          type: "object",
          properties: { a: { type: "string" } },
          additionalProperties: { type: "string" },
        }),
      ),
    ).toEqual([
      `${SPEC}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
    ]);
    expect(
      schemaErrors(
        withSpec({
          type: "object",
          properties: { a: { type: "string" } },
          additionalProperties: true,
        }),
      ),
    ).toEqual([]);
  });

  it("forbids defaults in top-level metadata and inside maps applying to metadata", () => {
    expect(
      schemaErrors({
        type: "object",
        properties: { apiVersion: { type: "string", default: "example.com/v1" } },
      }),
    ).toEqual([
      `${ROOT}.properties[apiVersion].default: Forbidden: must not be set in top-level apiVersion`,
    ]);
  });

  it("refuses x-kubernetes-preserve-unknown-fields false", () => {
    expect(
      schemaErrors(withSpec({ type: "object", "x-kubernetes-preserve-unknown-fields": false })),
    ).toContain(
      `${SPEC}.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
    );
  });
});

describe("list and map extensions", () => {
  const list = (extra: JsonObject): JsonObject =>
    withSpec({ type: "array", items: { type: "string" }, ...extra });

  it("checks list types, map types and the types they need", () => {
    expect(schemaErrors(list({ "x-kubernetes-list-type": "bag" }))).toEqual([
      `${SPEC}.x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
    ]);
    expect(schemaErrors(withSpec({ type: "string", "x-kubernetes-list-type": "atomic" }))).toEqual([
      `${SPEC}.type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`,
    ]);
    expect(schemaErrors(withSpec({ type: "object", "x-kubernetes-map-type": "loose" }))).toEqual([
      `${SPEC}.x-kubernetes-map-type: Unsupported value: "loose": supported values: "atomic", "granular"`,
    ]);
    expect(schemaErrors(list({ "x-kubernetes-list-map-keys": ["a"] }))).toEqual([
      `${SPEC}.x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
    ]);
  });

  it("requires map lists to have object items with scalar, required or defaulted keys", () => {
    expect(schemaErrors(list({ "x-kubernetes-list-type": "map" }))).toEqual([
      `${SPEC}.x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `${SPEC}.items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`,
    ]);
    expect(
      schemaErrors(
        withSpec({
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name", "name", "port"],
          items: {
            type: "object",
            required: ["name"],
            properties: { name: { type: "string" }, port: { type: "integer", nullable: true } },
          },
        }),
      ),
    ).toEqual([
      `${SPEC}.x-kubernetes-list-map-keys: Invalid value: ["name","name","port"]: must not contain duplicate entries`,
      `${SPEC}.items.properties[port].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `${SPEC}.items.properties[port].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
    ]);
  });

  it("requires atomic, non-nullable items in a set", () => {
    expect(
      schemaErrors(
        withSpec({
          type: "array",
          "x-kubernetes-list-type": "set",
          items: { type: "object", nullable: true, "x-kubernetes-preserve-unknown-fields": true },
        }),
      ),
    ).toEqual([
      `${SPEC}.items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set`,
      `${SPEC}.items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set`,
    ]);
  });
});

describe("x-kubernetes-validations before CEL", () => {
  const rules = (r: JsonObject[]): JsonObject =>
    withSpec({
      type: "object",
      properties: { a: { type: "string" } },
      "x-kubernetes-validations": r,
    });
  const at = `${SPEC}.x-kubernetes-validations`;

  it("requires a rule, a one-line message, a message for multi-line rules", () => {
    expect(schemaErrors(rules([{ rule: " " }]))).toEqual([
      `${at}[0].rule: Required value: rule is not specified`,
    ]);
    expect(schemaErrors(rules([{ rule: "true", message: "a\nb" }]))).toEqual([
      `${at}[0].message: Invalid value: "a\\nb": message must not contain line breaks`,
    ]);
    expect(schemaErrors(rules([{ rule: "true &&\ntrue" }]))).toEqual([
      `${at}[0].message: Required value: message must be specified if rule contains line breaks`,
    ]);
  });

  it("checks reason, messageExpression and fieldPath", () => {
    expect(
      schemaErrors(
        rules([
          { rule: "true", reason: "FieldValueWrong", messageExpression: " ", fieldPath: ".b" },
        ]),
      ),
    ).toEqual([
      `${at}[0].messageExpression: Required value: messageExpression must be non-empty if specified`,
      `${at}[0].reason: Unsupported value: "FieldValueWrong": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      `${at}[0].fieldPath: Invalid value: ".b": fieldPath must be a valid path`,
    ]);
    expect(schemaErrors(rules([{ rule: "true", fieldPath: ".a" }]))).toEqual([]);
  });
});

describe("the schema root", () => {
  it("forbids nullable at the root", () => {
    expect(schemaErrors({ type: "object", nullable: true })).toEqual([
      `${ROOT}.nullable: Forbidden: nullable cannot be true at the root`,
    ]);
  });

  it("restricts the root keywords when the status subresource is enabled", () => {
    const crd = crdWithSchema({ type: "object", minProperties: 1 });
    const versions = (crd["spec"] as JsonObject)["versions"] as JsonObject[];
    (versions[0] as JsonObject)["subresources"] = { status: {} };
    expect(createErrors(crd)).toEqual([
      `spec.validation.openAPIV3Schema: Invalid value: {"minProperties":1,"type":"object"}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`,
    ]);
  });

  it("names a schema per version when the versions' schemas differ", () => {
    const crd = crdWithSchema(withSpec({ type: "object" }));
    const versions = (crd["spec"] as JsonObject)["versions"] as JsonObject[];
    versions.push({
      name: "v2",
      served: true,
      storage: false,
      schema: { openAPIV3Schema: withSpec({ type: "bogus" }) },
    });
    expect(createErrors(crd)).toEqual([
      `spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Unsupported value: "bogus": supported values: "array", "boolean", "integer", "number", "object", "string"`,
    ]);
  });
});
