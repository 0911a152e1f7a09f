import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PartialObjectMetadata, RestConfig } from "kubekit";
import { MetadataSharedInformerFactory } from "../../../packages/kubekit/src/informers/index.js";
import { EventRecorder } from "./event-recorder.js";

/**
 * A metadata informer against a server that ignores the metadata Accept headers and answers
 * full objects: the cache still holds PartialObjectMetadata only.
 */

function fullConfigMap(name: string, resourceVersion: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "ns", resourceVersion, uid: `uid-${name}` },
    data: { secret: "payload" },
  };
}

describe("MetadataSharedInformerFactory against a server answering full objects", () => {
  let server: Server;
  let config: RestConfig;
  const accepts: { watch: boolean; accept: string | undefined }[] = [];
  const openWatches = new Set<ServerResponse>();

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? "/", "http://localhost");
      const watch = url.searchParams.get("watch") === "true";
      accepts.push({ watch, accept: req.headers.accept });
      if (url.pathname !== "/api/v1/namespaces/ns/configmaps") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: 404 }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      if (!watch) {
        res.end(
          JSON.stringify({
            apiVersion: "v1",
            kind: "ConfigMapList",
            metadata: { resourceVersion: "10" },
            items: [fullConfigMap("listed", "9")],
          }),
        );
        return;
      }
      openWatches.add(res);
      res.on("close", () => openWatches.delete(res));
      res.write(`${JSON.stringify({ type: "ADDED", object: fullConfigMap("watched", "11") })}\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    config = {
      host: `http://127.0.0.1:${port}`,
      tls: {},
      credentials: { kind: "none", get: async () => ({ headers: {} }), invalidate() {} },
      qps: -1,
      burst: 10,
    };
  });

  afterAll(async () => {
    for (const res of openWatches) res.end();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("converts listed and watched objects to PartialObjectMetadata", async () => {
    const stop = new AbortController();
    const factory = new MetadataSharedInformerFactory(config, { namespace: "ns" });
    const configMaps = factory.forResource({ group: "", version: "v1", resource: "configmaps" });
    const recorder = new EventRecorder<PartialObjectMetadata>();
    configMaps.informer.addEventHandler(recorder.handler);
    factory.start(stop.signal);
    expect(await factory.waitForCacheSync(stop.signal)).toEqual(
      new Map([["/v1/configmaps", true]]),
    );
    const watched = await recorder.waitFor("add", "ns/watched");
    expect(watched.obj).toEqual({
      apiVersion: "meta.k8s.io/v1",
      kind: "PartialObjectMetadata",
      metadata: { name: "watched", namespace: "ns", resourceVersion: "11", uid: "uid-watched" },
    });
    expect(configMaps.lister.namespace("ns").get("listed")).toEqual({
      apiVersion: "meta.k8s.io/v1",
      kind: "PartialObjectMetadata",
      metadata: { name: "listed", namespace: "ns", resourceVersion: "9", uid: "uid-listed" },
    });
    expect(accepts.find((a) => !a.watch)?.accept).toContain("as=PartialObjectMetadataList;");
    expect(accepts.find((a) => a.watch)?.accept).toContain("as=PartialObjectMetadata;");
    await factory.shutdown();
    await factory.client.restClient.transport.close();
  });
});
