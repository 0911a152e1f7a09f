import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificateAuthority } from "@kubekit/apiserver";
import { hasKubectl, warnIfNoKubectl } from "../../support/kubectl.js";
import {
  createCrd,
  createNamespace,
  eventually,
  useServer,
  waitForCrdEstablished,
  type Json,
} from "../../support/server-test-helpers.js";

/**
 * A CRD with conversion strategy Webhook, as apiextensions-apiserver serves it
 * (`pkg/apiserver/conversion/webhook_converter.go`): the webhook (a small HTTPS server here,
 * reached through a Service without selector and an EndpointSlice at 127.0.0.1) renames
 * `spec.replicaCount` (v1beta1) to `spec.replicas` (v1, the storage version). Objects at the
 * storage version are never sent; a list page is one review; a failing webhook answers 500
 * with kube's message.
 */

const GROUP = "conversion.example.com";
const NS = "conversion";
const path = (version: string, name = ""): string =>
  `/apis/${GROUP}/${version}/namespaces/${NS}/widgets${name ? `/${name}` : ""}`;

/** The webhook's conversion of one object: the field renamed, a label saying so. */
function convert(obj: Json, desired: string): Json {
  const spec = { ...(obj["spec"] as Json) };
  if (desired.endsWith("/v1")) {
    spec["replicas"] = spec["replicaCount"];
    delete spec["replicaCount"];
  } else {
    spec["replicaCount"] = spec["replicas"];
    delete spec["replicas"];
  }
  const meta = obj["metadata"] as Json;
  const labels = { ...(meta["labels"] as Json | undefined), converted: "true" };
  return { ...obj, apiVersion: desired, spec, metadata: { ...meta, labels } };
}

function widgetCrd(caBundle: string): Json {
  const schema = (field: string): Json => ({
    openAPIV3Schema: {
      type: "object",
      properties: { spec: { type: "object", properties: { [field]: { type: "integer" } } } },
    },
  });
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `widgets.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
      versions: [
        { name: "v1beta1", served: true, storage: false, schema: schema("replicaCount") },
        { name: "v1", served: true, storage: true, schema: schema("replicas") },
      ],
      conversion: {
        strategy: "Webhook",
        webhook: {
          clientConfig: { service: { namespace: NS, name: "convert", path: "/convert" }, caBundle },
          conversionReviewVersions: ["v1"],
        },
      },
    },
  };
}

warnIfNoKubectl("kubectl get through a conversion webhook");

describe("conversion webhook", () => {
  const h = useServer();
  let webhook: Server;
  let webhookPort = 0;
  /** Every review received: the desired version and how many objects. */
  const reviews: { desired: string; count: number }[] = [];
  let failWith: string | undefined;

  beforeAll(async () => {
    const ca = await createCertificateAuthority();
    const serving = await ca.issueServing({ dnsNames: [`convert.${NS}.svc`], ipAddresses: [] });
    webhook = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      let text = "";
      req.on("data", (c: Buffer) => (text += c.toString()));
      req.on("end", () => {
        const review = JSON.parse(text) as Json;
        const request = review["request"] as {
          uid: string;
          desiredAPIVersion: string;
          objects: Json[];
        };
        reviews.push({ desired: request.desiredAPIVersion, count: request.objects.length });
        const result = failWith ? { status: "Failure", message: failWith } : { status: "Success" };
        const convertedObjects = failWith
          ? []
          : request.objects.map((o) => convert(o, request.desiredAPIVersion));
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(
          JSON.stringify({
            apiVersion: "apiextensions.k8s.io/v1",
            kind: "ConversionReview",
            response: { uid: request.uid, result, convertedObjects },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
    webhookPort = (webhook.address() as AddressInfo).port;

    await createNamespace(h.client, NS);
    // A Service without selector and its EndpointSlice at the local port (docs/webhooks.md).
    const service = await h.client.post(`/api/v1/namespaces/${NS}/services`, {
      metadata: { name: "convert" },
      spec: { ports: [{ port: 443, targetPort: webhookPort }] },
    });
    expect(service.status, service.text).toBe(201);
    const slice = await h.client.post(`/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`, {
      metadata: { name: "convert-1", labels: { "kubernetes.io/service-name": "convert" } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }],
      ports: [{ port: webhookPort, protocol: "TCP" }],
    });
    expect(slice.status, slice.text).toBe(201);
    await createCrd(h.client, widgetCrd(Buffer.from(ca.ca.certPem).toString("base64")));
    await waitForCrdEstablished(h.client, `widgets.${GROUP}`);
  });

  afterAll(async () => {
    webhook.closeAllConnections();
    await new Promise((resolve) => webhook.close(resolve));
  });

  it("stores a v1beta1 create at v1 through the webhook and reads it at both versions", async () => {
    const created = await h.client.post(path("v1beta1"), {
      apiVersion: `${GROUP}/v1beta1`,
      kind: "Widget",
      metadata: { name: "w1" },
      spec: { replicaCount: 3 },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.apiVersion).toBe(`${GROUP}/v1beta1`);
    expect(created.json.spec).toEqual({ replicaCount: 3 });
    const stored = h.server.storedObject(GROUP, "widgets", `${NS}/w1`) as Json;
    expect(stored["apiVersion"]).toBe(`${GROUP}/v1`);
    expect(stored["spec"]).toEqual({ replicas: 3 });

    const before = reviews.length;
    const atV1 = await h.client.get(path("v1", "w1"));
    expect(atV1.json.spec).toEqual({ replicas: 3 });
    expect(reviews.length, "a storage-version read is not sent").toBe(before);
    const atBeta = await h.client.get(path("v1beta1", "w1"));
    expect(atBeta.status, atBeta.text).toBe(200);
    expect(atBeta.json.apiVersion).toBe(`${GROUP}/v1beta1`);
    expect(atBeta.json.spec).toEqual({ replicaCount: 3 });
    expect(atBeta.json.metadata.labels).toEqual({ converted: "true" });
    expect(reviews.slice(before)).toEqual([{ desired: `${GROUP}/v1beta1`, count: 1 }]);
  });

  it("converts a list page in one review, a patch both ways and watch events in order", async () => {
    const second = await h.client.post(path("v1"), {
      apiVersion: `${GROUP}/v1`,
      kind: "Widget",
      metadata: { name: "w2" },
      spec: { replicas: 5 },
    });
    expect(second.status, second.text).toBe(201);
    const before = reviews.length;
    const list = await h.client.get(path("v1beta1"));
    expect(list.status, list.text).toBe(200);
    expect(list.json.apiVersion).toBe(`${GROUP}/v1beta1`);
    expect((list.json.items as Json[]).map((i) => i["spec"])).toEqual([
      { replicaCount: 3 },
      { replicaCount: 5 },
    ]);
    expect(reviews.slice(before)).toEqual([{ desired: `${GROUP}/v1beta1`, count: 2 }]);
    const v1List = await h.client.get(path("v1"));
    expect((v1List.json.items as Json[]).map((i) => i["spec"])).toEqual([
      { replicas: 3 },
      { replicas: 5 },
    ]);

    const watch = await h.client.watch(`${path("v1beta1")}?watch=true`);
    const patched = await h.client.patch(
      path("v1beta1", "w2"),
      { spec: { replicaCount: 6 } },
      "application/merge-patch+json",
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.spec).toEqual({ replicaCount: 6 });
    expect((h.server.storedObject(GROUP, "widgets", `${NS}/w2`) as Json)["spec"]).toEqual({
      replicas: 6,
    });
    const events = await watch.take(3);
    watch.close();
    expect(
      events.map((e) => [e.type, ((e.object as Json)["spec"] as Json)["replicaCount"]]),
    ).toEqual([
      ["ADDED", 3],
      ["ADDED", 5],
      ["MODIFIED", 6],
    ]);
  });

  it.skipIf(!hasKubectl)("shows the converted field to kubectl get at both versions", async () => {
    const dir = await mkdtemp(join(tmpdir(), "conversion-kubectl-"));
    try {
      const kubeconfig = join(dir, "kubeconfig");
      await h.server.writeKubeconfig(kubeconfig);
      const kubectl = (resource: string): Promise<string> =>
        new Promise((resolve, reject) => {
          execFile(
            "kubectl",
            [
              "--kubeconfig",
              kubeconfig,
              "--cache-dir",
              join(dir, "cache"),
              "get",
              resource,
              "-n",
              NS,
              "-o",
              "json",
            ],
            { env: { ...process.env, HOME: dir }, timeout: 30_000 },
            (err, stdout, stderr) =>
              err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
          );
        });
      const beta = JSON.parse(await kubectl(`widgets.v1beta1.${GROUP}`)) as { items: Json[] };
      expect(beta.items.map((i) => i["spec"])).toEqual([{ replicaCount: 3 }, { replicaCount: 6 }]);
      const v1 = JSON.parse(await kubectl(`widgets.v1.${GROUP}`)) as { items: Json[] };
      expect(v1.items.map((i) => i["spec"])).toEqual([{ replicas: 3 }, { replicas: 6 }]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("answers a failed conversion as kube does, on reads, watches and writes", async () => {
    failWith = "cannot convert today";
    try {
      const get = await h.client.get(path("v1beta1", "w1"));
      expect(get.status).toBe(500);
      expect(get.json.reason).toBeUndefined();
      expect(get.json.message).toBe(
        `conversion webhook for ${GROUP}/v1, Kind=Widget failed: cannot convert today`,
      );
      const watch = await h.client.watch(`${path("v1beta1")}?watch=true`);
      const [event] = await watch.rest();
      expect(event?.type).toBe("ERROR");
      expect(event?.object).toMatchObject({
        code: 500,
        reason: "InternalError",
        message: `Internal error occurred: conversion webhook for ${GROUP}/v1, Kind=Widget failed: cannot convert today`,
      });
      const create = await h.client.post(path("v1beta1"), {
        apiVersion: `${GROUP}/v1beta1`,
        kind: "Widget",
        metadata: { name: "w3" },
        spec: { replicaCount: 1 },
      });
      expect(create.status).toBe(500);
      expect(create.json.message).toBe(
        `conversion webhook for ${GROUP}/v1beta1, Kind=Widget failed: cannot convert today`,
      );
      expect(h.server.storedObject(GROUP, "widgets", `${NS}/w3`)).toBeUndefined();
    } finally {
      failWith = undefined;
    }
  });

  it("names the refused connection when the webhook is down", async () => {
    webhook.closeAllConnections();
    await new Promise((resolve) => webhook.close(resolve));
    const get = await eventually("a refused conversion", async () => {
      const res = await h.client.get(path("v1beta1", "w1"));
      return res.status === 500 ? res : undefined;
    });
    expect(get.json.message).toBe(
      `conversion webhook for ${GROUP}/v1, Kind=Widget failed: Post "https://convert.${NS}.svc:443/convert?timeout=30s": dial tcp 127.0.0.1:${webhookPort}: connect: connection refused`,
    );
  });
});
