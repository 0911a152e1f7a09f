import { describe, expect, it } from "vitest";
import {
  formatFieldError,
  type FieldError,
} from "../../../../packages/kubekit/src/core/field-errors.js";
import { compileSchemaValidations } from "../../../../packages/apiserver/src/apiextensions/cel/compile-schema-validations.js";
import { compileCelExpression } from "../../../../packages/apiserver/src/apiextensions/cel/compile-expression.js";
import { DECL } from "../../../../packages/apiserver/src/apiextensions/cel/decl-type.js";
import type { JSONSchemaProps } from "../../../../packages/apiserver/src/apiextensions/schema-props.js";

const texts = (errors: readonly FieldError[]): string[] => errors.map(formatFieldError);

function check(
  schema: JSONSchemaProps,
  obj: Record<string, unknown>,
): { compile: string[]; validate: string[] } {
  const { validator, errors } = compileSchemaValidations(schema);
  return { compile: texts(errors), validate: texts(validator.validate(obj as never, undefined)) };
}

describe("schema to CEL types", () => {
  it("exposes apiVersion, kind and metadata.name at the resource root only", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: { spec: { type: "object", properties: { a: { type: "string" } } } },
      "x-kubernetes-validations": [
        { rule: "self.metadata.name.startsWith('web') && self.kind == 'Website'" },
      ],
    };
    expect(check(schema, { kind: "Website", metadata: { name: "web-1" }, spec: {} })).toEqual({
      compile: [],
      validate: [],
    });
    const labels: JSONSchemaProps = {
      ...schema,
      "x-kubernetes-validations": [{ rule: "has(self.metadata.labels)" }],
    };
    expect(check(labels, {}).compile[0]).toContain("undefined field 'labels'");
  });

  it("escapes property names", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        "foo-bar": { type: "integer" },
        "a.b": { type: "integer" },
        namespace: { type: "integer" },
        x__y: { type: "integer" },
      },
      "x-kubernetes-validations": [
        {
          rule: "self.foo__dash__bar + self.a__dot__b + self.__namespace__ + self.x__underscores__y == 10",
        },
      ],
    };
    expect(check(schema, { "foo-bar": 1, "a.b": 2, namespace: 3, x__y: 4 })).toEqual({
      compile: [],
      validate: [],
    });
  });

  it("types maps, lists, int-or-string and preserve-unknown-fields", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        m: { type: "object", additionalProperties: { type: "integer" } },
        l: { type: "array", items: { type: "string" } },
        port: { "x-kubernetes-int-or-string": true },
        raw: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
      "x-kubernetes-validations": [
        { rule: "self.m.all(k, self.m[k] > 0)" },
        { rule: "self.l.exists(x, x == 'a')" },
        { rule: "type(self.port) == string ? self.port.startsWith('p') : self.port > 0" },
        { rule: "self.raw.anything == 1" },
      ],
    };
    expect(check(schema, { m: { a: 1 }, l: ["a"], port: "p80", raw: { anything: 1 } })).toEqual({
      compile: [],
      validate: [],
    });
    expect(
      check(schema, { m: { a: 0 }, l: ["a"], port: 8080, raw: { anything: 1 } }).validate,
    ).toEqual([': Invalid value: "object": failed rule: self.m.all(k, self.m[k] > 0)']);
  });

  it("types date-time, duration and byte strings", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        at: { type: "string", format: "date-time" },
        every: { type: "string", format: "duration" },
        data: { type: "string", format: "byte" },
      },
      "x-kubernetes-validations": [
        { rule: "self.at > timestamp('2020-01-01T00:00:00Z')" },
        { rule: "self.every < duration('1h')" },
        { rule: "size(self.data) == 3" },
      ],
    };
    expect(check(schema, { at: "2024-05-01T10:00:00Z", every: "30m", data: "YWJj" })).toEqual({
      compile: [],
      validate: [],
    });
    expect(
      check(schema, { at: "2019-05-01T10:00:00Z", every: "2h", data: "YWJj" }).validate,
    ).toHaveLength(2);
  });
});

describe("hostile expressions", () => {
  it("refuses deeply nested and oversized expressions with a compile error", () => {
    const deep = `${"(".repeat(20000)}1${")".repeat(20000)} == 1`;
    const r = compileCelExpression(deep, { variables: new Map([["self", DECL.DYN]]) });
    expect(r.ok).toBe(false);
    const long = compileCelExpression("1 == 1 && ".repeat(10000) + "true", {
      variables: new Map(),
    });
    expect(long.ok).toBe(false);
  });
});

describe("malformed schemas", () => {
  it("never throws on malformed rule lists, rules and properties", () => {
    const schemas = [
      { type: "object", "x-kubernetes-validations": "self == 1" },
      {
        type: "object",
        "x-kubernetes-validations": [null, 3, { rule: 5 }, { rule: "true", messageExpression: 7 }],
      },
      { type: "object", properties: "x" },
      { type: "object", properties: { a: null } },
      { type: "array", items: 3 },
    ] as unknown as JSONSchemaProps[];
    for (const schema of schemas) {
      const { validator } = compileSchemaValidations(schema);
      expect(validator.validate({ a: 1 }, undefined)).toEqual([]);
    }
  });
});
