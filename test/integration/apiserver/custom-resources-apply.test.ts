import { describe, expect, it } from "vitest";
import {
  causesOf,
  createCrd,
  createNamespace,
  expectStatus,
  useServer,
  waitForCrdEstablished,
  type Json,
} from "../../support/server-test-helpers.js";

/**
 * Server-side apply of custom resources over HTTP with the list and map types of their
 * CRD's schema (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`,
 * `x-kubernetes-map-type`), and the list-type invariants kube-apiserver validates
 * (`staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype/validation.go`).
 */

const GROUP = "apply.example.com";
const NS = "crapply";
const BASE = `/apis/${GROUP}/v1/namespaces/${NS}/robots`;
const APPLY = "application/apply-patch+yaml";

const CONDITION = {
  type: "object",
  required: ["type", "status"],
  properties: { type: { type: "string" }, status: { type: "string" }, reason: { type: "string" } },
};

function robotCrd(): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `robots.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: "robots", singular: "robot", kind: "Robot", listKind: "RobotList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  properties: {
                    items: {
                      type: "array",
                      "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["name"],
                      items: {
                        type: "object",
                        required: ["name"],
                        properties: { name: { type: "string" }, value: { type: "string" } },
                      },
                    },
                    tags: {
                      type: "array",
                      "x-kubernetes-list-type": "set",
                      items: { type: "string" },
                    },
                    plain: { type: "array", items: { type: "string" } },
                    labels: {
                      type: "object",
                      additionalProperties: { type: "string" },
                    },
                    selector: {
                      type: "object",
                      "x-kubernetes-map-type": "atomic",
                      additionalProperties: { type: "string" },
                    },
                  },
                },
                status: {
                  type: "object",
                  properties: {
                    conditions: {
                      type: "array",
                      "x-kubernetes-list-type": "map",
                      "x-kubernetes-list-map-keys": ["type"],
                      items: CONDITION,
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

function robot(name: string, rest: Json): Json {
  return { apiVersion: `${GROUP}/v1`, kind: "Robot", metadata: { name }, ...rest };
}

async function applyAs(
  client: ReturnType<typeof useServer>["client"],
  path: string,
  manager: string,
  body: Json,
  force = false,
) {
  const query = `fieldManager=${manager}${force ? "&force=true" : ""}`;
  return client.patch(`${path}?${query}`, body, APPLY);
}

describe("server-side apply of custom resources", () => {
  const h = useServer();

  it("lets two managers each own one condition of a map list through /status", async () => {
    await createNamespace(h.client, NS);
    await createCrd(h.client, robotCrd());
    await waitForCrdEstablished(h.client, `robots.${GROUP}`);
    const created = await applyAs(h.client, `${BASE}/r1`, "owner", robot("r1", { spec: {} }));
    expect(created.status, created.text).toBe(201);
    const a = await applyAs(
      h.client,
      `${BASE}/r1/status`,
      "controller-a",
      robot("r1", { status: { conditions: [{ type: "Ready", status: "True" }] } }),
    );
    expect(a.status, a.text).toBe(200);
    const b = await applyAs(
      h.client,
      `${BASE}/r1/status`,
      "controller-b",
      robot("r1", { status: { conditions: [{ type: "Synced", status: "False" }] } }),
    );
    expect(b.status, b.text).toBe(200);
    expect((b.json.status as Json)["conditions"]).toEqual([
      { type: "Ready", status: "True" },
      { type: "Synced", status: "False" },
    ]);
    // Each manager owns its own item only.
    const managed = (b.json.metadata as Json)["managedFields"] as Json[];
    const fieldsOf = (m: string) => managed.find((e) => e["manager"] === m)?.["fieldsV1"];
    expect(fieldsOf("controller-b")).toEqual({
      "f:status": {
        "f:conditions": {
          'k:{"type":"Synced"}': { ".": {}, "f:status": {}, "f:type": {} },
        },
      },
    });
  });

  it("keeps the other manager's item when a conflict is forced", async () => {
    const conflict = await applyAs(
      h.client,
      `${BASE}/r1/status`,
      "controller-b",
      robot("r1", {
        status: {
          conditions: [
            { type: "Synced", status: "False" },
            { type: "Ready", status: "False" },
          ],
        },
      }),
    );
    expect(expectStatus(conflict, 409, "Conflict")["message"]).toBe(
      `Apply failed with 1 conflict: conflict with "controller-a" with subresource "status": .status.conditions[type="Ready"].status`,
    );
    const forced = await applyAs(
      h.client,
      `${BASE}/r1/status`,
      "controller-b",
      robot("r1", { status: { conditions: [{ type: "Synced", status: "True" }] } }),
      true,
    );
    expect(forced.status, forced.text).toBe(200);
    expect((forced.json.status as Json)["conditions"]).toEqual([
      { type: "Ready", status: "True" },
      { type: "Synced", status: "True" },
    ]);
  });

  it("unions sets, merges granular maps, replaces atomic lists and maps", async () => {
    const first = await applyAs(
      h.client,
      `${BASE}/r2`,
      "one",
      robot("r2", {
        spec: { tags: ["a"], plain: ["x"], labels: { a: "1" }, selector: { k: "v" } },
      }),
    );
    expect(first.status, first.text).toBe(201);
    const second = await applyAs(
      h.client,
      `${BASE}/r2`,
      "two",
      robot("r2", { spec: { tags: ["b"], labels: { b: "2" } } }),
    );
    expect(second.status, second.text).toBe(200);
    expect(second.json.spec).toEqual({
      tags: ["a", "b"],
      plain: ["x"],
      labels: { a: "1", b: "2" },
      selector: { k: "v" },
    });
    const atomic = await applyAs(
      h.client,
      `${BASE}/r2`,
      "two",
      robot("r2", { spec: { plain: ["y"] } }),
    );
    expect(expectStatus(atomic, 409, "Conflict")["message"]).toBe(
      `Apply failed with 1 conflict: conflict with "one": .spec.plain`,
    );
  });

  it("refuses duplicate keys in a map list and duplicate values in a set with 422", async () => {
    const res = await h.client.post(
      BASE,
      robot("dup", {
        spec: {
          items: [{ name: "a" }, { name: "a", value: "x" }],
          tags: ["t", "t"],
        },
      }),
    );
    const status = expectStatus(res, 422, "Invalid");
    expect(causesOf(status)).toEqual([
      {
        reason: "FieldValueDuplicate",
        message: 'Duplicate value: map[string]interface {}{"name":"a"}',
        field: "spec.items[1]",
      },
      { reason: "FieldValueDuplicate", message: 'Duplicate value: "t"', field: "spec.tags[1]" },
    ]);
    expect(status["message"]).toBe(
      `Robot.${GROUP} "dup" is invalid: [spec.items[1]: Duplicate value: map[string]interface {}{"name":"a"}, spec.tags[1]: Duplicate value: "t"]`,
    );
  });
});
