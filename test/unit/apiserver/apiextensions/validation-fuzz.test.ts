/**
 * Seeded fuzzing of the schema-value functions: random schemas (every keyword, wrongly typed
 * keywords, invalid and pathological patterns, huge enums, deep nesting) against random
 * values. Only typed results and the absence of exceptions are asserted; the inputs are
 * bounded, so each case's work is bounded too (the suite's timeout catches a hang).
 */
import { describe, expect, it } from "vitest";
import type { JsonObject, JsonValue } from "kubekit";
import type { JSONSchemaProps } from "../../../../packages/apiserver/src/apiextensions/schema-props.js";
import { validateSchemaValue } from "../../../../packages/apiserver/src/apiextensions/validation/validate-schema-value.js";
import { pruneUnknownFields } from "../../../../packages/apiserver/src/apiextensions/pruning/prune-unknown-fields.js";
import { applySchemaDefaults } from "../../../../packages/apiserver/src/apiextensions/defaulting/apply-schema-defaults.js";

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES = ["object", "array", "string", "integer", "number", "boolean", "", "null", 7];
const FORMATS = [
  "date",
  "date-time",
  "byte",
  "uuid",
  "email",
  "hostname",
  "ipv4",
  "cidr",
  "mac",
  "uri",
  "duration",
  "int32",
  "bogus",
];
const PATTERNS = ["^a+$", "(abc", "^(a+)+$", "\\p{L}+", "[", "(?i)x", "a{1001}", "\\z"];
const KEYS = ["a", "b", "spec", "metadata", "kind", "apiVersion", "x.y", "[0]", ""];

class Fuzzer {
  constructor(private readonly rand: () => number) {}

  int(n: number): number {
    return Math.floor(this.rand() * n);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }

  chance(p: number): boolean {
    return this.rand() < p;
  }

  value(depth: number): JsonValue {
    switch (this.int(depth <= 0 ? 5 : 7)) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick(["", "a", "aaa", "2024-01-02", "x".repeat(this.int(50)), "é", "10.0.0.1"]);
      case 3:
        return this.pick([0, 1, -1, 1.5, 2 ** 53, 1e300, -0.5, 97]);
      case 4:
        return this.pick(["abc", 3, true]);
      case 5:
        return Array.from({ length: this.int(4) }, () => this.value(depth - 1));
      default: {
        const o: JsonObject = {};
        for (let i = this.int(4); i > 0; i--) o[this.pick(KEYS)] = this.value(depth - 1);
        return o;
      }
    }
  }

  schema(depth: number): JsonObject {
    const s: JsonObject = {};
    const t = this.pick(TYPES);
    if (t !== "") s["type"] = t;
    const maybe = (key: string, make: () => JsonValue): void => {
      if (this.chance(0.15)) s[key] = make();
    };
    maybe("format", () => this.pick(FORMATS));
    maybe("pattern", () => this.pick(PATTERNS));
    maybe("enum", () =>
      this.chance(0.1)
        ? Array.from({ length: 5000 }, (_, i) => `v${i}`)
        : [this.value(1), this.value(1)],
    );
    for (const k of [
      "minimum",
      "maximum",
      "multipleOf",
      "minLength",
      "maxLength",
      "minItems",
      "maxItems",
      "minProperties",
      "maxProperties",
    ]) {
      maybe(k, () => this.pick([0, 1, 2, -1, 0.5, 1e6, "x"]));
    }
    for (const k of [
      "nullable",
      "exclusiveMinimum",
      "exclusiveMaximum",
      "uniqueItems",
      "x-kubernetes-int-or-string",
      "x-kubernetes-preserve-unknown-fields",
      "x-kubernetes-embedded-resource",
    ]) {
      maybe(k, () => this.chance(0.8));
    }
    maybe("required", () => [this.pick(KEYS), 3]);
    maybe("default", () => this.value(2));
    if (depth > 0) {
      maybe("properties", () => {
        const p: JsonObject = {};
        for (let i = this.int(4); i > 0; i--) p[this.pick(KEYS)] = this.schema(depth - 1);
        return p;
      });
      maybe("items", () => (this.chance(0.9) ? this.schema(depth - 1) : [this.schema(depth - 1)]));
      maybe("additionalProperties", () =>
        this.chance(0.5) ? this.chance(0.5) : this.schema(depth - 1),
      );
      for (const k of ["allOf", "anyOf", "oneOf"]) {
        maybe(k, () => [this.schema(depth - 1), this.schema(depth - 1)]);
      }
      maybe("not", () => this.schema(depth - 1));
      maybe("patternProperties", () => ({ [this.pick(PATTERNS)]: this.schema(depth - 1) }));
      maybe("dependencies", () => ({ a: ["b"], b: this.schema(depth - 1) }));
    }
    return s;
  }
}

function expectFieldErrors(errors: unknown): void {
  expect(Array.isArray(errors)).toBe(true);
  for (const e of errors as { type: unknown; field: unknown }[]) {
    expect(typeof e.type).toBe("string");
    expect(typeof e.field).toBe("string");
  }
}

function deepNest(levels: number, leaf: JsonValue): { schema: JsonObject; value: JsonValue } {
  let schema: JsonObject = { type: "string", pattern: "^a+$" };
  let value = leaf;
  for (let i = 0; i < levels; i++) {
    schema = { type: "object", properties: { n: schema }, not: { type: "string" } };
    value = { n: value };
  }
  return { schema, value };
}

describe("schema values fuzz (seed 19)", () => {
  it("validates, prunes and defaults 400 random schema × value pairs without throwing", () => {
    const f = new Fuzzer(prng(19));
    for (let i = 0; i < 400; i++) {
      const schema = f.schema(4) as unknown as JSONSchemaProps;
      const value = f.value(4);
      expectFieldErrors(
        validateSchemaValue(value, schema, f.pick(["", "spec"]), { isResourceRoot: f.chance(0.5) }),
      );
      const obj: JsonObject = {
        apiVersion: "x/v1",
        kind: "X",
        metadata: { name: "n", junk: 1 },
        v: value,
      };
      const pruned = pruneUnknownFields(obj, schema, { isResourceRoot: f.chance(0.5) });
      expect(typeof pruned.value).toBe("object");
      for (const p of pruned.unknownFields) expect(typeof p).toBe("string");
      const defaulted = applySchemaDefaults(pruned.value, schema);
      expect(
        defaulted === null || ["object", "string", "number", "boolean"].includes(typeof defaulted),
      ).toBe(true);
    }
  });

  it("handles schemas and values nested 400 levels deep", () => {
    const { schema, value } = deepNest(400, "b");
    const errors = validateSchemaValue(value, schema as unknown as JSONSchemaProps, "");
    expect(errors).toHaveLength(1);
    expect(errors[0]?.field).toBe(`${"n.".repeat(400).slice(0, -1)}`);
    expect(
      pruneUnknownFields(value as JsonObject, schema as unknown as JSONSchemaProps).unknownFields,
    ).toEqual([]);
  });

  it("reports nesting beyond the validator's bound instead of overflowing the stack", () => {
    let schema: JsonObject = { type: "string" };
    for (let i = 0; i < 1500; i++) schema = { not: { not: schema } };
    const errors = validateSchemaValue(1, schema as unknown as JSONSchemaProps, "spec");
    expectFieldErrors(errors);
  });
});
