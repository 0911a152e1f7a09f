import { describe, expect, it } from "vitest";
import {
  formatFieldError,
  type FieldError,
} from "../../../../packages/kubekit/src/core/field-errors.js";
import { compileSchemaValidations } from "../../../../packages/apiserver/src/apiextensions/cel/compile-schema-validations.js";
import type { JSONSchemaProps } from "../../../../packages/apiserver/src/apiextensions/schema-props.js";

const texts = (errors: readonly FieldError[]): string[] => errors.map(formatFieldError);

function specSchema(spec: JSONSchemaProps): JSONSchemaProps {
  return { type: "object", properties: { spec } };
}

const replicas: JSONSchemaProps = specSchema({
  type: "object",
  properties: { replicas: { type: "integer" }, name: { type: "string", maxLength: 20 } },
  "x-kubernetes-validations": [{ rule: "self.replicas <= 10" }],
});

describe("CEL rules: evaluation", () => {
  it("reports a false rule with kube's default message", () => {
    const { validator, errors } = compileSchemaValidations(replicas);
    expect(errors).toEqual([]);
    expect(validator.ruleCount).toBe(1);
    expect(texts(validator.validate({ spec: { replicas: 11 } }, undefined))).toEqual([
      'spec: Invalid value: "object": failed rule: self.replicas <= 10',
    ]);
    expect(validator.validate({ spec: { replicas: 3 } }, undefined)).toEqual([]);
  });

  it("reports a missing field as an evaluation error", () => {
    const { validator } = compileSchemaValidations(replicas);
    expect(texts(validator.validate({ spec: {} }, undefined))).toEqual([
      'spec: Invalid value: "object": no such key: replicas evaluating rule: self.replicas <= 10',
    ]);
  });
});

describe("CEL rules: compilation", () => {
  it("refuses an undefined field with cel-go's issue text", () => {
    const schema = specSchema({
      type: "object",
      properties: { a: { type: "integer" } },
      "x-kubernetes-validations": [{ rule: "self.foo > 1" }],
    });
    const { errors } = compileSchemaValidations(schema, {
      basePath: "spec.versions[0].schema.openAPIV3Schema",
    });
    expect(texts(errors)).toEqual([
      "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: \"self.foo > 1\": compilation failed: ERROR: <input>:1:5: undefined field 'foo'\n | self.foo > 1\n | ....^",
    ]);
  });
});

describe("CEL rules: transition rules, messages, reasons, fieldPath", () => {
  const immutable = specSchema({
    type: "object",
    properties: { name: { type: "string", maxLength: 20 } },
    "x-kubernetes-validations": [
      { rule: "self.name == oldSelf.name", message: "name is immutable" },
    ],
  });

  it("runs a transition rule only when an old value correlates", () => {
    const { validator } = compileSchemaValidations(immutable);
    expect(validator.validate({ spec: { name: "a" } }, undefined)).toEqual([]);
    expect(texts(validator.validate({ spec: { name: "a" } }, { spec: { name: "b" } }))).toEqual([
      'spec: Invalid value: "object": name is immutable',
    ]);
  });

  it("binds oldSelf as an optional value with optionalOldSelf", () => {
    const schema = specSchema({
      type: "object",
      properties: { n: { type: "integer" } },
      "x-kubernetes-validations": [
        {
          rule: "oldSelf.hasValue() ? self.n >= oldSelf.value().n : self.n == 0",
          optionalOldSelf: true,
        },
      ],
    });
    const { validator, errors } = compileSchemaValidations(schema);
    expect(errors).toEqual([]);
    expect(texts(validator.validate({ spec: { n: 1 } }, undefined))).toHaveLength(1);
    expect(validator.validate({ spec: { n: 0 } }, undefined)).toEqual([]);
    expect(validator.validate({ spec: { n: 2 } }, { spec: { n: 1 } })).toEqual([]);
  });

  it("correlates map-list items by key, not atomic lists", () => {
    const schema = specSchema({
      type: "object",
      properties: {
        items: {
          type: "array",
          maxItems: 10,
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: {
            type: "object",
            required: ["name"],
            properties: { name: { type: "string", maxLength: 10 }, v: { type: "integer" } },
            "x-kubernetes-validations": [
              { rule: "self.v >= oldSelf.v", message: "v may not decrease" },
            ],
          },
        },
      },
    });
    const { validator, errors } = compileSchemaValidations(schema);
    expect(errors).toEqual([]);
    const old = {
      spec: {
        items: [
          { name: "a", v: 5 },
          { name: "b", v: 1 },
        ],
      },
    };
    expect(
      texts(
        validator.validate(
          {
            spec: {
              items: [
                { name: "b", v: 0 },
                { name: "a", v: 6 },
              ],
            },
          },
          old,
        ),
      ),
    ).toEqual(['spec.items[0]: Invalid value: "object": v may not decrease']);
  });

  it("refuses oldSelf under an atomic list", () => {
    const schema = specSchema({
      type: "object",
      properties: {
        l: {
          type: "array",
          maxItems: 5,
          items: {
            type: "string",
            maxLength: 5,
            "x-kubernetes-validations": [{ rule: "self == oldSelf" }],
          },
        },
      },
    });
    expect(texts(compileSchemaValidations(schema).errors)).toEqual([
      'properties[spec].properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema',
    ]);
  });

  it("uses messageExpression, falling back to message when it fails", () => {
    const schema = specSchema({
      type: "object",
      properties: { replicas: { type: "integer" } },
      "x-kubernetes-validations": [
        {
          rule: "self.replicas <= 10",
          messageExpression: "'replicas ' + string(self.replicas) + ' exceeds 10'",
        },
        { rule: "self.replicas <= 5", message: "at most 5", messageExpression: "self.missing" },
      ],
    });
    const { validator, errors } = compileSchemaValidations(schema);
    expect(texts(errors)).toEqual([
      "properties[spec].x-kubernetes-validations[1].messageExpression: Invalid value: \"self.missing\": messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'missing'\n | self.missing\n | ....^",
    ]);
    expect(texts(validator.validate({ spec: { replicas: 12 } }, undefined))).toEqual([
      'spec: Invalid value: "object": replicas 12 exceeds 10',
      'spec: Invalid value: "object": at most 5',
    ]);
  });

  it("maps reason and fieldPath to the error type and path", () => {
    const schema = specSchema({
      type: "object",
      properties: {
        a: { type: "string", maxLength: 10 },
        m: {
          type: "object",
          additionalProperties: { type: "string", maxLength: 5 },
          maxProperties: 5,
        },
      },
      "x-kubernetes-validations": [
        {
          rule: "has(self.a)",
          message: "a is required",
          reason: "FieldValueRequired",
          fieldPath: ".a",
        },
        {
          rule: "self.a != 'x'",
          message: "x is forbidden",
          reason: "FieldValueForbidden",
          fieldPath: ".m['k']",
        },
        { rule: "true", fieldPath: ".nope" },
      ],
    });
    const { validator, errors } = compileSchemaValidations(schema);
    expect(texts(errors)).toEqual([
      'properties[spec].x-kubernetes-validations[2].fieldPath: Invalid value: ".nope": fieldPath must be a valid path: does not refer to a valid field',
    ]);
    expect(texts(validator.validate({ spec: {} }, undefined))[0]).toBe(
      "spec.a: Required value: a is required",
    );
    expect(texts(validator.validate({ spec: { a: "x" } }, undefined))).toEqual([
      "spec.m[k]: Forbidden: x is forbidden",
    ]);
  });

  it("requires a bool result", () => {
    const schema = specSchema({
      type: "object",
      properties: { a: { type: "integer" } },
      "x-kubernetes-validations": [{ rule: "self.a + 1" }],
    });
    expect(texts(compileSchemaValidations(schema).errors)).toEqual([
      'properties[spec].x-kubernetes-validations[0].rule: Invalid value: "self.a + 1": cel expression must evaluate to a bool',
    ]);
  });

  it("reports a type mismatch and an undeclared reference at compile time", () => {
    const schema = specSchema({
      type: "object",
      properties: { a: { type: "integer" } },
      "x-kubernetes-validations": [{ rule: "self.a == 'x'" }, { rule: "foo > 1" }],
    });
    const errs = texts(compileSchemaValidations(schema).errors);
    expect(errs[0]).toContain("found no matching overload for '_==_' applied to '(int, string)'");
    expect(errs[1]).toContain("undeclared reference to 'foo' (in container '')");
  });
});

describe("CEL rules: cost", () => {
  it("refuses a rule whose estimated cost exceeds the per-expression limit", () => {
    const schema = specSchema({
      type: "object",
      properties: { l: { type: "array", items: { type: "string" } } },
      "x-kubernetes-validations": [{ rule: "self.l.all(x, self.l.all(y, x.contains(y)))" }],
    });
    const errs = texts(compileSchemaValidations(schema).errors);
    expect(errs).toContain(
      "properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
    );
  });

  it("accepts the same rule over bounded data", () => {
    const schema = specSchema({
      type: "object",
      properties: { l: { type: "array", maxItems: 20, items: { type: "string", maxLength: 20 } } },
      "x-kubernetes-validations": [{ rule: "self.l.all(x, self.l.all(y, x.contains(y) || true))" }],
    });
    expect(compileSchemaValidations(schema).errors).toEqual([]);
  });

  it("stops a rule at the runtime cost limit", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: { l: { type: "array", maxItems: 3000, items: { type: "integer" } } },
      "x-kubernetes-validations": [{ rule: "self.l.all(x, self.l.all(y, x >= 0))" }],
    };
    const { validator } = compileSchemaValidations(schema);
    const l = Array.from({ length: 3000 }, (_, i) => i);
    expect(texts(validator.validate({ l }, undefined, "<nil>"))).toEqual([
      "<nil>: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.l.all(x, self.l.all(y, x >= 0))",
    ]);
  });
});
