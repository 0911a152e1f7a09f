import { describe, expect, it } from "vitest";
import type { JsonValue } from "kubekit";
import type { JSONSchemaProps } from "../../../../packages/apiserver/src/apiextensions/schema-props.js";
import { fieldMessages, messagesOf } from "./validation-support.js";

type Case = [name: string, schema: JSONSchemaProps, value: JsonValue, expected: string[]];

describe("validateSchemaValue: enum", () => {
  const cases: Case[] = [
    ["member", { type: "string", enum: ["a", "b"] }, "a", []],
    [
      "not a member",
      { type: "string", enum: ["a", "b"] },
      "x",
      ['spec.x: Unsupported value: "x": supported values: "a", "b"'],
    ],
    [
      "numbers listed as JSON",
      { type: "integer", enum: [1, 2] },
      3,
      ['spec.x: Unsupported value: 3: supported values: "1", "2"'],
    ],
    [
      "null is never a member",
      { type: "string", nullable: true, enum: ["a"] },
      null,
      ['spec.x: Unsupported value: "null": supported values: "a"'],
    ],
    ["integer matches an equal float member", { type: "number", enum: [2.5, 3] }, 3, []],
    ["float converts to an int64 member (Go truncation)", { type: "number", enum: [1] }, 1.5, []],
    ["integer converts to a string member (Go rune)", { enum: ["a"] }, 97, []],
    ["object member", { type: "object", enum: [{ a: 1 }] }, { a: 1 }, []],
  ];
  it.each(cases)("%s", (_name, schema, value, expected) => {
    expect(fieldMessages(schema, value)).toEqual(expected);
  });

  it("looks a value up in a huge enum quickly", () => {
    const values = Array.from({ length: 200_000 }, (_, i) => `v${i}`);
    const schema: JSONSchemaProps = { type: "string", enum: values };
    for (let i = 0; i < 1000; i++) expect(fieldMessages(schema, `v${i * 199}`)).toEqual([]);
  });
});

describe("validateSchemaValue: strings", () => {
  const cases: Case[] = [
    [
      "maxLength",
      { type: "string", maxLength: 5 },
      "abcdef",
      ["spec.x: Too long: may not be more than 5 bytes"],
    ],
    ["maxLength counts runes", { type: "string", maxLength: 2 }, "éé", []],
    [
      "maxLength 1",
      { type: "string", maxLength: 1 },
      "ab",
      ["spec.x: Too long: may not be more than 1 byte"],
    ],
    [
      "minLength",
      { type: "string", minLength: 3 },
      "ab",
      ['spec.x: Invalid value: "ab": spec.x in body should be at least 3 chars long'],
    ],
    [
      "pattern",
      { type: "string", pattern: "^a+$" },
      "ab",
      ["spec.x: Invalid value: \"ab\": spec.x in body should match '^a+$'"],
    ],
    ["pattern is unanchored", { type: "string", pattern: "b" }, "abc", []],
    [
      "Go syntax: \\z",
      { type: "string", pattern: "^a\\z" },
      "a\n",
      ["spec.x: Invalid value: \"a\\n\": spec.x in body should match '^a\\z'"],
    ],
    [
      "invalid pattern is an error, not a crash",
      { type: "string", pattern: "(abc" },
      "abc",
      [
        "spec.x: Invalid value: \"abc\": spec.x in body should match '(abc, but pattern is invalid: error parsing regexp: missing closing ): `(abc`'",
      ],
    ],
    [
      "maxLength reported before pattern",
      { type: "string", maxLength: 1, pattern: "^a$" },
      "bb",
      ["spec.x: Too long: may not be more than 1 byte"],
    ],
  ];
  it.each(cases)("%s", (_name, schema, value, expected) => {
    expect(fieldMessages(schema, value)).toEqual(expected);
  });

  it("matches a pathological pattern in linear time (RE2)", () => {
    const value = `${"a".repeat(5000)}!`;
    expect(fieldMessages({ type: "string", pattern: "^(a+)+$" }, value)).toHaveLength(1);
  });
});

describe("validateSchemaValue: numbers", () => {
  const cases: Case[] = [
    [
      "minimum",
      { type: "integer", minimum: 1 },
      0,
      ["spec.x: Invalid value: 0: spec.x in body should be greater than or equal to 1"],
    ],
    [
      "exclusive minimum",
      { type: "integer", minimum: 1, exclusiveMinimum: true },
      1,
      ["spec.x: Invalid value: 1: spec.x in body should be greater than 1"],
    ],
    [
      "maximum",
      { type: "integer", maximum: 10 },
      11,
      ["spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10"],
    ],
    [
      "exclusive maximum",
      { type: "number", maximum: 10, exclusiveMaximum: true },
      10,
      ["spec.x: Invalid value: 10: spec.x in body should be less than 10"],
    ],
    [
      "float bound printed as Go %v",
      { type: "number", maximum: 1e6 },
      1000000.5,
      [
        "spec.x: Invalid value: 1.0000005e+06: spec.x in body should be less than or equal to 1e+06",
      ],
    ],
    [
      "integer bound truncated to int64",
      { type: "integer", maximum: 5.5 },
      6,
      ["spec.x: Invalid value: 6: spec.x in body should be less than or equal to 5"],
    ],
    [
      "multipleOf",
      { type: "integer", multipleOf: 3 },
      7,
      ["spec.x: Invalid value: 7: spec.x in body should be a multiple of 3"],
    ],
    ["multipleOf fraction", { type: "number", multipleOf: 0.1 }, 0.3, []],
    [
      "multipleOf fraction refused",
      { type: "number", multipleOf: 0.5 },
      0.3,
      ["spec.x: Invalid value: 0.3: spec.x in body should be a multiple of 0.5"],
    ],
    [
      "multipleOf below 1 on an integer (Go's int64 factor 0)",
      { type: "integer", multipleOf: 0.5 },
      3,
      ["spec.x: Invalid value: 0: factor MultipleOf declared for spec.x must be positive: 0"],
    ],
    [
      "type error and range together",
      { type: "integer", minimum: 5 },
      1.5,
      [
        'spec.x: Invalid value: "number": spec.x in body must be of type integer: "number"',
        "spec.x: Invalid value: 1.5: spec.x in body should be greater than or equal to 5",
      ],
    ],
  ];
  it.each(cases)("%s", (_name, schema, value, expected) => {
    expect(fieldMessages(schema, value)).toEqual(expected);
  });
});

describe("validateSchemaValue: arrays", () => {
  const cases: Case[] = [
    [
      "maxItems",
      { type: "array", maxItems: 3, items: { type: "integer" } },
      [1, 2, 3, 4],
      ["spec.x: Too many: 4: must have at most 3 items"],
    ],
    [
      "minItems",
      { type: "array", minItems: 2 },
      [1],
      ["spec.x: Invalid value: 1: spec.x in body should have at least 2 items"],
    ],
    [
      "items, then counts",
      { type: "array", maxItems: 1, items: { type: "string" } },
      ["a", 2],
      [
        'spec.x[1]: Invalid value: "integer": spec.x[1] in body must be of type string: "integer"',
        "spec.x: Too many: 2: must have at most 1 item",
      ],
    ],
    [
      "uniqueItems",
      { type: "array", uniqueItems: true },
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      ['spec.x: Invalid value: "": spec.x in body shouldn\'t contain duplicates'],
    ],
  ];
  it.each(cases)("%s", (_name, schema, value, expected) => {
    expect(fieldMessages(schema, value)).toEqual(expected);
  });
});

describe("validateSchemaValue: objects", () => {
  const cases: Case[] = [
    [
      "required",
      { type: "object", required: ["a", "b"], properties: { a: { type: "string" } } },
      { a: "x" },
      ["spec.x.b: Required value"],
    ],
    [
      "maxProperties",
      { type: "object", maxProperties: 1 },
      { a: 1, b: 2 },
      ["spec.x: Too many: 2: must have at most 1 item"],
    ],
    [
      "minProperties",
      { type: "object", minProperties: 2 },
      { a: 1 },
      ["spec.x: Invalid value: 1: spec.x in body should have at least 2 properties"],
    ],
    [
      "additionalProperties schema",
      { type: "object", additionalProperties: { type: "integer" } },
      { a: 1, b: "x" },
      ['spec.x.b: Invalid value: "string": spec.x.b in body must be of type integer: "string"'],
    ],
    [
      "additionalProperties false",
      { type: "object", properties: { a: {} }, additionalProperties: false },
      { a: 1, b: 2 },
      ['spec.x: Invalid value: "b": spec.x.b in body is a forbidden property'],
    ],
    [
      "nested properties",
      {
        type: "object",
        properties: { a: { type: "object", properties: { b: { type: "integer" } } } },
      },
      { a: { b: true } },
      [
        'spec.x.a.b: Invalid value: "boolean": spec.x.a.b in body must be of type integer: "boolean"',
      ],
    ],
  ];
  it.each(cases)("%s", (_name, schema, value, expected) => {
    expect(fieldMessages(schema, value)).toEqual(expected);
  });

  it("reports a required root field without a leading dot", () => {
    expect(messagesOf({}, { type: "object", required: ["spec"] })).toEqual([
      "spec: Required value",
    ]);
  });
});

describe("validateSchemaValue: allOf, anyOf, oneOf, not", () => {
  const cases: Case[] = [
    ["anyOf satisfied", { anyOf: [{ type: "string" }, { type: "integer" }] }, 1, []],
    [
      "anyOf failed: composite on the nil path, then the alternative with most matches",
      { anyOf: [{ type: "string" }, { type: "integer", minimum: 5 }] },
      2,
      [
        '<nil>: Invalid value: "": "spec.x" must validate at least one schema (anyOf)',
        "spec.x: Invalid value: 2: spec.x in body should be greater than or equal to 5",
      ],
    ],
    [
      "oneOf with two valid",
      { oneOf: [{ type: "integer" }, { minimum: 0 }] },
      3,
      [
        '<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives',
      ],
    ],
    [
      "oneOf with none valid",
      { oneOf: [{ type: "string" }, { type: "boolean" }] },
      3,
      [
        '<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found none valid',
        'spec.x: Invalid value: "integer": spec.x in body must be of type string: "integer"',
      ],
    ],
    [
      "allOf",
      { allOf: [{ minimum: 1 }, { maximum: 2 }] },
      3,
      [
        "spec.x: Invalid value: 3: spec.x in body should be less than or equal to 2",
        '<nil>: Invalid value: "": "spec.x" must validate all the schemas (allOf)',
      ],
    ],
    [
      "not",
      { not: { type: "string", pattern: "^a" } },
      "abc",
      ['<nil>: Invalid value: "": "spec.x" must not validate the schema (not)'],
    ],
  ];
  it.each(cases)("%s", (_name, schema, value, expected) => {
    expect(fieldMessages(schema, value)).toEqual(expected);
  });

  it("puts composite errors on the caller's path when one is given", () => {
    const schema: JSONSchemaProps = { anyOf: [{ type: "string" }] };
    expect(messagesOf(1, schema, "spec.default")).toEqual([
      'spec.default: Invalid value: "": "" must validate at least one schema (anyOf)',
      'spec.default: Invalid value: "integer":  in body must be of type string: "integer"',
    ]);
  });
});

describe("validateSchemaValue: embedded resources", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          template: {
            type: "object",
            "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true,
          },
        },
      },
    },
  };

  it("requires apiVersion and kind", () => {
    expect(messagesOf({ spec: { template: {} } }, schema)).toEqual([
      "spec.template.apiVersion: Required value",
      "spec.template.kind: Required value",
    ]);
  });

  it("checks apiVersion, kind and metadata", () => {
    const value = {
      spec: { template: { apiVersion: "a/b/c", kind: "Bad_Kind", metadata: { name: "x/y" } } },
    };
    expect(messagesOf(value, schema)).toEqual([
      'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      "spec.template.kind: Invalid value: \"Bad_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      "spec.template.metadata.name: Invalid value: \"x/y\": may not contain '/'",
    ]);
  });

  it("accepts a valid embedded object without metadata", () => {
    expect(messagesOf({ spec: { template: { apiVersion: "v1", kind: "Pod" } } }, schema)).toEqual(
      [],
    );
  });

  it("checks the root's apiVersion and kind with isResourceRoot, not its metadata", () => {
    const root: JSONSchemaProps = { type: "object" };
    expect(messagesOf({ kind: "Good", metadata: { name: "a/b" } }, root)).toEqual([]);
  });
});
