/**
 * A seeded fuzzer of CRD schemas and the custom resources written against them, over real
 * HTTP: random structural and non-structural schemas (deep nesting, huge enums, pathological
 * and invalid patterns, every keyword and `x-kubernetes-*` extension, CEL rules that do not
 * compile, do not type-check or exceed the cost budget), then random objects for every CRD the
 * server accepted. Every answer must be a success or a 4xx `Status` (never a 5xx, never a
 * hang: each request is bounded by REQUEST_TIMEOUT_MS), a refused object must not be stored,
 * and the server must still serve at the end.
 *
 * The seed and iteration count are fixed so a failure reproduces; `KUBEKIT_FUZZ_SEED` and
 * `KUBEKIT_FUZZ_ITERATIONS` run other sequences locally.
 */
import { describe, expect, it } from "vitest";
import type { RawResponse } from "../../support/api-client.js";
import { SeededRandom } from "../../support/seeded-random.js";
import { CRDS, eventually, useServer, type Json } from "../../support/server-test-helpers.js";

const SEED = Number(process.env["KUBEKIT_FUZZ_SEED"] ?? 20_261_128);
const ITERATIONS = Number(process.env["KUBEKIT_FUZZ_ITERATIONS"] ?? 30);
const OBJECTS_PER_CRD = 6;
const REQUEST_TIMEOUT_MS = 10_000;
const GROUP = "fuzz.schema.example.com";

const PATTERNS = [
  "^[a-z]+$",
  "(a+)+$",
  "^(a|aa)*$",
  "(x+x+)+y",
  "\\p{Greek}+",
  "(?i)abc",
  "(?=lookahead)",
  "a{1000}{1000}",
  "[",
  "\\",
  "^.*$",
];

const FORMATS = [
  "int32",
  "int64",
  "float",
  "double",
  "byte",
  "date",
  "date-time",
  "uuid",
  "ipv4",
  "cidr",
  "bogus",
];

const RULES = [
  "self.size() >= 0",
  "self == oldSelf",
  "has(self.a) || !has(self.a)",
  "self.matches('(a+)+$')",
  "self.all(x, self.all(y, self.all(z, x == y)))",
  "self.map(x, self.map(y, x + y)).size() > 0",
  "self.foo.bar.baz",
  "self +",
  "1 / 0 == 1",
  "size(self) < 10",
  "'x'.repeat(1000000) == self",
  "self.startsWith('a')",
  "quantity(self).isGreaterThan(quantity('1'))",
  "isURL(self)",
  "self.sum() > 3",
  "self.isSorted()",
];

const VALUES: readonly unknown[] = [
  null,
  0,
  -1,
  1.5,
  2 ** 53,
  1e308,
  "",
  "a",
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!",
  "x".repeat(10_000),
  "1Gi",
  "2026-11-28T00:00:00Z",
  "http://example.com/a?b",
  true,
  [],
  [1, 2, 3],
  ["a", "a"],
  {},
  { a: 1 },
  { apiVersion: "v1", kind: "Pod", metadata: { name: "x" } },
];

/** A random schema node, `depth` levels from the bottom. */
function schema(rng: SeededRandom, depth: number): Json {
  const type =
    depth <= 0
      ? rng.pick(["string", "integer", "number", "boolean"])
      : rng.pick(["object", "array", "string", "integer", "object", "object"]);
  const node: Json = rng.chance(0.05) ? {} : { type };
  if (rng.chance(0.2)) node["nullable"] = true;
  if (type === "object" && depth > 0) {
    const count = rng.int(0, 5);
    if (rng.chance(0.15)) node["additionalProperties"] = schema(rng, depth - 1);
    else {
      node["properties"] = Object.fromEntries(
        Array.from({ length: count }, (_, i) => [
          rng.pick(["a", "b", "c", `f${i}`, "metadata", "__proto__", "x-y"]),
          schema(rng, depth - 1),
        ]),
      );
    }
    if (rng.chance(0.2)) node["required"] = ["a", "b"].slice(0, rng.int(1, 3));
    if (rng.chance(0.1)) node["x-kubernetes-preserve-unknown-fields"] = true;
    if (rng.chance(0.05)) node["x-kubernetes-embedded-resource"] = true;
    if (rng.chance(0.1)) node["minProperties"] = rng.int(0, 3);
    if (rng.chance(0.1)) node["x-kubernetes-map-type"] = rng.pick(["atomic", "granular", "bogus"]);
  }
  if (type === "array" && depth > 0) {
    node["items"] = schema(rng, depth - 1);
    if (rng.chance(0.3)) node["maxItems"] = rng.int(0, 20);
    if (rng.chance(0.2))
      node["x-kubernetes-list-type"] = rng.pick(["atomic", "set", "map", "bogus"]);
    if (rng.chance(0.2)) node["x-kubernetes-list-map-keys"] = ["name"];
    if (rng.chance(0.1)) node["uniqueItems"] = true;
  }
  if (type === "string") {
    if (rng.chance(0.3)) node["pattern"] = rng.pick(PATTERNS);
    if (rng.chance(0.2)) node["format"] = rng.pick(FORMATS);
    if (rng.chance(0.2)) node["maxLength"] = rng.int(0, 100);
    if (rng.chance(0.1)) {
      const size = rng.pick([1, 3, 5_000]);
      node["enum"] = Array.from({ length: size }, (_, i) => `v${i}`);
    }
    if (rng.chance(0.05)) node["x-kubernetes-int-or-string"] = true;
  }
  if (type === "integer" || type === "number") {
    if (rng.chance(0.3)) node["minimum"] = rng.int(-10, 10);
    if (rng.chance(0.3)) node["maximum"] = rng.int(-10, 1_000);
    if (rng.chance(0.1)) node["exclusiveMaximum"] = true;
    if (rng.chance(0.1)) node["multipleOf"] = rng.pick([0, 2, 0.5]);
    if (rng.chance(0.1)) node["format"] = rng.pick(FORMATS);
  }
  if (rng.chance(0.1)) node["default"] = rng.pick(VALUES);
  if (rng.chance(0.05))
    node[rng.pick(["allOf", "anyOf", "oneOf"])] = [{ required: ["a"] }, { minProperties: 1 }];
  if (rng.chance(0.03))
    node[rng.pick(["$ref", "definitions", "patternProperties", "dependencies"])] = {};
  if (rng.chance(0.25)) {
    node["x-kubernetes-validations"] = Array.from({ length: rng.int(1, 3) }, () => ({
      rule: rng.pick(RULES),
      ...(rng.chance(0.3) ? { message: "fuzz rule failed" } : {}),
      ...(rng.chance(0.1) ? { messageExpression: "'value: ' + string(self)" } : {}),
      ...(rng.chance(0.1) ? { reason: rng.pick(["FieldValueForbidden", "Bogus"]) } : {}),
    }));
  }
  return node;
}

/** A random value shaped after `node` most of the time, random otherwise. */
function value(rng: SeededRandom, node: Json, depth: number): unknown {
  if (depth > 12 || rng.chance(0.15)) return rng.pick(VALUES);
  const properties = node["properties"] as Record<string, Json> | undefined;
  if (properties) {
    return Object.fromEntries(
      Object.entries(properties)
        .filter(() => rng.chance(0.8))
        .map(([k, v]) => [k, value(rng, v, depth + 1)])
        .concat(rng.chance(0.1) ? [["unknownField", 1]] : []),
    );
  }
  const items = node["items"] as Json | undefined;
  if (items) return Array.from({ length: rng.int(0, 6) }, () => value(rng, items, depth + 1));
  const enums = node["enum"] as unknown[] | undefined;
  if (enums && rng.chance(0.7)) return rng.pick(enums);
  return rng.pick(VALUES);
}

/** A deep chain of objects: `depth` nested `properties.n`. */
function deepSchema(depth: number): Json {
  let node: Json = { type: "string" };
  for (let i = 0; i < depth; i++) node = { type: "object", properties: { n: node } };
  return node;
}

function crd(plural: string, spec: Json): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: {
        plural,
        singular: plural.slice(0, -1),
        kind: `K${plural}`,
        listKind: `K${plural}List`,
      },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: "object", properties: { spec, status: spec } } },
        },
      ],
    },
  };
}

/**
 * kube-apiserver's one 500 here: an apply whose configuration names a field the schema does
 * not declare (the plain error of `managedfields/internal/structuredmerge.go`'s Apply).
 */
function isKube500(res: RawResponse): boolean {
  return String(res.json?.message).startsWith("failed to create typed patch object (");
}

function expectHandled(res: RawResponse, what: string): void {
  const detail = `${what}: ${res.status} ${res.text.slice(0, 300)}`;
  if (!isKube500(res)) expect(res.status, detail).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.json?.kind, detail).toBe("Status");
    expect(res.json?.code, detail).toBe(res.status);
  }
}

describe(`CRD schema and custom resource fuzzer (seed ${SEED}, ${ITERATIONS} CRDs)`, () => {
  const h = useServer();
  const bounded = (): { signal: AbortSignal } => ({
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });

  it("answers every CRD and every object with a success or a 4xx Status, and keeps serving", async () => {
    const rng = new SeededRandom(SEED);
    let accepted = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      const plural = `things${i}s`;
      const spec = i % 10 === 9 ? deepSchema(rng.pick([40, 120, 400])) : schema(rng, rng.int(1, 6));
      const created = await h.client.post(CRDS, crd(plural, spec), bounded());
      expectHandled(created, `CRD ${i} ${JSON.stringify(spec).slice(0, 500)}`);
      if (created.status !== 201) continue;
      accepted++;
      const path = `/apis/${GROUP}/v1/namespaces/default/${plural}`;
      await eventually(`${plural} served`, async () =>
        (await h.client.get(path, bounded())).status === 200 ? true : undefined,
      );
      for (let j = 0; j < OBJECTS_PER_CRD; j++) {
        const name = `o${j}`;
        const body = {
          apiVersion: `${GROUP}/v1`,
          kind: `K${plural}`,
          metadata: { name },
          spec: value(rng, spec, 0),
        };
        const res = await h.client.post(path, body, bounded());
        expectHandled(res, `${plural}/${name} ${JSON.stringify(body).slice(0, 500)}`);
        const stored = await h.client.get(`${path}/${name}`, bounded());
        expect(stored.status, `${plural}/${name} stored iff created`).toBe(
          res.status === 201 ? 200 : 404,
        );
        if (res.status !== 201) continue;
        const update = {
          ...(stored.json as Json),
          spec: value(rng, spec, 0),
          status: value(rng, spec, 0),
        };
        expectHandled(
          await h.client.put(`${path}/${name}`, update, bounded()),
          `update ${plural}/${name}`,
        );
        expectHandled(
          await h.client.put(`${path}/${name}/status`, update, bounded()),
          `status ${plural}/${name}`,
        );
        expectHandled(
          await h.client.patch(
            `${path}/${name}?fieldManager=fuzz&force=true`,
            JSON.stringify(body),
            "application/apply-patch+yaml",
            bounded(),
          ),
          `apply ${plural}/${name}`,
        );
      }
    }
    // Some random schemas must pass, or the objects were never fuzzed.
    expect(accepted).toBeGreaterThan(ITERATIONS / 10);
    expect((await h.client.get("/api/v1/namespaces/default/configmaps", bounded())).status).toBe(
      200,
    );
  }, 300_000);
});
