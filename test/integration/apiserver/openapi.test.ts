import { describe, expect, it } from "vitest";
import { Agent, request } from "undici";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import {
  CRDS,
  createCrd,
  eventually,
  header,
  useServer,
  waitForCrdEstablished,
  type Json,
} from "../../support/server-test-helpers.js";

/** Every `$ref` in `value`, with the JSON path where it appears. */
function refsIn(value: unknown, at = "", out: [string, string][] = []): [string, string][] {
  if (Array.isArray(value)) value.forEach((v, i) => refsIn(v, `${at}[${i}]`, out));
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push([at, v]);
      else refsIn(v, `${at}.${k}`, out);
    }
  }
  return out;
}

function expectRefsResolve(definitions: Json, prefix: string): void {
  const refs = refsIn(definitions);
  expect(refs.length).toBeGreaterThan(0);
  const missing = refs.filter(
    ([, ref]) => !ref.startsWith(prefix) || !(ref.slice(prefix.length) in definitions),
  );
  expect(missing).toEqual([]);
}

const WEBSITE_SCHEMA: Json = {
  type: "object",
  description: "A website served by the operator.",
  properties: {
    spec: {
      type: "object",
      required: ["image"],
      properties: {
        image: { type: "string", description: "The container image.", default: "nginx" },
        replicas: { type: "integer", format: "int32", minimum: 0, nullable: true },
        port: { "x-kubernetes-int-or-string": true },
        tier: { type: "string", enum: ["free", "paid"] },
        extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        template: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          "x-kubernetes-preserve-unknown-fields": true,
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
          items: {
            type: "object",
            required: ["type"],
            properties: { type: { type: "string" }, status: { type: "string" } },
          },
        },
      },
    },
  },
};

function websiteCrd(group: string): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `websites.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural: "websites", singular: "website", kind: "Website", listKind: "WebsiteList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: WEBSITE_SCHEMA },
          selectableFields: [{ jsonPath: ".spec.tier" }],
        },
      ],
    },
  };
}

describe("OpenAPI v3 documents of built-in kinds", () => {
  const h = useServer();

  async function gvDocument(key: string): Promise<Json> {
    const index = await h.client.get("/openapi/v3");
    const url = (index.json.paths as Record<string, { serverRelativeURL: string }>)[key]
      ?.serverRelativeURL;
    expect(url, key).toBeDefined();
    const res = await h.client.get(url as string, { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    return res.json as Json;
  }

  function schemasOf(doc: Json): Json {
    return (doc["components"] as Json)["schemas"] as Json;
  }

  it("api/v1 publishes io.k8s.api.core.v1.Pod with its GVK, TypeMeta and references", async () => {
    const schemas = schemasOf(await gvDocument("api/v1"));
    const pod = schemas["io.k8s.api.core.v1.Pod"] as Json;
    expect(pod["type"]).toBe("object");
    expect(pod["required"]).toBeUndefined();
    expect(pod["x-kubernetes-group-version-kind"]).toEqual([
      { group: "", kind: "Pod", version: "v1" },
    ]);
    const props = pod["properties"] as Json;
    expect(Object.keys(props).sort()).toEqual(["apiVersion", "kind", "metadata", "spec", "status"]);
    expect(props["metadata"]).toEqual({
      $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    });
    expect(props["spec"]).toEqual({ $ref: "#/components/schemas/io.k8s.api.core.v1.PodSpec" });
    expect(
      (schemas["io.k8s.api.core.v1.PodList"] as Json)["x-kubernetes-group-version-kind"],
    ).toEqual([{ group: "", kind: "PodList", version: "v1" }]);
    expectRefsResolve(schemas, "#/components/schemas/");
  });

  it("PodSpec.containers carries patch and list-map directives, and required fields", async () => {
    const schemas = schemasOf(await gvDocument("api/v1"));
    const spec = schemas["io.k8s.api.core.v1.PodSpec"] as Json;
    expect(spec["required"]).toEqual(["containers"]);
    const containers = (spec["properties"] as Json)["containers"] as Json;
    expect(containers).toEqual({
      type: "array",
      items: { $ref: "#/components/schemas/io.k8s.api.core.v1.Container" },
      "x-kubernetes-list-map-keys": ["name"],
      "x-kubernetes-list-type": "map",
      "x-kubernetes-patch-merge-key": "name",
      "x-kubernetes-patch-strategy": "merge",
    });
    const container = schemas["io.k8s.api.core.v1.Container"] as Json;
    expect(container["required"]).toEqual(["name"]);
    const ports = (container["properties"] as Json)["ports"] as Json;
    expect(ports["x-kubernetes-list-map-keys"]).toEqual(["containerPort", "protocol"]);
    const command = (container["properties"] as Json)["command"] as Json;
    expect(command).toEqual({
      type: "array",
      items: { type: "string" },
      "x-kubernetes-list-type": "atomic",
    });
  });

  it("special types take kube's formats (date-time, int-or-string, quantity, int32/int64)", async () => {
    const schemas = schemasOf(await gvDocument("api/v1"));
    expect(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]).toEqual({
      type: "string",
      format: "date-time",
    });
    expect(schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]).toEqual({
      oneOf: [{ type: "integer" }, { type: "string" }],
      format: "int-or-string",
    });
    expect(schemas["io.k8s.apimachinery.pkg.api.resource.Quantity"]).toEqual({
      oneOf: [{ type: "string" }, { type: "number" }],
    });
    const podSpec = (schemas["io.k8s.api.core.v1.PodSpec"] as Json)["properties"] as Json;
    expect(podSpec["activeDeadlineSeconds"]).toEqual({ type: "integer", format: "int64" });
    const labels = (
      (schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"] as Json)["properties"] as Json
    )["labels"];
    expect(labels).toEqual({ type: "object", additionalProperties: { type: "string" } });
    const selector = schemas["io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"] as Json;
    expect(selector["x-kubernetes-map-type"]).toBe("atomic");
  });

  it("apps/v1 publishes Deployment and the autoscaling/v1 Scale of its subresource", async () => {
    const schemas = schemasOf(await gvDocument("apis/apps/v1"));
    const deployment = schemas["io.k8s.api.apps.v1.Deployment"] as Json;
    expect(deployment["x-kubernetes-group-version-kind"]).toEqual([
      { group: "apps", kind: "Deployment", version: "v1" },
    ]);
    const spec = schemas["io.k8s.api.apps.v1.DeploymentSpec"] as Json;
    expect(spec["required"]).toEqual(["selector", "template"]);
    expect(
      (schemas["io.k8s.api.autoscaling.v1.Scale"] as Json)["x-kubernetes-group-version-kind"],
    ).toEqual([{ group: "autoscaling", kind: "Scale", version: "v1" }]);
    expectRefsResolve(schemas, "#/components/schemas/");
  });

  it("every served group version's document resolves all of its references", async () => {
    const index = await h.client.get("/openapi/v3");
    const paths = index.json.paths as Record<string, { serverRelativeURL: string }>;
    for (const [key, entry] of Object.entries(paths)) {
      const res = await h.client.get(entry.serverRelativeURL);
      expect(res.status, key).toBe(200);
      const schemas = schemasOf(res.json as Json);
      const missing = refsIn(schemas).filter(
        ([, ref]) => !(ref.replace("#/components/schemas/", "") in schemas),
      );
      expect(missing, key).toEqual([]);
      // Every operation's GVK has a schema carrying it (what `kubectl explain` looks up).
      const gvks = new Set<string>();
      for (const item of Object.values(res.json.paths as Record<string, Json>)) {
        for (const op of Object.values(item)) {
          const gvk = (op as Json)["x-kubernetes-group-version-kind"] as Json | undefined;
          if (gvk) gvks.add(JSON.stringify([gvk["group"], gvk["version"], gvk["kind"]]));
        }
      }
      const published = new Set<string>();
      for (const schema of Object.values(schemas)) {
        for (const g of ((schema as Json)["x-kubernetes-group-version-kind"] as Json[]) ?? []) {
          published.add(JSON.stringify([g["group"], g["version"], g["kind"]]));
        }
      }
      expect(
        [...gvks].filter((g) => !published.has(g)),
        key,
      ).toEqual([]);
    }
  });

  it("a stale ?hash= redirects to the current URL; the index answers 304 to its ETag", async () => {
    const res = await h.client.get("/openapi/v3/apis/apps/v1?hash=0123");
    expect(res.status).toBe(301);
    const index = await h.client.get("/openapi/v3");
    const current = (index.json.paths as Record<string, { serverRelativeURL: string }>)[
      "apis/apps/v1"
    ]?.serverRelativeURL;
    expect(header(res, "location")).toBe(current);
    const etag = header(index, "etag") as string;
    const again = await h.client.get("/openapi/v3", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });

  it("a group version document refuses an Accept it cannot produce (406)", async () => {
    const res = await h.client.get("/openapi/v3/apis/apps/v1", {
      headers: { accept: "application/com.github.proto-openapi.spec.v3@v1.0+protobuf" },
    });
    expect(res.status).toBe(406);
  });
});

describe("OpenAPI v2 document", () => {
  const h = useServer();

  it("serves JSON definitions for built-in kinds whose references all resolve", async () => {
    const res = await h.client.get("/openapi/v2", { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(header(res, "content-type")).toBe("application/json");
    expect(header(res, "vary")).toBe("Accept");
    expect(res.json.swagger).toBe("2.0");
    const definitions = res.json.definitions as Json;
    expect(
      (definitions["io.k8s.api.batch.v1.CronJob"] as Json)["x-kubernetes-group-version-kind"],
    ).toEqual([{ group: "batch", kind: "CronJob", version: "v1" }]);
    expect(definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]).toEqual({
      type: "string",
      format: "int-or-string",
    });
    expectRefsResolve(definitions, "#/definitions/");
    const etag = header(res, "etag") as string;
    const again = await h.client.get("/openapi/v2", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });

  it("serves gnostic protobuf to kubectl's Accept, with every definition named", async () => {
    const json = await h.client.get("/openapi/v2");
    const names = Object.keys(json.json.definitions as Json);
    const agent = new Agent(h.server.caPem ? { connect: { ca: h.server.caPem } } : {});
    try {
      const res = await request(`${h.server.url}/openapi/v2`, {
        dispatcher: agent,
        headers: { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toBe(
        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
      );
      const bytes = new Uint8Array(await res.body.arrayBuffer());
      expect(protobufDefinitionNames(bytes)).toEqual(names);
    } finally {
      await agent.close();
    }
  });

  it("refuses an Accept it cannot produce (406)", async () => {
    const res = await h.client.get("/openapi/v2", { headers: { accept: "text/html" } });
    expect(res.status).toBe(406);
  });
});

/** The names of `Document.definitions` (field 9, NamedSchema.name = 1) in gnostic protobuf. */
function protobufDefinitionNames(bytes: Uint8Array): string[] {
  const names: string[] = [];
  const doc = new BinaryReader(bytes);
  while (doc.pos < doc.len) {
    const [field, wire] = doc.tag();
    if (field !== 9 || wire !== WireType.LengthDelimited) {
      doc.skip(wire);
      continue;
    }
    const defs = new BinaryReader(doc.bytes());
    while (defs.pos < defs.len) {
      defs.tag();
      const named = new BinaryReader(defs.bytes());
      while (named.pos < named.len) {
        const [f, w] = named.tag();
        if (f === 1) names.push(named.string());
        else named.skip(w);
      }
    }
  }
  return names;
}

describe("OpenAPI of custom resources", () => {
  const h = useServer();
  const group = "openapi.example.com";

  async function v3Schemas(): Promise<Json | undefined> {
    const index = await h.client.get("/openapi/v3");
    const entry = (index.json.paths as Record<string, { serverRelativeURL: string }>)[
      `apis/${group}/v1`
    ];
    if (!entry) return undefined;
    const res = await h.client.get(entry.serverRelativeURL);
    return (res.json.components as Json).schemas as Json;
  }

  it("a CRD version's schema appears in v3 and v2 with kube's additions, and disappears", async () => {
    await createCrd(h.client, websiteCrd(group));
    await waitForCrdEstablished(h.client, `websites.${group}`);
    const schemas = await eventually("the CRD's v3 document", v3Schemas);
    const website = schemas["com.example.openapi.v1.Website"] as Json;
    expect(website["x-kubernetes-group-version-kind"]).toEqual([
      { group, kind: "Website", version: "v1" },
    ]);
    expect(website["x-kubernetes-selectable-fields"]).toEqual([{ fieldPath: "spec.tier" }]);
    expect(website["description"]).toBe("A website served by the operator.");
    const props = website["properties"] as Json;
    expect(props["metadata"]).toEqual({
      $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    });
    expect(props["apiVersion"]).toMatchObject({ type: "string" });
    const spec = props["spec"] as Json;
    const specProps = spec["properties"] as Json;
    expect(specProps["image"]).toEqual({
      type: "string",
      description: "The container image.",
      default: "nginx",
    });
    expect(specProps["port"]).toEqual({
      "x-kubernetes-int-or-string": true,
      anyOf: [{ type: "integer" }, { type: "string" }],
    });
    const template = specProps["template"] as Json;
    expect(template["required"]).toEqual(["kind", "apiVersion"]);
    expect(Object.keys(template["properties"] as Json).sort()).toEqual([
      "apiVersion",
      "kind",
      "metadata",
    ]);
    const list = schemas["com.example.openapi.v1.WebsiteList"] as Json;
    expect(list["required"]).toEqual(["items"]);
    expect(((list["properties"] as Json)["items"] as Json)["items"]).toEqual({
      $ref: "#/components/schemas/com.example.openapi.v1.Website",
    });
    expectRefsResolve(schemas, "#/components/schemas/");

    const v2 = (await h.client.get("/openapi/v2")).json.definitions as Json;
    const v2Spec = ((v2["com.example.openapi.v1.Website"] as Json)["properties"] as Json)[
      "spec"
    ] as Json;
    const v2SpecProps = v2Spec["properties"] as Json;
    expect(v2SpecProps["image"]).toEqual({ type: "string", description: "The container image." });
    expect(v2SpecProps["replicas"]).toEqual({ format: "int32", minimum: 0 });
    expect(v2SpecProps["extra"]).toEqual({ "x-kubernetes-preserve-unknown-fields": true });
    expect(v2SpecProps["port"]).toEqual({ "x-kubernetes-int-or-string": true });
    expect(v2SpecProps["template"]).toEqual({
      "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true,
    });
    expectRefsResolve(v2, "#/definitions/");

    const deleted = await h.client.delete(`${CRDS}/websites.${group}`);
    expect(deleted.status).toBe(200);
    await eventually("the CRD's v3 document to go", async () =>
      (await v3Schemas()) === undefined ? true : undefined,
    );
    await eventually("the CRD's v2 definitions to go", async () => {
      const defs = (await h.client.get("/openapi/v2")).json.definitions as Json;
      return "com.example.openapi.v1.Website" in defs ? undefined : true;
    });
  });
});
