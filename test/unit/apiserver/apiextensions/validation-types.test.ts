import { describe, expect, it } from "vitest";
import type { JsonValue } from "kubekit";
import type { JSONSchemaProps } from "../../../../packages/apiserver/src/apiextensions/schema-props.js";
import { fieldMessages, messagesOf } from "./validation-support.js";

type Case = [name: string, schema: JSONSchemaProps, value: JsonValue, expected: string[]];

describe("validateSchemaValue: types (kube-openapi type validator)", () => {
  const cases: Case[] = [
    [
      "string for integer",
      { type: "integer" },
      "big",
      ['spec.x: Invalid value: "string": spec.x in body must be of type integer: "string"'],
    ],
    [
      "float for integer",
      { type: "integer" },
      1.5,
      ['spec.x: Invalid value: "number": spec.x in body must be of type integer: "number"'],
    ],
    ["integer for number", { type: "number" }, 3, []],
    ["integral float for integer", { type: "integer" }, 2.0, []],
    [
      "boolean for string",
      { type: "string" },
      true,
      ['spec.x: Invalid value: "boolean": spec.x in body must be of type string: "boolean"'],
    ],
    [
      "array for object",
      { type: "object" },
      [1],
      ['spec.x: Invalid value: "array": spec.x in body must be of type object: "array"'],
    ],
    [
      "object for array",
      { type: "array" },
      {},
      ['spec.x: Invalid value: "object": spec.x in body must be of type array: "object"'],
    ],
    [
      "null, not nullable",
      { type: "string" },
      null,
      ['spec.x: Invalid value: "null": spec.x in body must be of type string: "null"'],
    ],
    ["null, nullable", { type: "string", nullable: true }, null, []],
    ["null without a type", {}, null, []],
    ["anything without a type", { "x-kubernetes-preserve-unknown-fields": true }, { a: [1] }, []],
    ["int-or-string: integer", { "x-kubernetes-int-or-string": true }, 80, []],
    ["int-or-string: string", { "x-kubernetes-int-or-string": true }, "http", []],
    [
      "int-or-string: boolean",
      { "x-kubernetes-int-or-string": true },
      true,
      [
        'spec.x: Invalid value: "boolean": spec.x in body must be of type integer,string: "boolean"',
      ],
    ],
    [
      "int-or-string: float",
      { "x-kubernetes-int-or-string": true },
      1.5,
      ['spec.x: Invalid value: "number": spec.x in body must be of type integer,string: "number"'],
    ],
  ];
  it.each(cases)("%s", (_name, schema, value, expected) => {
    expect(fieldMessages(schema, value)).toEqual(expected);
  });

  it("prefixes the field path with the caller's path, not the message", () => {
    const schema: JSONSchemaProps = { type: "object", properties: { a: { type: "integer" } } };
    expect(
      messagesOf({ a: "x" }, schema, "spec.versions[0].schema.openAPIV3Schema.default"),
    ).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.default.a: Invalid value: "string": a in body must be of type integer: "string"',
    ]);
  });

  it("reports a scalar root on the caller's path", () => {
    expect(messagesOf("x", { type: "integer" }, "spec.default")).toEqual([
      'spec.default: Invalid value: "string":  in body must be of type integer: "string"',
    ]);
  });
});

describe("validateSchemaValue: formats (only those apiextensions supports)", () => {
  const valid: [string, string][] = [
    ["date", "2024-02-29"],
    ["date-time", "2024-01-02T03:04:05Z"],
    ["date-time", "2024-01-02t03:04:05.123+01:00"],
    ["datetime", "2024-01-02T03:04:05Z"],
    ["byte", "aGVsbG8="],
    ["password", "anything"],
    ["uuid", "123e4567-e89b-12d3-a456-426614174000"],
    ["uuid4", "123e4567-e89b-42d3-a456-426614174000"],
    ["email", "user@example.com"],
    ["email", "User <user@example.com>"],
    ["hostname", "my-host.example.com"],
    ["ipv4", "10.0.0.1"],
    ["ipv6", "2001:db8::1"],
    ["cidr", "10.0.0.0/8"],
    ["mac", "01:23:45:67:89:ab"],
    ["mac", "0123.4567.89ab"],
    ["uri", "https://example.com/path?q=1"],
    ["uri", "/absolute/path"],
    ["duration", "1h30m"],
    ["duration", "3 days"],
    ["bsonobjectid", "507f1f77bcf86cd799439011"],
    ["isbn10", "0321751043"],
    ["isbn13", "978-0321751041"],
    ["hexcolor", "#ffaa00"],
    ["rgbcolor", "rgb(255, 0, 10)"],
    ["ssn", "123-45-6789"],
    ["creditcard", "4111 1111 1111 1111"],
  ];
  it.each(valid)("%s accepts %j", (format, value) => {
    expect(fieldMessages({ type: "string", format }, value)).toEqual([]);
  });

  const invalid: [string, string][] = [
    ["date", "2023-02-29"],
    ["date", "2024-1-02"],
    ["date-time", "2024-01-02 03:04:05Z"],
    ["date-time", "2024-01-02T24:00:00Z"],
    ["byte", "abc"],
    ["byte", ""],
    ["uuid", "not-a-uuid"],
    ["email", "nope"],
    ["hostname", "-bad-.example.com"],
    ["ipv4", "2001:db8::1"],
    ["ipv4", "300.0.0.1"],
    ["ipv6", "10.0.0.1"],
    ["cidr", "10.0.0.0"],
    ["mac", "01:23:45"],
    ["uri", "relative/path"],
    ["uri", ""],
    ["duration", "forever"],
    ["bsonobjectid", "507f1f77"],
    ["isbn10", "0321751044"],
    ["ssn", "123456789"],
    ["creditcard", "4111 1111 1111 1112"],
  ];
  it.each(invalid)("%s refuses %j", (format, value) => {
    expect(fieldMessages({ type: "string", format }, value)).toEqual([
      `spec.x: Invalid value: ${JSON.stringify(value)}: spec.x in body must be of type ${format}: ${JSON.stringify(value)}`,
    ]);
  });

  it.each([
    ["int32", 3_000_000_000],
    ["int64", 1],
    ["float", 1e300],
    ["double", 1.5],
  ])("does not check the numeric format %s (kube strips it)", (format, value) => {
    expect(fieldMessages({ type: "number", format }, value)).toEqual([]);
  });

  it("ignores unknown formats", () => {
    expect(fieldMessages({ type: "string", format: "k8s-short-name" }, "!!")).toEqual([]);
  });

  it("reports a non-string under a string format with the value's format name", () => {
    expect(fieldMessages({ type: "string", format: "date" }, 5)).toEqual([
      'spec.x: Invalid value: "int64": spec.x in body must be of type date: "int64"',
    ]);
  });
});
