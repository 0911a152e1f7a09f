import { describe, expect, it } from "vitest";
import {
  CRDS,
  createCrd,
  createNamespace,
  eventually,
  header,
  useServer,
  waitForCrdEstablished,
  type Json,
} from "../../support/server-test-helpers.js";

/**
 * A CRD's versions over HTTP, as apiextensions-apiserver serves them with conversion
 * strategy None (`staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go`):
 * objects are stored at the storage version and read at the version requested, unserved
 * versions are not routed, deprecated versions warn.
 */

const GROUP = "versions.example.com";
const NS = "versions";

function versionSchema(tierDefault: string | undefined): Json {
  return {
    openAPIV3Schema: {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            size: { type: "integer" },
            tier: { type: "string", ...(tierDefault ? { default: tierDefault } : {}) },
          },
        },
      },
    },
  };
}

function gadgetCrd(): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `gadgets.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
      versions: [
        { name: "v1alpha1", served: false, storage: false, schema: versionSchema(undefined) },
        {
          name: "v1beta1",
          served: true,
          storage: false,
          deprecated: true,
          schema: versionSchema(undefined),
        },
        { name: "v1", served: true, storage: true, schema: versionSchema("gold") },
        {
          name: "v2beta1",
          served: true,
          storage: false,
          deprecated: true,
          deprecationWarning: "v2beta1 gadgets are going away",
          schema: versionSchema(undefined),
        },
      ],
    },
  };
}

const path = (version: string, name = ""): string =>
  `/apis/${GROUP}/${version}/namespaces/${NS}/gadgets${name ? `/${name}` : ""}`;

describe("custom resource versions", () => {
  const h = useServer();

  it("serves an object written at v1beta1 at every served version, stored at v1", async () => {
    await createNamespace(h.client, NS);
    await createCrd(h.client, gadgetCrd());
    await waitForCrdEstablished(h.client, `gadgets.${GROUP}`);
    const created = await h.client.post(path("v1beta1"), {
      apiVersion: `${GROUP}/v1beta1`,
      kind: "Gadget",
      metadata: { name: "g1" },
      spec: { size: 1 },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.apiVersion).toBe(`${GROUP}/v1beta1`);

    const atV1 = await h.client.get(path("v1", "g1"));
    expect(atV1.json.apiVersion).toBe(`${GROUP}/v1`);
    // Stored at v1: reading from storage defaults with the stored version's schema (v1
    // defaults spec.tier), whatever the version read.
    expect(atV1.json.spec).toEqual({ size: 1, tier: "gold" });
    const atBeta = await h.client.get(path("v1beta1", "g1"));
    expect(atBeta.json.apiVersion).toBe(`${GROUP}/v1beta1`);
    expect(atBeta.json.spec).toEqual({ size: 1, tier: "gold" });

    const list = await h.client.get(path("v1"));
    expect(list.json.apiVersion).toBe(`${GROUP}/v1`);
    expect(list.json.kind).toBe("GadgetList");
    expect((list.json.items as Json[]).map((i) => i["apiVersion"])).toEqual([`${GROUP}/v1`]);
    const betaList = await h.client.get(path("v1beta1"));
    expect(betaList.json.apiVersion).toBe(`${GROUP}/v1beta1`);
    expect((betaList.json.items as Json[]).map((i) => i["apiVersion"])).toEqual([
      `${GROUP}/v1beta1`,
    ]);
  });

  it("sends watch events at the watched version", async () => {
    const rv = String((await h.client.get(path("v1"))).json.metadata?.resourceVersion ?? "");
    const watch = await h.client.watch(`${path("v1")}?watch=true&resourceVersion=${rv}`);
    const updated = await h.client.patch(
      path("v1beta1", "g1"),
      { spec: { size: 2 } },
      "application/merge-patch+json",
    );
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json.apiVersion).toBe(`${GROUP}/v1beta1`);
    const [event] = await watch.take(1);
    expect(event?.type).toBe("MODIFIED");
    expect((event?.object as Json)["apiVersion"]).toBe(`${GROUP}/v1`);
    await watch.close();
  });

  it("answers 404 for a version that is not served", async () => {
    const res = await h.client.get(path("v1alpha1", "g1"));
    expect(res.status).toBe(404);
    const create = await h.client.post(path("v1alpha1"), {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: "Gadget",
      metadata: { name: "g2" },
    });
    expect(create.status).toBe(404);
  });

  it("warns on every request to a deprecated version, with kube's default text", async () => {
    const get = await h.client.get(path("v1beta1", "g1"));
    expect(header(get, "warning")).toBe(
      `299 - "${GROUP}/v1beta1 Gadget is deprecated; use ${GROUP}/v1 Gadget"`,
    );
    const list = await h.client.get(path("v2beta1"));
    expect(header(list, "warning")).toBe(`299 - "v2beta1 gadgets are going away"`);
    const current = await h.client.get(path("v1", "g1"));
    expect(header(current, "warning")).toBeUndefined();
  });

  it("keeps the deprecation warning beside a write's own warnings", async () => {
    const res = await h.client.patch(
      `${path("v1beta1", "g1")}?fieldValidation=Warn`,
      { spec: { bogus: true } },
      "application/merge-patch+json",
    );
    expect(res.status, res.text).toBe(200);
    expect(header(res, "warning")).toBe(
      `299 - "${GROUP}/v1beta1 Gadget is deprecated; use ${GROUP}/v1 Gadget", 299 - "unknown field \\"spec.bogus\\""`,
    );
    await eventually("no bogus field", async () => {
      const got = await h.client.get(path("v1", "g1"));
      return (got.json.spec as Json)["bogus"] === undefined ? true : undefined;
    });
  });

  it("stores new writes at a new storage version and adds it to storedVersions", async () => {
    const crd = (await h.client.get(`${CRDS}/gadgets.${GROUP}`)).json as Json;
    const spec = crd["spec"] as Json;
    const versions = (spec["versions"] as Json[]).map((v) => ({
      ...v,
      storage: v["name"] === "v1beta1",
    }));
    const updated = await h.client.put(`${CRDS}/gadgets.${GROUP}`, {
      ...crd,
      spec: { ...spec, versions },
    });
    expect(updated.status, updated.text).toBe(200);
    expect((updated.json.status as Json)["storedVersions"]).toEqual(["v1", "v1beta1"]);
    await eventually("v1beta1 is the storage version", async () => {
      const res = await h.client.post(path("v1beta1"), {
        apiVersion: `${GROUP}/v1beta1`,
        kind: "Gadget",
        metadata: { generateName: "probe-" },
        spec: { size: 3 },
      });
      expect(res.status, res.text).toBe(201);
      const name = String((res.json.metadata as Json)["name"]);
      // Stored at v1beta1, whose schema has no default: read at v1, spec.tier stays unset.
      const atV1 = await h.client.get(path("v1", name));
      return (atV1.json.spec as Json)["tier"] === undefined ? true : undefined;
    });
  });
});
