import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificateAuthority } from "../../../packages/apiserver/src/auth/certificates.js";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFile } from "node:child_process";
import { hasKubectl, KUBECTL_TIMEOUT_MS } from "../../support/kubectl.js";
import {
  createCrd,
  expectStatus,
  header,
  useServer,
  waitForCrdEstablished,
  type Json,
} from "../../support/server-test-helpers.js";

/**
 * Admission webhooks called by the embedded server as kube-apiserver calls them: one tiny
 * HTTPS webhook server (routes by path) serves every webhook of this file; each test works in
 * its own namespace, selected by its webhooks' namespaceSelector, so tests never see each
 * other's webhooks.
 */

type Review = Json & { request: Json & { uid: string } };
type Answer = Json | "hang" | "garbage";
type Handler = (review: Review) => Answer | Promise<Answer>;

const handlers = new Map<string, Handler>();
const received = new Map<string, Review[]>();
let webhookServer: Server;
let webhookPort = 0;
let caBundle = "";

function allow(review: Review, extra: Json = {}): Json {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: { uid: review.request.uid, allowed: true, ...extra },
  };
}

function deny(review: Review, status: Json): Json {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: { uid: review.request.uid, allowed: false, status },
  };
}

function jsonPatch(review: Review, ops: Json[], extra: Json = {}): Json {
  const patch = Buffer.from(JSON.stringify(ops)).toString("base64");
  return allow(review, { patchType: "JSONPatch", patch, ...extra });
}

async function serveReview(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const path = new URL(req.url ?? "/", "https://x").pathname;
  const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Review;
  received.set(path, [...(received.get(path) ?? []), review]);
  const handler = handlers.get(path);
  const answer = handler ? await handler(review) : allow(review);
  if (answer === "hang") return; // never answers: the server's timeout fires
  if (answer === "garbage") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("this is not an AdmissionReview");
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(answer));
}

beforeAll(async () => {
  const ca = await createCertificateAuthority();
  const serving = await ca.issueServing({
    dnsNames: ["localhost", "webhook.hooks.svc"],
    ipAddresses: ["127.0.0.1"],
  });
  caBundle = Buffer.from(ca.ca.certPem).toString("base64");
  webhookServer = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    serveReview(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => webhookServer.listen(0, "127.0.0.1", resolve));
  webhookPort = (webhookServer.address() as AddressInfo).port;
});

afterAll(async () => {
  webhookServer.closeAllConnections();
  await new Promise((resolve) => webhookServer.close(resolve));
});

const harness = useServer();

/** A namespace of its own for a test, labelled so that only its webhooks select it. */
async function namespaceFor(test: string): Promise<string> {
  const res = await harness.client.post("/api/v1/namespaces", {
    metadata: { name: test, labels: { "webhook-test": test } },
  });
  expect(res.status, res.text).toBe(201);
  return test;
}

/** One webhook of a configuration, for `test`'s namespace, calling `path` on the test server. */
function webhook(test: string, name: string, path: string, extra: Json = {}): Json {
  return {
    name,
    clientConfig: { url: `https://127.0.0.1:${webhookPort}${path}`, caBundle },
    rules: [
      {
        operations: ["CREATE", "UPDATE"],
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["configmaps"],
      },
    ],
    namespaceSelector: { matchLabels: { "webhook-test": test } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...extra,
  };
}

async function configure(
  kind: "validating" | "mutating",
  name: string,
  webhooks: Json[],
): Promise<void> {
  const plural = `${kind}webhookconfigurations`;
  const res = await harness.client.post(`/apis/admissionregistration.k8s.io/v1/${plural}`, {
    metadata: { name },
    webhooks,
  });
  expect(res.status, res.text).toBe(201);
}

function configMap(name: string, data: Json = { a: "1" }, labels: Json = {}): Json {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels }, data };
}

async function createConfigMap(
  ns: string,
  body: Json,
  query = "",
): Promise<ReturnType<typeof harness.client.post>> {
  return harness.client.post(`/api/v1/namespaces/${ns}/configmaps${query}`, body);
}

describe("validating webhooks", () => {
  it("deny with kube's message and the status code the webhook gave; nothing is stored", async () => {
    const ns = await namespaceFor("deny");
    handlers.set("/deny", (review) => {
      const data = (review.request["object"] as Json)["data"] as Json;
      if (Number(data["replicas"]) > 10) {
        return deny(review, {
          code: 403,
          reason: "Forbidden",
          message: "replicas > 10 is not allowed",
        });
      }
      return allow(review);
    });
    await configure("validating", "deny", [webhook(ns, "deny.example.com", "/deny")]);
    const denied = await createConfigMap(ns, configMap("big", { replicas: "11" }));
    const status = expectStatus(denied, 403, "Forbidden");
    expect(status["message"]).toBe(
      'admission webhook "deny.example.com" denied the request: replicas > 10 is not allowed',
    );
    expect((await harness.client.get(`/api/v1/namespaces/${ns}/configmaps/big`)).status).toBe(404);
    expect((await createConfigMap(ns, configMap("small", { replicas: "3" }))).status).toBe(201);
  });

  it("a denial without message is kube's 'without explanation' with code 400", async () => {
    const ns = await namespaceFor("deny-bare");
    handlers.set("/deny-bare", (review) => deny(review, {}));
    await configure("validating", "deny-bare", [webhook(ns, "bare.example.com", "/deny-bare")]);
    const status = expectStatus(await createConfigMap(ns, configMap("x")), 400, undefined);
    expect(status["message"]).toBe(
      'admission webhook "bare.example.com" denied the request without explanation',
    );
  });

  it("sends kube's AdmissionRequest: final object, kind, resource, user, options, dryRun", async () => {
    const ns = await namespaceFor("fields");
    await configure("validating", "fields", [webhook(ns, "fields.example.com", "/fields")]);
    expect((await createConfigMap(ns, configMap("seen"))).status).toBe(201);
    const [review] = received.get("/fields") ?? [];
    expect(review).toMatchObject({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" });
    const request = review?.request as Json;
    expect(request).toMatchObject({
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      requestKind: { group: "", version: "v1", kind: "ConfigMap" },
      requestResource: { group: "", version: "v1", resource: "configmaps" },
      name: "seen",
      namespace: ns,
      operation: "CREATE",
      userInfo: { username: "system:anonymous" },
      oldObject: null,
      dryRun: false,
      options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
    });
    // Validating admission sees the object as it is stored: uid and creationTimestamp set.
    expect((request["object"] as Json)["metadata"]).toMatchObject({ name: "seen", namespace: ns });
    expect(((request["object"] as Json)["metadata"] as Json)["uid"]).toEqual(expect.any(String));
  });

  it("speaks admission.k8s.io/v1beta1 to a webhook that asks for it", async () => {
    const ns = await namespaceFor("beta");
    handlers.set("/beta", () => ({
      // v1beta1 answers are not checked for kind or uid.
      response: { allowed: false, status: { message: "beta says no" } },
    }));
    await configure("validating", "beta", [
      webhook(ns, "beta.example.com", "/beta", { admissionReviewVersions: ["v1beta1", "v1"] }),
    ]);
    const res = await createConfigMap(ns, configMap("x"));
    expect(res.json.message).toBe(
      'admission webhook "beta.example.com" denied the request: beta says no',
    );
    expect(received.get("/beta")?.[0]).toMatchObject({
      apiVersion: "admission.k8s.io/v1beta1",
      kind: "AdmissionReview",
      request: { operation: "CREATE", name: "x" },
    });
  });

  it("passes the webhook's warnings back as Warning headers, on success and on denial", async () => {
    const ns = await namespaceFor("warn");
    handlers.set("/warn", (review) => {
      const name = String(((review.request["object"] as Json)["metadata"] as Json)["name"]);
      const warnings = ["think twice"];
      if (name === "no") {
        return {
          ...deny(review, { message: "no" }),
          response: { ...(deny(review, { message: "no" })["response"] as Json), warnings },
        };
      }
      return allow(review, { warnings });
    });
    await configure("validating", "warn", [webhook(ns, "warn.example.com", "/warn")]);
    const ok = await createConfigMap(ns, configMap("yes"));
    expect(ok.status).toBe(201);
    expect(header(ok, "warning")).toBe('299 - "think twice"');
    const denied = await createConfigMap(ns, configMap("no"));
    expect(denied.status).toBe(400);
    expect(header(denied, "warning")).toBe('299 - "think twice"');
  });
});

describe("mutating webhooks", () => {
  it("apply JSONPatch answers in order, before validation; the webhook sees no uid yet", async () => {
    const ns = await namespaceFor("mutate");
    handlers.set("/mutate-1", (review) =>
      jsonPatch(review, [{ op: "add", path: "/metadata/labels", value: { stage: "one" } }]),
    );
    handlers.set("/mutate-2", (review) =>
      jsonPatch(review, [{ op: "add", path: "/data/added", value: "by-two" }]),
    );
    await configure("mutating", "mutate-b", [webhook(ns, "two.example.com", "/mutate-2")]);
    await configure("mutating", "mutate-a", [webhook(ns, "one.example.com", "/mutate-1")]);
    const created = await createConfigMap(ns, configMap("patched"));
    expect(created.status, created.text).toBe(201);
    expect(created.json.metadata.labels).toEqual({ stage: "one" });
    expect(created.json.data).toEqual({ a: "1", added: "by-two" });
    const [first] = received.get("/mutate-1") ?? [];
    const [second] = received.get("/mutate-2") ?? [];
    // Configurations run in name order: mutate-a's webhook first, mutate-b's sees its patch.
    expect(((second?.request["object"] as Json)["metadata"] as Json)["labels"]).toEqual({
      stage: "one",
    });
    expect(((first?.request["object"] as Json)["metadata"] as Json)["uid"]).toBeUndefined();
  });

  it("reinvokes an IfNeeded webhook once when a later webhook changed the object", async () => {
    const ns = await namespaceFor("reinvoke");
    handlers.set("/reinvoke-a", (review) => {
      const labels = (((review.request["object"] as Json)["metadata"] as Json)["labels"] ??
        {}) as Json;
      return jsonPatch(review, [
        {
          op: "add",
          path: "/metadata/annotations",
          value: { "saw-b": String(labels["b"] === "yes") },
        },
      ]);
    });
    handlers.set("/reinvoke-b", (review) =>
      jsonPatch(review, [{ op: "add", path: "/metadata/labels", value: { b: "yes" } }]),
    );
    await configure("mutating", "reinvoke-1", [
      webhook(ns, "a.example.com", "/reinvoke-a", { reinvocationPolicy: "IfNeeded" }),
    ]);
    await configure("mutating", "reinvoke-2", [webhook(ns, "b.example.com", "/reinvoke-b")]);
    const created = await createConfigMap(ns, configMap("twice"));
    expect(created.status, created.text).toBe(201);
    expect(created.json.metadata.annotations).toEqual({ "saw-b": "true" });
    expect(received.get("/reinvoke-a")).toHaveLength(2);
    expect(received.get("/reinvoke-b")).toHaveLength(1);
  });

  it("runs on PATCH with the stored object as oldObject (UPDATE)", async () => {
    const ns = await namespaceFor("on-patch");
    expect((await createConfigMap(ns, configMap("cm"))).status).toBe(201);
    handlers.set("/on-patch", (review) =>
      jsonPatch(review, [{ op: "add", path: "/data/stamped", value: "yes" }]),
    );
    await configure("mutating", "on-patch", [webhook(ns, "patch.example.com", "/on-patch")]);
    const patched = await harness.client.patch(
      `/api/v1/namespaces/${ns}/configmaps/cm`,
      { data: { b: "2" } },
      "application/merge-patch+json",
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.data).toEqual({ a: "1", b: "2", stamped: "yes" });
    const [review] = received.get("/on-patch") ?? [];
    expect(review?.request).toMatchObject({
      operation: "UPDATE",
      oldObject: { data: { a: "1" } },
      options: { kind: "UpdateOptions" },
    });
  });
});

describe("failurePolicy", () => {
  /** What fails, the webhook's URL, and kube's reason after `failed to call webhook: `. */
  const failures: Array<[string, () => string, (url: string) => string]> = [
    [
      "times out",
      () => `https://127.0.0.1:${webhookPort}/hang`,
      (url) => `Post "${url}?timeout=1s": context deadline exceeded`,
    ],
    [
      "refuses the connection",
      () => "https://127.0.0.1:1/refused",
      (url) => `Post "${url}?timeout=1s": dial tcp 127.0.0.1:1: connect: connection refused`,
    ],
    [
      "answers garbage",
      () => `https://127.0.0.1:${webhookPort}/garbage`,
      () => "couldn't get version/kind; json parse error: malformed JSON",
    ],
  ];
  beforeAll(() => {
    handlers.set("/hang", () => "hang");
    handlers.set("/garbage", () => "garbage");
  });

  for (const [what, url, cause] of failures) {
    it(`Fail answers kube's 500 and Ignore admits when the webhook ${what}`, async () => {
      const test = `fail-${what.split(" ")[0] ?? ""}`;
      const ns = await namespaceFor(test);
      const hook = (policy: string): Json => ({
        ...webhook(ns, `${policy.toLowerCase()}.${test}.example.com`, "/unused", {
          failurePolicy: policy,
          timeoutSeconds: 1,
          objectSelector: { matchLabels: { policy } },
        }),
        clientConfig: { url: url(), caBundle },
      });
      await configure("validating", test, [hook("Fail"), hook("Ignore")]);
      const failed = await createConfigMap(ns, configMap("fail", {}, { policy: "Fail" }));
      const status = expectStatus(failed, 500, "InternalError");
      expect(status["message"]).toBe(
        `Internal error occurred: failed calling webhook "fail.${test}.example.com": ` +
          `failed to call webhook: ${cause(url())}`,
      );
      const ignored = await createConfigMap(ns, configMap("ignore", {}, { policy: "Ignore" }));
      expect(ignored.status, ignored.text).toBe(201);
    });
  }
});

describe("matching", () => {
  it("namespaceSelector, objectSelector and matchConditions decide whether the webhook is called", async () => {
    const ns = await namespaceFor("match");
    handlers.set("/match", (review) => deny(review, { message: "matched" }));
    await configure("validating", "match", [
      webhook(ns, "match.example.com", "/match", {
        objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] },
        matchConditions: [{ name: "not-exempt", expression: "object.metadata.name != 'exempt'" }],
      }),
    ]);
    expect((await createConfigMap(ns, configMap("hit"))).status).toBe(400);
    expect((await createConfigMap(ns, configMap("exempt"))).status).toBe(201);
    expect((await createConfigMap(ns, configMap("skipped", {}, { skip: "1" }))).status).toBe(201);
    // Another namespace is not selected.
    expect((await createConfigMap("default", configMap("elsewhere"))).status).toBe(201);
    expect(received.get("/match")).toHaveLength(1);
  });

  it("dryRun reaches webhooks without side effects; nothing is stored", async () => {
    const ns = await namespaceFor("dry");
    await configure("validating", "dry", [webhook(ns, "dry.example.com", "/dry")]);
    const res = await createConfigMap(ns, configMap("dry-one"), "?dryRun=All");
    expect(res.status, res.text).toBe(201);
    expect((received.get("/dry") ?? [])[0]?.request).toMatchObject({
      dryRun: true,
      options: { dryRun: ["All"] },
    });
    expect((await harness.client.get(`/api/v1/namespaces/${ns}/configmaps/dry-one`)).status).toBe(
      404,
    );
  });

  it("a webhook with side effects cannot be registered (sideEffects None or NoneOnDryRun)", async () => {
    const res = await harness.client.post(
      "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      {
        metadata: { name: "side-effects" },
        webhooks: [webhook("x", "side.example.com", "/x", { sideEffects: "Some" })],
      },
    );
    const status = expectStatus(res, 422, "Invalid");
    expect(status["message"]).toContain(
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    );
  });
});

describe("service clientConfig", () => {
  it("calls a webhook Service through its EndpointSlice, verifying <service>.<namespace>.svc", async () => {
    const ns = await namespaceFor("via-service");
    expect(
      (await harness.client.post("/api/v1/namespaces", { metadata: { name: "hooks" } })).status,
    ).toBe(201);
    const svc = await harness.client.post("/api/v1/namespaces/hooks/services", {
      metadata: { name: "webhook" },
      spec: { ports: [{ name: "https", port: 443 }] },
    });
    expect(svc.status, svc.text).toBe(201);
    const slice = await harness.client.post(
      "/apis/discovery.k8s.io/v1/namespaces/hooks/endpointslices",
      {
        metadata: { name: "webhook-1", labels: { "kubernetes.io/service-name": "webhook" } },
        addressType: "IPv4",
        endpoints: [{ addresses: ["127.0.0.1"] }],
        ports: [{ name: "https", port: webhookPort }],
      },
    );
    expect(slice.status, slice.text).toBe(201);
    handlers.set("/svc", (review) => deny(review, { message: "via the service" }));
    await configure("validating", "via-service", [
      {
        ...webhook(ns, "svc.example.com", "/unused"),
        clientConfig: { service: { namespace: "hooks", name: "webhook", path: "/svc" }, caBundle },
      },
    ]);
    const res = await createConfigMap(ns, configMap("x"));
    expect(res.json.message).toBe(
      'admission webhook "svc.example.com" denied the request: via the service',
    );
  });
});

function deployment(name: string): Json {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "nginx" }] } },
    },
  };
}

describe("every write path", () => {
  it("scale, status and DELETE are admitted with kube's kind, subresource and objects", async () => {
    const ns = await namespaceFor("paths");
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    expect((await harness.client.post(base, deployment("web"))).status).toBe(201);
    handlers.set("/paths", (review) => {
      const request = review.request;
      const replicas = ((request["object"] as Json | null)?.["spec"] as Json | undefined)?.[
        "replicas"
      ];
      if (request["subResource"] === "scale" && Number(replicas) > 5)
        return deny(review, { message: "too many" });
      return allow(review);
    });
    await configure("validating", "paths", [
      webhook(ns, "paths.example.com", "/paths", {
        rules: [
          {
            operations: ["UPDATE", "DELETE"],
            apiGroups: ["apps"],
            apiVersions: ["v1"],
            resources: ["deployments", "deployments/scale", "deployments/status"],
          },
        ],
      }),
    ]);
    const scaled = await harness.client.patch(
      `${base}/web/scale`,
      { spec: { replicas: 3 } },
      "application/merge-patch+json",
    );
    expect(scaled.status, scaled.text).toBe(200);
    const tooMany = await harness.client.patch(
      `${base}/web/scale`,
      { spec: { replicas: 9 } },
      "application/merge-patch+json",
    );
    expect(tooMany.json.message).toBe(
      'admission webhook "paths.example.com" denied the request: too many',
    );
    expect((await harness.client.get(base + "/web")).json.spec.replicas).toBe(3);
    const [scaleReview] = received.get("/paths") ?? [];
    expect(scaleReview?.request).toMatchObject({
      kind: { group: "autoscaling", version: "v1", kind: "Scale" },
      resource: { group: "apps", version: "v1", resource: "deployments" },
      subResource: "scale",
      operation: "UPDATE",
      object: { kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 3 } },
      oldObject: { kind: "Scale", spec: { replicas: 1 } },
    });
    const status = await harness.client.patch(
      `${base}/web/status`,
      { status: { observedGeneration: 1 } },
      "application/merge-patch+json",
    );
    expect(status.status, status.text).toBe(200);
    expect(received.get("/paths")?.[2]?.request).toMatchObject({
      subResource: "status",
      kind: { kind: "Deployment" },
    });
    expect((await harness.client.delete(`${base}/web`)).status).toBe(200);
    expect(received.get("/paths")?.[3]?.request).toMatchObject({
      operation: "DELETE",
      name: "web",
      object: null,
      oldObject: { metadata: { name: "web" } },
      options: { kind: "DeleteOptions", apiVersion: "meta.k8s.io/v1" },
    });
  });

  it("a patch whose object changed while it was admitted runs again on the new object", async () => {
    const ns = await namespaceFor("retry");
    expect((await createConfigMap(ns, configMap("cm"))).status).toBe(201);
    let interfered = false;
    let intrusions = 0;
    handlers.set("/retry", async (review) => {
      const options = review.request["options"] as Json;
      if (options["fieldManager"] !== "intruder" && !interfered) {
        interfered = true;
        intrusions++;
        const res = await harness.client.patch(
          `/api/v1/namespaces/${ns}/configmaps/cm?fieldManager=intruder`,
          { data: { intruder: `was-here-${intrusions}` } },
          "application/merge-patch+json",
        );
        expect(res.status, res.text).toBe(200);
      }
      return allow(review);
    });
    await configure("validating", "retry", [webhook(ns, "retry.example.com", "/retry")]);
    const patched = await harness.client.patch(
      `/api/v1/namespaces/${ns}/configmaps/cm`,
      { data: { mine: "yes" } },
      "application/merge-patch+json",
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.data).toEqual({ a: "1", intruder: "was-here-1", mine: "yes" });
    // A PUT carrying the resourceVersion it read fails as kube's does once another write won.
    interfered = false;
    const current = (await harness.client.get(`/api/v1/namespaces/${ns}/configmaps/cm`))
      .json as Json;
    const put = await harness.client.put(`/api/v1/namespaces/${ns}/configmaps/cm`, {
      ...current,
      data: { replaced: "yes" },
    });
    expect(expectStatus(put, 409, "Conflict")["message"]).toBe(
      'Operation cannot be fulfilled on configmaps "cm": the object has been modified; please apply your changes to the latest version and try again',
    );
    const stored = await harness.client.get(`/api/v1/namespaces/${ns}/configmaps/cm`);
    expect(stored.json.data).toEqual({ a: "1", intruder: "was-here-2", mine: "yes" });
  });

  it("a validating webhook that answers a patch fails the call", async () => {
    const ns = await namespaceFor("validating-patch");
    handlers.set("/validating-patch", (review) =>
      jsonPatch(review, [{ op: "add", path: "/data/x", value: "y" }]),
    );
    await configure("validating", "validating-patch", [
      webhook(ns, "vp.example.com", "/validating-patch"),
    ]);
    const status = expectStatus(await createConfigMap(ns, configMap("x")), 500, "InternalError");
    expect(status["message"]).toBe(
      'Internal error occurred: failed calling webhook "vp.example.com": received invalid webhook response: validating webhook may not return response.patch',
    );
  });
});

describe("matchPolicy", () => {
  it("Equivalent calls a webhook for the same resource at another version, sending that version", async () => {
    const ns = await namespaceFor("equivalent");
    const schema = {
      openAPIV3Schema: {
        type: "object",
        properties: { spec: { type: "object", properties: { size: { type: "integer" } } } },
      },
    };
    await createCrd(harness.client, {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.hooks.example.com" },
      spec: {
        group: "hooks.example.com",
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
        versions: [
          { name: "v1beta1", served: true, storage: false, schema },
          { name: "v1", served: true, storage: true, schema },
        ],
      },
    });
    await waitForCrdEstablished(harness.client, "widgets.hooks.example.com");
    const rules = [
      {
        operations: ["CREATE"],
        apiGroups: ["hooks.example.com"],
        apiVersions: ["v1"],
        resources: ["widgets"],
      },
    ];
    await configure("validating", "equivalent", [
      webhook(ns, "equivalent.example.com", "/equivalent", { rules, matchPolicy: "Equivalent" }),
      webhook(ns, "exact.example.com", "/exact", { rules, matchPolicy: "Exact" }),
    ]);
    const res = await harness.client.post(
      `/apis/hooks.example.com/v1beta1/namespaces/${ns}/widgets`,
      {
        apiVersion: "hooks.example.com/v1beta1",
        kind: "Widget",
        metadata: { name: "w" },
        spec: { size: 1 },
      },
    );
    expect(res.status, res.text).toBe(201);
    expect(received.get("/exact")).toBeUndefined();
    expect(received.get("/equivalent")?.[0]?.request).toMatchObject({
      kind: { group: "hooks.example.com", version: "v1", kind: "Widget" },
      resource: { group: "hooks.example.com", version: "v1", resource: "widgets" },
      requestKind: { group: "hooks.example.com", version: "v1beta1", kind: "Widget" },
      requestResource: { group: "hooks.example.com", version: "v1beta1", resource: "widgets" },
      object: { apiVersion: "hooks.example.com/v1", spec: { size: 1 } },
    });
  });
});

/** Runs kubectl against `kubeconfig` with HOME and the cache inside `dir`; never rejects on exit codes. */
function runKubectl(
  dir: string,
  kubeconfig: string,
  args: string[],
): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "kubectl",
      ["--kubeconfig", kubeconfig, "--cache-dir", join(dir, "cache"), ...args],
      { env: { ...process.env, HOME: dir }, timeout: KUBECTL_TIMEOUT_MS, encoding: "utf8" },
      (error, _stdout, stderr) => {
        resolve({ code: typeof error?.code === "number" ? error.code : error ? -1 : 0, stderr });
      },
    );
  });
}

describe.skipIf(!hasKubectl)("kubectl", () => {
  it("kubectl apply prints kube's denial and the webhook's warning", async () => {
    const ns = await namespaceFor("kubectl");
    handlers.set("/kubectl", (review) => {
      const name = String(((review.request["object"] as Json)["metadata"] as Json)["name"]);
      const response =
        name === "denied" ? deny(review, { message: "not this one" }) : allow(review);
      return {
        ...response,
        response: { ...(response["response"] as Json), warnings: ["checked by the webhook"] },
      };
    });
    await configure("validating", "kubectl", [webhook(ns, "kubectl.example.com", "/kubectl")]);
    const dir = await mkdtemp(join(tmpdir(), "admission-kubectl-"));
    try {
      const kubeconfig = join(dir, "kubeconfig");
      await harness.server.writeKubeconfig(kubeconfig, { namespace: ns });
      const manifest = (name: string): string =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n`;
      await writeFile(join(dir, "ok.yaml"), manifest("accepted"));
      await writeFile(join(dir, "denied.yaml"), manifest("denied"));
      const ok = await runKubectl(dir, kubeconfig, ["apply", "-f", join(dir, "ok.yaml")]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stderr).toContain("Warning: checked by the webhook");
      const denied = await runKubectl(dir, kubeconfig, ["apply", "-f", join(dir, "denied.yaml")]);
      expect(denied.code).toBe(1);
      expect(denied.stderr).toContain("Warning: checked by the webhook");
      expect(denied.stderr).toContain(
        `Error from server: error when creating "${join(dir, "denied.yaml")}": admission webhook "kubectl.example.com" denied the request: not this one`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
