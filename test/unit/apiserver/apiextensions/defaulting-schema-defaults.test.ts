import { describe, expect, it } from "vitest";
import type { JsonValue } from "kubekit";
import type { JSONSchemaProps } from "../../../../packages/apiserver/src/apiextensions/schema-props.js";
import { applySchemaDefaults } from "../../../../packages/apiserver/src/apiextensions/defaulting/apply-schema-defaults.js";

const SCHEMA: JSONSchemaProps = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      default: {},
      properties: {
        replicas: { type: "integer", default: 1 },
        mode: { type: "string", nullable: true, default: "auto" },
        strategy: {
          type: "object",
          default: { type: "Rolling", junk: true },
          properties: {
            type: { type: "string" },
            maxSurge: { type: "integer", default: 25 },
          },
        },
        ports: {
          type: "array",
          items: {
            type: "object",
            default: { port: 80 },
            properties: { port: { type: "integer" }, protocol: { type: "string", default: "TCP" } },
          },
        },
        labels: {
          type: "object",
          additionalProperties: { type: "string", default: "none" },
        },
      },
    },
  },
};

type Case = [name: string, input: JsonValue, expected: JsonValue];

describe("applySchemaDefaults", () => {
  const cases: Case[] = [
    [
      "nested defaults into an absent parent (defaults are defaulted too, and pruned)",
      {},
      {
        spec: {
          replicas: 1,
          mode: "auto",
          strategy: { type: "Rolling", maxSurge: 25 },
        },
      },
    ],
    [
      "present values are kept",
      { spec: { replicas: 3, strategy: { type: "Recreate", maxSurge: 0 } } },
      {
        spec: { replicas: 3, mode: "auto", strategy: { type: "Recreate", maxSurge: 0 } },
      },
    ],
    [
      "null of a non-nullable property takes the default; a nullable one stays null",
      { spec: { replicas: null, mode: null } },
      {
        spec: { replicas: 1, mode: null, strategy: { type: "Rolling", maxSurge: 25 } },
      },
    ],
    [
      "array items: null items take the items default, then each item is defaulted",
      { spec: { ports: [null, { port: 8080 }] } },
      {
        spec: {
          replicas: 1,
          mode: "auto",
          strategy: { type: "Rolling", maxSurge: 25 },
          ports: [
            { port: 80, protocol: "TCP" },
            { port: 8080, protocol: "TCP" },
          ],
        },
      },
    ],
    [
      "map values: null values take the additionalProperties default",
      { spec: { labels: { a: null, b: "x" } } },
      {
        spec: {
          replicas: 1,
          mode: "auto",
          strategy: { type: "Rolling", maxSurge: 25 },
          labels: { a: "none", b: "x" },
        },
      },
    ],
  ];
  it.each(cases)("%s", (_name, input, expected) => {
    const before = structuredClone(input);
    expect(applySchemaDefaults(input, SCHEMA)).toEqual(expected);
    expect(input).toEqual(before);
  });

  it("deep-copies defaults: a defaulted object is not shared between results", () => {
    const a = applySchemaDefaults({}, SCHEMA) as { spec: { strategy: { maxSurge: number } } };
    a.spec.strategy.maxSurge = 99;
    const b = applySchemaDefaults({}, SCHEMA) as { spec: { strategy: { maxSurge: number } } };
    expect(b.spec.strategy.maxSurge).toBe(25);
  });

  it("returns the value itself when the schema has no defaults", () => {
    const value = { spec: { a: 1 } };
    const schema: JSONSchemaProps = {
      type: "object",
      properties: { spec: { type: "object", properties: { a: { type: "integer" } } } },
    };
    expect(applySchemaDefaults(value, schema)).toBe(value);
  });

  it("leaves values of the wrong type alone", () => {
    expect(applySchemaDefaults({ spec: "text" }, SCHEMA)).toEqual({ spec: "text" });
    expect(applySchemaDefaults({ spec: { ports: "x" } }, SCHEMA)).toEqual({
      spec: { ports: "x", replicas: 1, mode: "auto", strategy: { type: "Rolling", maxSurge: 25 } },
    });
  });

  it("keeps apiVersion, kind and metadata of an embedded resource's default", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        template: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          default: { apiVersion: "v1", kind: "Pod", metadata: { name: "x" }, extra: 1 },
          properties: {},
        },
      },
    };
    expect(applySchemaDefaults({}, schema)).toEqual({
      template: { apiVersion: "v1", kind: "Pod", metadata: { name: "x" } },
    });
  });
});
