import { describe, expect, it } from "vitest";
import {
  CRDS,
  causesOf,
  crdBody,
  createCrd,
  expectStatus,
  useServer,
  waitForCrdEstablished,
} from "../../support/server-test-helpers.js";
import type { Json } from "../../support/server-test-helpers.js";

/**
 * CustomResourceDefinitions refused as kube-apiserver 1.32 refuses them
 * (apiextensions-apiserver `pkg/apis/apiextensions/validation/validation.go`), over real HTTP:
 * 422 Invalid Statuses with kube's field paths and messages, on create and on update.
 */

const ROOT = "spec.validation.openAPIV3Schema";

/** A CRD `<plural>.<group>` of one version v1 with `schema` (none when undefined). */
function crdOf(group: string, schema: Json | undefined, spec: Json = {}): Json {
  const base = crdBody({ group, plural: "widgets", kind: "Widget" });
  const baseSpec = base["spec"] as Json;
  const version: Json = { name: "v1", served: true, storage: true };
  if (schema) version["schema"] = { openAPIV3Schema: schema };
  return { ...base, spec: { ...baseSpec, versions: [version], ...spec } };
}

function messages(status: Json): string[] {
  return causesOf(status).map((c) => `${c.field}: ${c.message}`);
}

describe("CustomResourceDefinition validation", () => {
  const h = useServer();

  async function refused(body: Json): Promise<Json> {
    const res = await h.client.post(CRDS, body);
    const status = expectStatus(res, 422, "Invalid");
    expect(status["details"]).toMatchObject({
      name: (body["metadata"] as Json)["name"],
      group: "apiextensions.k8s.io",
      kind: "CustomResourceDefinition",
    });
    return status;
  }

  it("refuses a version without a schema", async () => {
    const status = await refused(crdOf("noschema.kubekit.test", undefined));
    expect(status["message"]).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "widgets.noschema.kubekit.test" is invalid: spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required',
    );
    expect(causesOf(status)).toEqual([
      {
        reason: "FieldValueRequired",
        message: "Required value: schemas are required",
        field: "spec.versions[0].schema.openAPIV3Schema",
      },
    ]);
    expect((await h.client.get(`${CRDS}/widgets.noschema.kubekit.test`)).status).toBe(404);
  });

  it("refuses an unknown type, a missing type and metadata beyond name", async () => {
    const status = await refused(
      crdOf("types.kubekit.test", {
        type: "object",
        properties: {
          metadata: { type: "object", properties: { labels: { type: "object" } } },
          spec: { type: "objekt" },
          status: { properties: { ready: { type: "boolean" } } },
        },
      }),
    );
    expect(messages(status)).toEqual([
      `${ROOT}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      `${ROOT}.properties[status].type: Required value: must not be empty for specified object fields`,
      `${ROOT}.properties[spec].type: Unsupported value: "objekt": supported values: "array", "boolean", "integer", "number", "object", "string"`,
    ]);
  });

  it("refuses uniqueItems, preserve-unknown-fields false and a list-map without keys", async () => {
    const status = await refused(
      crdOf("keywords.kubekit.test", {
        type: "object",
        properties: {
          spec: {
            type: "object",
            "x-kubernetes-preserve-unknown-fields": false,
            properties: {
              tags: { type: "array", items: { type: "string" }, uniqueItems: true },
              ports: {
                type: "array",
                "x-kubernetes-list-type": "map",
                items: { type: "object", properties: { name: { type: "string" } } },
              },
            },
          },
        },
      }),
    );
    expect(messages(status)).toEqual([
      `${ROOT}.properties[spec].properties[ports].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `${ROOT}.properties[spec].properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      `${ROOT}.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
    ]);
  });

  it("refuses a CEL rule that does not compile, naming the rule", async () => {
    const status = await refused(
      crdOf("cel.kubekit.test", {
        type: "object",
        properties: {
          spec: {
            type: "object",
            properties: { replicas: { type: "integer" } },
            "x-kubernetes-validations": [{ rule: "self.replicas > 'many'" }],
          },
        },
      }),
    );
    const causes = causesOf(status);
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatchObject({
      reason: "FieldValueInvalid",
      field: `${ROOT}.properties[spec].x-kubernetes-validations[0].rule`,
    });
    expect(causes[0]?.message).toMatch(
      /^Invalid value: "self\.replicas > 'many'": compilation failed: /,
    );
  });

  it("refuses a default that does not match its schema or has unknown fields", async () => {
    const status = await refused(
      crdOf("defaults.kubekit.test", {
        type: "object",
        properties: {
          spec: {
            type: "object",
            default: { size: 1, extra: true },
            properties: { size: { type: "integer", minimum: 0, default: -1 } },
          },
        },
      }),
    );
    const fields = causesOf(status).map((c) => c.field);
    expect(fields).toContain(`${ROOT}.properties[spec].default`);
    expect(fields).toContain(`${ROOT}.properties[spec].properties[size].default`);
    expect(messages(status)).toContain(
      `${ROOT}.properties[spec].default: Invalid value: {"extra":true,"size":1}: must not have unknown fields`,
    );
  });

  it("words missing names and an unknown scope as kube does", async () => {
    const body = crdOf(
      "names.kubekit.test",
      { type: "object" },
      {
        scope: "Everywhere",
        names: { plural: "widgets", kind: "" },
      },
    );
    const status = await refused(body);
    expect(messages(status)).toEqual([
      'spec.scope: Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced"',
      // singular defaults to the lower-cased kind (empty too), listKind only from a kind.
      "spec.names.singular: Required value",
      "spec.names.kind: Required value",
      "spec.names.listKind: Required value",
    ]);
  });

  it("refuses a Webhook conversion without a client config", async () => {
    const status = await refused(
      crdOf(
        "webhook.kubekit.test",
        { type: "object" },
        {
          conversion: { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1"] } },
        },
      ),
    );
    expect(messages(status)).toEqual([
      "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
    ]);
  });

  it("accepts a structural schema with list/map extensions, defaults and CEL, and defaults names", async () => {
    const body = crdOf("good.kubekit.test", {
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-validations": [{ rule: "self.min <= self.max", message: "min > max" }],
          properties: {
            min: { type: "integer", default: 0 },
            max: { type: "integer", default: 10 },
            ports: {
              type: "array",
              "x-kubernetes-list-type": "map",
              "x-kubernetes-list-map-keys": ["name"],
              items: {
                type: "object",
                required: ["name"],
                properties: { name: { type: "string" }, port: { type: "integer" } },
              },
            },
            size: { "x-kubernetes-int-or-string": true },
          },
        },
      },
    });
    const names = (body["spec"] as Json)["names"] as Json;
    delete names["singular"];
    delete names["listKind"];
    const res = await createCrd(h.client, body);
    expect((res.json.spec as Json)["names"]).toMatchObject({
      singular: "widget",
      listKind: "WidgetList",
    });
    expect((res.json.spec as Json)["conversion"]).toEqual({ strategy: "None" });
  });

  describe("updates", () => {
    it("keeps stored versions in spec.versions and records a new storage version", async () => {
      const group = "upd.kubekit.test";
      const name = `widgets.${group}`;
      await createCrd(h.client, crdBody({ group, plural: "widgets", kind: "Widget" }));
      const established = await waitForCrdEstablished(h.client, name);
      const spec = established["spec"] as Json;
      const v1 = (spec["versions"] as Json[])[0] as Json;

      const renamed = { ...established, spec: { ...spec, versions: [{ ...v1, name: "v2" }] } };
      const refusedUpdate = expectStatus(
        await h.client.put(`${CRDS}/${name}`, renamed),
        422,
        "Invalid",
      );
      // The update records v2 as stored before validating; v1 is still stored, so it stays.
      expect(messages(refusedUpdate)).toEqual([
        'status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions',
      ]);

      const added = {
        ...established,
        spec: {
          ...spec,
          versions: [
            { ...v1, storage: false },
            { ...v1, name: "v2" },
          ],
        },
      };
      const res = await h.client.put(`${CRDS}/${name}`, added);
      expect(res.status, res.text).toBe(200);
      expect((res.json.status as Json)["storedVersions"]).toEqual(["v1", "v2"]);

      const scoped = { ...res.json, spec: { ...(res.json.spec as Json), scope: "Cluster" } };
      const immutable = expectStatus(await h.client.put(`${CRDS}/${name}`, scoped), 422, "Invalid");
      expect(messages(immutable)).toEqual([
        'spec.scope: Invalid value: "Cluster": field is immutable',
      ]);
    });
  });
});
