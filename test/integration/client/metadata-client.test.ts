import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Clientset, type RestConfig, isNotFound, isStatus, PatchTypes } from "kubekit";
import {
  MetadataClient,
  PARTIAL_OBJECT_METADATA_ACCEPT,
  PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
  type MetadataResourceClient,
} from "../../../packages/kubekit/src/client/metadata-client.js";
import type { ApiServer } from "@kubekit/apiserver";
import { AUTH_MODES, startClientTestServer } from "./client-test-server.js";
import { rejectionOf } from "../../support/rejection.js";

/**
 * The MetadataClient against the embedded API server over HTTPS (token and client
 * certificate), and against a server that ignores the PartialObjectMetadata Accept clause
 * (the client converts the full objects it gets).
 */

const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };

function configMap(name: string, labels: Record<string, string> = {}): ConfigMap {
  return { metadata: { name, labels }, data: { secret: "payload" } };
}

describe.each(AUTH_MODES)("MetadataClient over HTTPS with %s authentication", (mode) => {
  let server: ApiServer;
  let cs: Clientset;
  let mc: MetadataClient;
  let cms: MetadataResourceClient;
  const ns = "client-metadata";

  beforeAll(async () => {
    const started = await startClientTestServer(mode);
    server = started.server;
    cs = new Clientset(started.config);
    mc = new MetadataClient(started.config);
    await cs.coreV1.namespaces().create({ metadata: { name: ns } });
    cms = mc.resource(CONFIGMAPS).namespace(ns);
  });

  afterAll(async () => {
    await cs.restClient.transport.close();
    await server.stop();
  });

  it("gets and lists metadata only", async () => {
    await cs.coreV1.configMaps(ns).create(configMap("meta-1", { set: "one" }));
    await cs.coreV1.configMaps(ns).create(configMap("meta-2", { set: "one" }));
    const one = await cms.get("meta-1");
    expect(one.apiVersion).toBe("meta.k8s.io/v1");
    expect(one.kind).toBe("PartialObjectMetadata");
    expect(one.metadata.name).toBe("meta-1");
    expect(one.metadata.labels).toEqual({ set: "one" });
    expect(Object.keys(one).sort()).toEqual(["apiVersion", "kind", "metadata"]);

    const list = await cms.list({ labelSelector: "set=one" });
    expect(list.kind).toBe("PartialObjectMetadataList");
    expect(list.items.map((i) => [i.kind, i.metadata.name])).toEqual([
      ["PartialObjectMetadata", "meta-1"],
      ["PartialObjectMetadata", "meta-2"],
    ]);
    expect(list.items.some((i) => "data" in i)).toBe(false);

    const all = await mc.resource(CONFIGMAPS).list({ labelSelector: "set=one" });
    expect(all.items).toHaveLength(2);
    expect(isNotFound(await rejectionOf(cms.get("absent")))).toBe(true);
  });

  it("pages with listAll and listPages, and relists when the continue token expires", async () => {
    for (let i = 0; i < 9; i++) {
      await cs.coreV1.configMaps(ns).create(configMap(`paged-${i}`, { paged: "yes" }));
    }
    const sizes: number[] = [];
    for await (const page of cms.listPages({ labelSelector: "paged=yes", limit: 4 })) {
      expect(page.kind).toBe("PartialObjectMetadataList");
      sizes.push(page.items.length);
    }
    expect(sizes).toEqual([4, 4, 1]);

    let pages = 0;
    const result = await cms.listAll({
      labelSelector: "paged=yes",
      limit: 4,
      onPage: async () => {
        if (++pages > 1) return;
        await cs.coreV1.configMaps(ns).create(configMap("paged-unrelated"));
        server.faults.compactHistory();
      },
    });
    expect(pages).toBe(2);
    expect(result.items.map((i) => i.metadata.name).sort()).toEqual(
      Array.from({ length: 9 }, (_, i) => `paged-${i}`).sort(),
    );
    expect(result.items.every((i) => i.kind === "PartialObjectMetadata")).toBe(true);
  });

  it("watches with PartialObjectMetadata events", async () => {
    const start = (await cms.list({ labelSelector: "watched=yes" })).metadata.resourceVersion;
    const watch = cms.watch({ labelSelector: "watched=yes", resourceVersion: start ?? "" });
    await cs.coreV1.configMaps(ns).create(configMap("watched", { watched: "yes" }));
    await cms.patch("watched", PatchTypes.merge, { metadata: { annotations: { seen: "1" } } });
    await cms.delete("watched");
    const seen: string[] = [];
    for await (const event of watch) {
      if (event.type === "ERROR") throw new Error(event.object.message);
      expect(Object.keys(event.object).sort()).toEqual(["apiVersion", "kind", "metadata"]);
      seen.push(
        `${event.type} ${event.object.kind} ${event.object.metadata.annotations?.["seen"]}`,
      );
      if (event.type === "DELETED") break;
    }
    expect(seen).toEqual([
      "ADDED PartialObjectMetadata undefined",
      "MODIFIED PartialObjectMetadata 1",
      "DELETED PartialObjectMetadata 1",
    ]);
    expect(watch.closed).toBe(false);
    watch.close();
    expect(watch.closed).toBe(true);
  });

  it("patches metadata with every patch type and returns PartialObjectMetadata", async () => {
    await cs.coreV1.configMaps(ns).create(configMap("patched"));
    const merged = await cms.patch("patched", PatchTypes.merge, {
      metadata: { labels: { merged: "yes" } },
    });
    expect(merged.kind).toBe("PartialObjectMetadata");
    expect(merged.metadata.labels).toEqual({ merged: "yes" });
    const json = await cms.patch("patched", PatchTypes.json, [
      { op: "add", path: "/metadata/finalizers", value: ["example.com/hold"] },
    ]);
    expect(json.metadata.finalizers).toEqual(["example.com/hold"]);
    const strategic = await cms.patch("patched", PatchTypes.strategicMerge, {
      metadata: { "$deleteFromPrimitiveList/finalizers": ["example.com/hold"] },
    });
    expect(strategic.metadata.finalizers ?? []).toEqual([]);
    expect((await cs.coreV1.configMaps(ns).get("patched")).data).toEqual({ secret: "payload" });
  });

  it("delete answers a Status, or the pending object's metadata; deleteCollection by selector", async () => {
    await cs.coreV1.configMaps(ns).create(configMap("gone"));
    const status = await cms.delete("gone");
    expect(isStatus(status)).toBe(true);

    await cs.coreV1.configMaps(ns).create({
      metadata: { name: "held", finalizers: ["example.com/hold"] },
    });
    const pending = await cms.delete("held");
    if (pending.kind === "Status") throw new Error("expected the object's metadata");
    expect(pending.kind).toBe("PartialObjectMetadata");
    expect(pending.metadata.deletionTimestamp).toBeTruthy();
    await cms.patch("held", PatchTypes.merge, { metadata: { finalizers: null } });
    expect(isNotFound(await rejectionOf(cms.get("held")))).toBe(true);

    for (const name of ["bulk-1", "bulk-2"]) {
      await cs.coreV1.configMaps(ns).create(configMap(name, { bulk: "yes" }));
    }
    await cms.deleteCollection({ labelSelector: "bulk=yes" });
    expect((await cms.list({ labelSelector: "bulk=yes" })).items).toEqual([]);
  });
});

describe("MetadataClient against a server that ignores as=PartialObjectMetadata", () => {
  const accepts: { method: string; path: string; accept: string | undefined }[] = [];
  let plain: Server;
  let mc: MetadataClient;
  const object = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "plain", namespace: "d", resourceVersion: "7", labels: { x: "y" } },
    data: { big: "payload" },
  };

  function answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://localhost");
    accepts.push({ method: req.method ?? "", path: url.pathname, accept: req.headers.accept });
    res.setHeader("content-type", "application/json");
    if (url.pathname === "/api/v1/namespaces/d/configmaps") {
      if (url.searchParams.get("watch") === "true") {
        res.write(`${JSON.stringify({ type: "ADDED", object })}\n`);
        res.write(
          `${JSON.stringify({ type: "BOOKMARK", object: { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: "9" } } })}\n`,
        );
        res.end();
        return;
      }
      res.end(
        JSON.stringify({
          apiVersion: "v1",
          kind: "ConfigMapList",
          metadata: { resourceVersion: "8" },
          items: [object, { ...object, metadata: { ...object.metadata, name: "plain-2" } }],
        }),
      );
      return;
    }
    res.end(JSON.stringify(object));
  }

  beforeAll(async () => {
    plain = createServer(answer);
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    const config: RestConfig = {
      host: `http://127.0.0.1:${(plain.address() as AddressInfo).port}`,
      tls: {},
      credentials: { kind: "none", get: async () => ({ headers: {} }), invalidate() {} },
      qps: -1,
      burst: 10,
    };
    mc = new MetadataClient(config);
  });

  afterAll(async () => {
    await mc.restClient.transport.close();
    await new Promise<void>((resolve, reject) => plain.close((e) => (e ? reject(e) : resolve())));
  });

  it("converts plain objects, lists and watch events client-side", async () => {
    const client = mc.resource(CONFIGMAPS).namespace("d");
    expect(await client.get("plain")).toEqual({
      apiVersion: "meta.k8s.io/v1",
      kind: "PartialObjectMetadata",
      metadata: object.metadata,
    });
    const list = await client.list();
    expect(list).toEqual({
      apiVersion: "meta.k8s.io/v1",
      kind: "PartialObjectMetadataList",
      metadata: { resourceVersion: "8" },
      items: [
        { apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", metadata: object.metadata },
        {
          apiVersion: "meta.k8s.io/v1",
          kind: "PartialObjectMetadata",
          metadata: { ...object.metadata, name: "plain-2" },
        },
      ],
    });
    const events: string[] = [];
    for await (const event of client.watch()) {
      if (event.type === "ERROR") throw new Error("unexpected error event");
      expect(event.object.kind).toBe("PartialObjectMetadata");
      events.push(`${event.type} ${event.object.metadata.resourceVersion}`);
    }
    expect(events).toEqual(["ADDED 7", "BOOKMARK 9"]);
    const patched = await client.patch("plain", PatchTypes.merge, { metadata: {} });
    expect(patched.kind).toBe("PartialObjectMetadata");
    const deleted = await client.delete("plain");
    expect(deleted.kind).toBe("PartialObjectMetadata");
  });

  it("sends the PartialObjectMetadata Accept headers, with a JSON fallback", () => {
    const byRequest = accepts.map((a) => a.accept);
    expect(byRequest).toEqual([
      PARTIAL_OBJECT_METADATA_ACCEPT,
      PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
      PARTIAL_OBJECT_METADATA_ACCEPT,
      PARTIAL_OBJECT_METADATA_ACCEPT,
      PARTIAL_OBJECT_METADATA_ACCEPT,
    ]);
    expect(PARTIAL_OBJECT_METADATA_ACCEPT).toBe(
      "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
    );
    expect(PARTIAL_OBJECT_METADATA_LIST_ACCEPT).toBe(
      "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
    );
  });
});
