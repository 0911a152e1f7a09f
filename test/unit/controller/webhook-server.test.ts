/**
 * The WebhookServer over real HTTPS on 127.0.0.1: request handling of admission and
 * conversion reviews, bad input, deadlines, health, metrics and certificate reloads.
 */
import { X509Certificate } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import {
  KubeConfig,
  Manager,
  PrometheusMetricFactory,
  WebhookServer,
  admissionHandler,
  applyJsonPatch,
  conversionWebhook,
  mutatingWebhookFor,
  newInvalid,
  noopLogger,
  validatingWebhookFor,
  type JsonObject,
  type JsonValue,
} from "kubekit";
import { FakeClock } from "kubekit/testing";
import { generateWebhookCertificates, type WebhookCertificates } from "@kubekit/cluster";
import { eventually, waitFor } from "../../support/server-test-helpers.js";

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly json: JsonObject;
  /** SHA-256 fingerprint of the certificate the server presented. */
  readonly fingerprint: string;
}

/** POSTs (or sends `method`) on a new connection, trusting `ca` when given. */
function send(
  port: number,
  path: string,
  body: string | Buffer,
  options: { ca?: string; contentType?: string; method?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? "POST",
        agent: false,
        ...(options.ca !== undefined
          ? { ca: options.ca, servername: "localhost" }
          : { rejectUnauthorized: false }),
        headers: { "Content-Type": options.contentType ?? "application/json" },
      },
      (res) => {
        const fingerprint =
          (res.socket as TLSSocket).getPeerX509Certificate()?.fingerprint256 ?? "";
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: JsonObject = {};
          try {
            json = JSON.parse(text) as JsonObject;
          } catch {
            // plain text answers
          }
          resolve({ status: res.statusCode ?? 0, body: text, json, fingerprint });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const deployment = (replicas: number | undefined, name = "web"): Deployment => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace: "default" },
  spec: {
    ...(replicas !== undefined ? { replicas } : {}),
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: "c", image: "nginx" }] },
    },
  },
});

/** An AdmissionReview of `operation` on a Deployment. */
function review(
  operation: string,
  objects: { object?: Deployment; oldObject?: Deployment },
  apiVersion = "admission.k8s.io/v1",
): string {
  return JSON.stringify({
    apiVersion,
    kind: "AdmissionReview",
    request: {
      uid: `uid-${operation}`,
      kind: { group: "apps", version: "v1", kind: "Deployment" },
      resource: { group: "apps", version: "v1", resource: "deployments" },
      name: "web",
      namespace: "default",
      operation,
      userInfo: { username: "alice" },
      ...objects,
    },
  });
}

const response = (answer: Answer): JsonObject => answer.json["response"] as JsonObject;

describe("WebhookServer", () => {
  let dir: string;
  let certificates: WebhookCertificates;
  let server: WebhookServer;
  let port: number;
  const registry = new Registry();
  const clock = new FakeClock();
  const slowCalls: AdmissionRequestSeen[] = [];
  type AdmissionRequestSeen = { readonly signal: AbortSignal };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "webhook-server-test-"));
    certificates = await generateWebhookCertificates({ certDir: dir });
    server = new WebhookServer({
      port: 0,
      certDir: dir,
      maxRequestBytes: 1024 * 1024,
      metricFactory: new PrometheusMetricFactory({ registry }),
      logger: noopLogger,
      clock,
      certPollIntervalMs: 3_600_000,
    });
    server.register(
      "/validate",
      validatingWebhookFor<Deployment>({
        validateCreate(obj) {
          if ((obj.spec?.replicas ?? 1) > 10) throw new Error("replicas must be at most 10");
          return ["created through the webhook"];
        },
        validateUpdate(oldObj, obj) {
          if (obj.spec?.replicas === 0) {
            throw newInvalid({ group: "apps", kind: "Deployment" }, "web", [
              {
                type: "FieldValueInvalid",
                field: "spec.replicas",
                badValue: 0,
                detail: "must not be 0",
              },
            ]);
          }
          return oldObj.spec?.replicas !== obj.spec?.replicas ? ["replicas changed"] : undefined;
        },
      }),
    );
    server.register(
      "/mutate",
      mutatingWebhookFor<Deployment>({
        default(obj) {
          obj.spec!.replicas ??= 1;
          obj.metadata!.labels = { ...obj.metadata!.labels, "example.com/defaulted": "true" };
          obj.spec!.template.spec!.containers.push({ name: "sidecar", image: "proxy" });
        },
      }),
    );
    server.register(
      "/throws",
      admissionHandler(() => {
        throw new TypeError("cannot read properties of undefined");
      }),
    );
    server.register(
      "/slow",
      admissionHandler(
        (_request, signal) =>
          new Promise(() => {
            slowCalls.push({ signal });
          }),
      ),
    );
    server.register(
      "/convert",
      conversionWebhook({
        hub: "example.com/v1",
        spokes: {
          "example.com/v1beta1": {
            toHub: ({ spec, ...rest }) => {
              const { size, ...others } = spec as JsonObject;
              return { ...rest, spec: { ...others, replicas: size ?? 1 } };
            },
            fromHub: ({ spec, ...rest }) => {
              const { replicas, ...others } = spec as JsonObject;
              return { ...rest, spec: { ...others, size: replicas ?? 1 } };
            },
          },
          "example.com/v1alpha1": {
            toHub: (obj) => obj,
            fromHub: () => {
              throw new Error("v1alpha1 cannot hold this object");
            },
          },
        },
      }),
    );
    await server.start();
    port = server.port!;
  });

  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  describe("validating webhooks", () => {
    it("allows with the validator's warnings, echoing the uid and version", async () => {
      const answer = await send(port, "/validate", review("CREATE", { object: deployment(3) }), {
        ca: certificates.caPem,
      });
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
      });
      expect(response(answer)).toEqual({
        uid: "uid-CREATE",
        allowed: true,
        status: { code: 200 },
        warnings: ["created through the webhook"],
      });
    });

    it("denies with 403 Forbidden and the thrown message", async () => {
      const answer = await send(
        port,
        "/validate",
        review("CREATE", { object: deployment(11) }, "admission.k8s.io/v1beta1"),
        {
          ca: certificates.caPem,
        },
      );
      expect(answer.json["apiVersion"]).toBe("admission.k8s.io/v1beta1");
      expect(response(answer)).toEqual({
        uid: "uid-CREATE",
        allowed: false,
        status: { code: 403, reason: "Forbidden", message: "replicas must be at most 10" },
      });
    });

    it("denies with a thrown StatusError's status, and passes update warnings", async () => {
      const denied = await send(
        port,
        "/validate",
        review("UPDATE", { object: deployment(0), oldObject: deployment(2) }),
        {
          ca: certificates.caPem,
        },
      );
      expect(response(denied)).toMatchObject({
        allowed: false,
        status: { code: 422, reason: "Invalid", details: { name: "web", kind: "Deployment" } },
      });
      expect((response(denied)["status"] as JsonObject)["message"]).toContain(
        "spec.replicas: Invalid value: 0: must not be 0",
      );
      const warned = await send(
        port,
        "/validate",
        review("UPDATE", { object: deployment(4), oldObject: deployment(2) }),
        {
          ca: certificates.caPem,
        },
      );
      expect(response(warned)).toMatchObject({ allowed: true, warnings: ["replicas changed"] });
    });

    it("allows an operation without a validator and answers 400 for a missing object", async () => {
      const deleted = await send(port, "/validate", review("DELETE", { oldObject: deployment(1) }));
      expect(response(deleted)).toEqual({
        uid: "uid-DELETE",
        allowed: true,
        status: { code: 200 },
      });
      const empty = await send(port, "/validate", review("CREATE", {}));
      expect(response(empty)).toMatchObject({
        allowed: false,
        status: { code: 400, message: "there is no content to decode" },
      });
    });
  });

  describe("mutating webhooks", () => {
    it("answers the JSON Patch that turns the object into the defaulted one", async () => {
      const original = deployment(undefined);
      const answer = await send(port, "/mutate", review("CREATE", { object: original }));
      const res = response(answer);
      expect(res).toMatchObject({ uid: "uid-CREATE", allowed: true, patchType: "JSONPatch" });
      const patch = JSON.parse(
        Buffer.from(res["patch"] as string, "base64").toString("utf8"),
      ) as JsonValue;
      const expected = deployment(1);
      expected.metadata!.labels = { "example.com/defaulted": "true" };
      expected.spec!.template.spec!.containers.push({ name: "sidecar", image: "proxy" });
      expect(applyJsonPatch(original as unknown as JsonObject, patch)).toEqual(expected);
    });

    it("sends no patch when nothing changes and allows DELETE untouched", async () => {
      const server2 = mutatingWebhookFor({ default: () => undefined });
      const unchanged = await server2.handle({
        body: JSON.parse(
          review("UPDATE", { object: deployment(2), oldObject: deployment(2) }),
        ) as JsonValue,
        signal: new AbortController().signal,
        timeoutMs: undefined,
        logger: noopLogger,
      });
      expect((unchanged.body as JsonObject)["response"]).toEqual({
        uid: "uid-UPDATE",
        allowed: true,
        status: { code: 200 },
      });
      const deleted = await send(port, "/mutate", review("DELETE", { oldObject: deployment(2) }));
      expect(response(deleted)).toEqual({
        uid: "uid-DELETE",
        allowed: true,
        status: { code: 200 },
      });
    });
  });

  describe("bad input", () => {
    it("answers a handler that throws with a denial carrying the message", async () => {
      const answer = await send(port, "/throws", review("CREATE", { object: deployment(1) }));
      expect(answer.status).toBe(200);
      expect(response(answer)).toEqual({
        uid: "uid-CREATE",
        allowed: false,
        status: { code: 500, message: "cannot read properties of undefined" },
      });
    });

    it("answers 400 with a message for malformed, non-review, empty, mistyped and oversized bodies", async () => {
      const cases: [string | Buffer, string | undefined, string][] = [
        [
          '{"apiVersion": "admission.k8s.io/v1", "request": {',
          undefined,
          "unable to decode the request: malformed JSON",
        ],
        [
          '{"apiVersion": "v1", "kind": "Pod"}',
          undefined,
          'apiVersion: unsupported AdmissionReview version "v1"',
        ],
        [
          '{"kind": "AdmissionReview", "request": {"uid": "u"}}',
          undefined,
          "request.operation: unknown operation null",
        ],
        ["", undefined, "request body is empty"],
        ["{}", "text/plain", "contentType=text/plain, expected application/json"],
        [
          Buffer.alloc(1024 * 1024 + 1, 0x20),
          undefined,
          "request entity is too large; limit is 1048576 bytes",
        ],
      ];
      for (const [body, contentType, message] of cases) {
        const answer = await send(
          port,
          "/validate",
          body,
          contentType !== undefined ? { contentType } : {},
        );
        expect(answer.status, message).toBe(400);
        expect(response(answer), message).toMatchObject({
          uid: "",
          allowed: false,
          status: { code: 400 },
        });
        expect((response(answer)["status"] as JsonObject)["message"]).toContain(message);
      }
    });

    it("answers 404 for other paths and 405 for other methods", async () => {
      expect((await send(port, "/nowhere", "{}")).status).toBe(404);
      const get = await send(port, "/validate", "", { method: "GET" });
      expect(get.status).toBe(405);
    });

    it("answers a handler slower than the request's timeout before the caller gives up", async () => {
      const pending = send(port, "/slow?timeout=10s", review("CREATE", { object: deployment(1) }));
      await waitFor("the slow handler to be called", async () => slowCalls.length === 1);
      expect(slowCalls[0]!.signal.aborted).toBe(false);
      clock.advance(8_999);
      expect(slowCalls[0]!.signal.aborted).toBe(false);
      clock.advance(1); // 9 s: 1 s before the caller's 10 s
      const answer = await pending;
      expect(slowCalls[0]!.signal.aborted).toBe(true);
      expect(response(answer)).toEqual({
        uid: "uid-CREATE",
        allowed: false,
        status: {
          code: 504,
          reason: "Timeout",
          message: "the webhook did not answer within the request's timeout of 10000 ms",
        },
      });
    });
  });

  describe("conversion webhooks", () => {
    const conversionReview = (desiredAPIVersion: string, objects: JsonObject[]): string =>
      JSON.stringify({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "ConversionReview",
        request: { uid: "conv-1", desiredAPIVersion, objects },
      });
    const widget = (apiVersion: string, spec: JsonObject): JsonObject => ({
      apiVersion,
      kind: "Widget",
      metadata: { name: "w", uid: "1234" },
      spec,
    });

    it("converts spoke to hub, hub to spoke, and keeps objects already at the version", async () => {
      const answer = await send(
        port,
        "/convert",
        conversionReview("example.com/v1", [
          widget("example.com/v1beta1", { size: 3, color: "red" }),
          widget("example.com/v1", { replicas: 2 }),
        ]),
      );
      expect(answer.json).toEqual({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "ConversionReview",
        response: {
          uid: "conv-1",
          convertedObjects: [
            widget("example.com/v1", { color: "red", replicas: 3 }),
            widget("example.com/v1", { replicas: 2 }),
          ],
          result: { status: "Success" },
        },
      });
      const back = await send(
        port,
        "/convert",
        conversionReview("example.com/v1beta1", [widget("example.com/v1", { replicas: 5 })]),
      );
      expect(response(back)["convertedObjects"]).toEqual([
        widget("example.com/v1beta1", { size: 5 }),
      ]);
    });

    it("answers a failure for a throwing conversion and an unknown version", async () => {
      const thrown = await send(
        port,
        "/convert",
        conversionReview("example.com/v1alpha1", [widget("example.com/v1beta1", {})]),
      );
      expect(response(thrown)).toEqual({
        uid: "conv-1",
        convertedObjects: [],
        result: { status: "Failure", message: "v1alpha1 cannot hold this object" },
      });
      const unknown = await send(
        port,
        "/convert",
        conversionReview("example.com/v9", [widget("example.com/v1", {})]),
      );
      expect((response(unknown)["result"] as JsonObject)["message"]).toContain(
        "example.com/v9 is neither the hub nor a spoke",
      );
      const malformed = await send(port, "/convert", '{"apiVersion": "apiextensions.k8s.io/v1"}');
      expect(malformed.status).toBe(400);
      expect(response(malformed)).toMatchObject({
        result: { status: "Failure", message: "conversion request is nil" },
      });
    });
  });

  describe("serving", () => {
    it("answers /healthz and passes its started checker", async () => {
      const health = await send(port, "/healthz", "", { method: "GET", ca: certificates.caPem });
      expect(health).toMatchObject({ status: 200, body: "ok" });
      await expect(server.startedChecker()(new AbortController().signal)).resolves.toBeUndefined();
      const idle = new WebhookServer({
        port: 0,
        logger: noopLogger,
        metricFactory: new PrometheusMetricFactory({ registry: new Registry() }),
      });
      expect(() => idle.startedChecker()(new AbortController().signal)).toThrow(
        "webhook server has not been started yet",
      );
      expect(() =>
        server.register(
          "/validate",
          admissionHandler(() => ({ allowed: true })),
        ),
      ).toThrow("can't register duplicate path: /validate");
    });

    it("records controller-runtime's metrics per webhook path", async () => {
      const text = await registry.metrics();
      expect(text).toMatch(
        /^controller_runtime_webhook_requests_total\{webhook="\/validate",code="200"\} [1-9]\d*$/m,
      );
      expect(text).toMatch(
        /^controller_runtime_webhook_requests_total\{webhook="\/validate",code="400"\} 6$/m,
      );
      expect(text).toContain(
        'controller_runtime_webhook_requests_total{webhook="/convert",code="500"} 0',
      );
      expect(text).toMatch(
        /^controller_runtime_webhook_latency_seconds_count\{webhook="\/mutate"\} [1-9]\d*$/m,
      );
      expect(text).toContain(
        'controller_runtime_webhook_latency_seconds_bucket{le="1e-8",webhook="/mutate"} 0',
      );
      expect(text).toContain(
        'controller_runtime_webhook_requests_in_flight{webhook="/validate"} 0',
      );
    });

    it("serves a rotated certificate on the next connection", async () => {
      const before = await send(port, "/healthz", "", { method: "GET" });
      expect(before.fingerprint).toBe(new X509Certificate(certificates.certPem).fingerprint256);
      const rotated = await generateWebhookCertificates({ certDir: dir });
      const expected = new X509Certificate(rotated.certPem).fingerprint256;
      await eventually("the new certificate to be served", async () => {
        const answer = await send(port, "/healthz", "", { method: "GET" });
        return answer.fingerprint === expected ? answer : undefined;
      });
      const trusted = await send(port, "/healthz", "", { method: "GET", ca: rotated.caPem });
      expect(trusted.body).toBe("ok");
      await expect(
        send(port, "/healthz", "", { method: "GET", ca: certificates.caPem }),
      ).rejects.toThrow();
    });

    it("runs in a Manager on every replica, ready once serving, stopped with the manager", async () => {
      const other = new WebhookServer({
        port: 0,
        certificate: { certPem: certificates.certPem, keyPem: certificates.keyPem },
        metricFactory: new PrometheusMetricFactory({ registry: new Registry() }),
      });
      expect(other.needLeaderElection).toBe(false);
      const mgr = new Manager({
        kubeConfig: KubeConfig.fromDocument({
          apiVersion: "v1",
          kind: "Config",
          clusters: [{ name: "c", cluster: { server: "http://127.0.0.1:1" } }],
          users: [{ name: "u", user: {} }],
          contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
          "current-context": "x",
        }),
        // A leader election that never succeeds: the webhook server runs regardless.
        leaderElection: { namespace: "default", name: "webhook-test" },
        healthPort: 0,
        registry: new Registry(),
        logger: noopLogger,
      });
      mgr.add(other);
      mgr.addReadyzCheck("webhook", other.startedChecker());
      const stop = new AbortController();
      const running = mgr.start(stop.signal);
      const otherPort = await eventually("the webhook server to listen", async () => other.port);
      expect(
        (await send(otherPort, "/healthz", "", { method: "GET", ca: certificates.caPem })).body,
      ).toBe("ok");
      const readyz = await fetch(`http://127.0.0.1:${mgr.healthPort}/readyz/webhook`);
      expect(readyz.status).toBe(200);
      expect(mgr.isLeader()).toBe(false);
      stop.abort();
      await running;
      await expect(send(otherPort, "/healthz", "", { method: "GET" })).rejects.toThrow(
        /ECONNREFUSED/,
      );
    });
  });
});
