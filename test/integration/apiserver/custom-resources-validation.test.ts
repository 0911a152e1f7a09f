import { describe, expect, it } from "vitest";
import {
  CRDS,
  causesOf,
  createCrd,
  eventually,
  createNamespace,
  expectStatus,
  header,
  useServer,
  waitForCrdEstablished,
  type Json,
} from "../../support/server-test-helpers.js";

/**
 * The write path of custom resources over HTTP against their CRD's schema, as
 * kube-apiserver 1.32 answers (`staging/src/k8s.io/apiextensions-apiserver/pkg/registry/customresource`):
 * unknown fields pruned and reported as `fieldValidation` asks, schema defaults, OpenAPI
 * validation with 422 Invalid details, `/status` validated against the status schema.
 */

const GROUP = "validation.example.com";
const NS = "crvalidation";
const BASE = `/apis/${GROUP}/v1/namespaces/${NS}/websites`;

function websiteCrd(): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `websites.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: "websites", singular: "website", kind: "Website", listKind: "WebsiteList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [{ name: "Tier", type: "string", jsonPath: ".spec.tier" }],
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  required: ["size"],
                  properties: {
                    size: { type: "integer", minimum: 1, maximum: 10 },
                    tier: { type: "string", enum: ["bronze", "gold"], default: "bronze" },
                  },
                },
                status: {
                  type: "object",
                  properties: { replicas: { type: "integer", minimum: 0 } },
                },
              },
            },
          },
        },
      ],
    },
  };
}

function website(name: string, spec: Json): Json {
  return { apiVersion: `${GROUP}/v1`, kind: "Website", metadata: { name }, spec };
}

describe("custom resources against their schema", () => {
  const h = useServer();

  it("refuses a value of the wrong type with kube's 422 Invalid", async () => {
    await createNamespace(h.client, NS);
    await createCrd(h.client, websiteCrd());
    await waitForCrdEstablished(h.client, `websites.${GROUP}`);
    const res = await h.client.post(BASE, website("big", { size: "big" }));
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toBe(
      `Website.${GROUP} "big" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`,
    );
    expect(status["details"]).toMatchObject({ name: "big", group: GROUP, kind: "Website" });
    expect(causesOf(status)).toEqual([
      {
        reason: "FieldValueTypeInvalid",
        message: `Invalid value: "string": spec.size in body must be of type integer: "string"`,
        field: "spec.size",
      },
    ]);
    const missing = await h.client.get(`${BASE}/big`);
    expect(missing.status).toBe(404);
  });

  it("refuses a value over the maximum, and a missing required field", async () => {
    const over = await h.client.post(BASE, website("over", { size: 11 }));
    expect(expectStatus(over, 422, "Invalid")["message"]).toBe(
      `Website.${GROUP} "over" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`,
    );
    const none = await h.client.post(BASE, website("none", {}));
    expect(causesOf(expectStatus(none, 422, "Invalid"))).toEqual([
      { reason: "FieldValueRequired", message: "Required value", field: "spec.size" },
    ]);
  });

  it("defaults from the schema, and the printer column shows the default", async () => {
    const res = await h.client.post(BASE, website("small", { size: 2 }));
    expect(res.status, res.text).toBe(201);
    expect(res.json.spec).toEqual({ size: 2, tier: "bronze" });
    const table = await h.client.get(`${BASE}/small`, {
      headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
    });
    // Declared printer columns replace the default Age column.
    expect((table.json.rows as Json[])[0]?.["cells"]).toEqual(["small", "bronze"]);
  });

  it("answers 400 for an unknown field under fieldValidation=Strict", async () => {
    const res = await h.client.post(
      `${BASE}?fieldValidation=Strict`,
      website("strict", { size: 1, foo: 1, bar: { x: 1 } }),
    );
    expect(expectStatus(res, 400, "BadRequest")["message"]).toBe(
      `Website in version "v1" cannot be handled as a Website: strict decoding error: unknown field "spec.bar", unknown field "spec.foo"`,
    );
  });

  it("reports repeated keys before unknown fields, as strict decoding errors", async () => {
    const text = `{"apiVersion":"${GROUP}/v1","kind":"Website","metadata":{"name":"dup"},"spec":{"size":1,"size":2,"foo":1}}`;
    const strict = await h.client.post(`${BASE}?fieldValidation=Strict`, text);
    expect(expectStatus(strict, 400, "BadRequest")["message"]).toBe(
      `Website in version "v1" cannot be handled as a Website: strict decoding error: duplicate field "spec.size", unknown field "spec.foo"`,
    );
    const warned = await h.client.post(BASE, text);
    expect(warned.status, warned.text).toBe(201);
    expect(header(warned, "warning")).toBe(
      `299 - "duplicate field \\"spec.size\\"", 299 - "unknown field \\"spec.foo\\""`,
    );
    expect(warned.json.spec).toEqual({ size: 2, tier: "bronze" });
  });

  it("prunes unknown fields with a Warning each by default (Warn)", async () => {
    const res = await h.client.post(BASE, website("warned", { size: 1, foo: 1 }));
    expect(res.status, res.text).toBe(201);
    expect(header(res, "warning")).toBe(`299 - "unknown field \\"spec.foo\\""`);
    expect(res.json.spec).toEqual({ size: 1, tier: "bronze" });
    const ignored = await h.client.post(
      `${BASE}?fieldValidation=Ignore`,
      website("ignored", { size: 1, foo: 1 }),
    );
    expect(ignored.status, ignored.text).toBe(201);
    expect(header(ignored, "warning")).toBeUndefined();
    expect(ignored.json.spec).toEqual({ size: 1, tier: "bronze" });
  });

  it("validates updates and patches of every type", async () => {
    const merge = await h.client.patch(
      `${BASE}/small`,
      { spec: { tier: "platinum" } },
      "application/merge-patch+json",
    );
    expect(causesOf(expectStatus(merge, 422, "Invalid"))).toEqual([
      {
        reason: "FieldValueNotSupported",
        message: 'Unsupported value: "platinum": supported values: "bronze", "gold"',
        field: "spec.tier",
      },
    ]);
    const json = await h.client.patch(
      `${BASE}/small`,
      [{ op: "replace", path: "/spec/size", value: 0 }],
      "application/json-patch+json",
    );
    expect(expectStatus(json, 422, "Invalid")["message"]).toContain(
      "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1",
    );
    const current = await h.client.get(`${BASE}/small`);
    const put = await h.client.put(`${BASE}/small`, { ...current.json, spec: { size: "x" } });
    expectStatus(put, 422, "Invalid");
    const apply = await h.client.patch(
      `${BASE}/small?fieldManager=applier&force=true`,
      {
        apiVersion: `${GROUP}/v1`,
        kind: "Website",
        metadata: { name: "small" },
        spec: { size: 99 },
      },
      "application/apply-patch+yaml",
    );
    expectStatus(apply, 422, "Invalid");
  });

  it("validates /status writes against the status schema", async () => {
    const current = await h.client.get(`${BASE}/small`);
    const bad = await h.client.put(`${BASE}/small/status`, {
      ...current.json,
      status: { replicas: -1 },
    });
    expect(causesOf(expectStatus(bad, 422, "Invalid"))).toEqual([
      {
        reason: "FieldValueInvalid",
        // Validated against the status schema: the message names the path below status.
        message: "Invalid value: -1: replicas in body should be greater than or equal to 0",
        field: "status.replicas",
      },
    ]);
    const good = await h.client.put(`${BASE}/small/status`, {
      ...current.json,
      status: { replicas: 3 },
    });
    expect(good.status, good.text).toBe(200);
    expect(good.json.status).toEqual({ replicas: 3 });
  });

  it("answers 500 with structured-merge-diff's error for an applied field the schema does not declare", async () => {
    const res = await h.client.patch(
      `${BASE}/small?fieldManager=applier`,
      {
        apiVersion: `${GROUP}/v1`,
        kind: "Website",
        metadata: { name: "small" },
        spec: { size: 2, foo: 1 },
      },
      "application/apply-patch+yaml",
    );
    expect(expectStatus(res, 500, undefined)["message"]).toBe(
      `failed to create typed patch object (${GROUP}/v1, Kind=Website): .spec.foo: field not declared in schema`,
    );
  });

  it("defaults objects stored before a default was added when reading them", async () => {
    const crd = (await h.client.get(`${CRDS}/websites.${GROUP}`)).json as Json;
    const next = structuredClone(crd);
    const version = ((next["spec"] as Json)["versions"] as Json[])[0] as Json;
    const root = (version["schema"] as Json)["openAPIV3Schema"] as Json;
    const spec = (root["properties"] as Json)["spec"] as Json;
    (spec["properties"] as Json)["region"] = { type: "string", default: "eu" };
    const updated = await h.client.put(`${CRDS}/websites.${GROUP}`, next);
    expect(updated.status, updated.text).toBe(200);
    const read = await eventually("the new default on read", async () => {
      const res = await h.client.get(`${BASE}/small`);
      return (res.json.spec as Json)["region"] === "eu" ? res : undefined;
    });
    expect(read.json.spec).toEqual({ size: 2, tier: "bronze", region: "eu" });
    const list = await h.client.get(BASE);
    for (const item of list.json.items as Json[])
      expect((item["spec"] as Json)["region"]).toBe("eu");
  });
});
