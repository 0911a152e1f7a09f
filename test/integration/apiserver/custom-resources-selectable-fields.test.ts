import { describe, expect, it } from "vitest";
import {
  createCrd,
  createNamespace,
  expectStatus,
  useServer,
  waitForCrdEstablished,
  type Json,
} from "../../support/server-test-helpers.js";

/**
 * `selectableFields` of a CRD version served as field selectors on list and watch, with
 * kube-apiserver's 400 for a field that is not selectable
 * (`staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/conversion/converter.go`
 * ConvertFieldLabel).
 */

const GROUP = "select.example.com";
const NS = "crselect";
const BASE = `/apis/${GROUP}/v1/namespaces/${NS}/shirts`;

function shirtCrd(): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `shirts.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: "shirts", singular: "shirt", kind: "Shirt", listKind: "ShirtList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          selectableFields: [{ jsonPath: ".spec.color" }, { jsonPath: ".spec.size" }],
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  properties: { color: { type: "string" }, size: { type: "integer" } },
                },
              },
            },
          },
        },
      ],
    },
  };
}

function shirt(name: string, color: string, size: number): Json {
  return { apiVersion: `${GROUP}/v1`, kind: "Shirt", metadata: { name }, spec: { color, size } };
}

const names = (list: Json): string[] =>
  (list["items"] as Json[]).map((i) => String((i["metadata"] as Json)["name"]));

describe("selectableFields of custom resources", () => {
  const h = useServer();

  it("lists by a selectable field, with = and != and integers as text", async () => {
    await createNamespace(h.client, NS);
    await createCrd(h.client, shirtCrd());
    await waitForCrdEstablished(h.client, `shirts.${GROUP}`);
    for (const s of [
      shirt("red-s", "red", 1),
      shirt("red-m", "red", 2),
      shirt("blue-m", "blue", 2),
    ])
      expect((await h.client.post(BASE, s)).status).toBe(201);
    const red = await h.client.get(`${BASE}?fieldSelector=spec.color%3Dred`);
    expect(red.status, red.text).toBe(200);
    expect(names(red.json)).toEqual(["red-m", "red-s"]);
    const notRed = await h.client.get(`${BASE}?fieldSelector=spec.color!%3Dred,spec.size%3D2`);
    expect(names(notRed.json)).toEqual(["blue-m"]);
  });

  it("watches by a selectable field", async () => {
    const list = await h.client.get(BASE);
    const rv = String((list.json.metadata as Json)["resourceVersion"]);
    const watch = await h.client.watch(
      `${BASE}?watch=true&resourceVersion=${rv}&fieldSelector=spec.color%3Dgreen`,
    );
    expect((await h.client.post(BASE, shirt("red-l", "red", 3))).status).toBe(201);
    expect((await h.client.post(BASE, shirt("green-l", "green", 3))).status).toBe(201);
    const [event] = await watch.take(1);
    expect(event?.type).toBe("ADDED");
    expect(((event?.object as Json)["metadata"] as Json)["name"]).toBe("green-l");
    watch.close();
  });

  it("answers 400 for a field that is not selectable", async () => {
    const res = await h.client.get(`${BASE}?fieldSelector=spec.material%3Dwool`);
    expect(expectStatus(res, 400, "BadRequest")["message"]).toBe(
      "field label not supported: spec.material",
    );
  });
});
