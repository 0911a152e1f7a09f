import { beforeAll, describe, expect, it } from "vitest";
import type { RawResponse } from "../../support/api-client.js";
import { expectStatus, useServer } from "../../support/server-test-helpers.js";

function warnings(res: RawResponse): string[] {
  const value = res.headers["warning"];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** kube's body (test/integration/apiserver/field_validation_test.go, invalidBodyJSON). */
function deployment(name: string): string {
  return `{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {
    "name": "dupename",
    "name": "${name}",
    "labels": {"app": "nginx"},
    "unknownMeta": "metaVal"
  },
  "spec": {
    "unknown1": "val1",
    "unknownDupe": "valDupe",
    "unknownDupe": "valDupe2",
    "paused": true,
    "paused": false,
    "selector": {"matchLabels": {"app": "nginx"}},
    "template": {
      "metadata": {"labels": {"app": "nginx"}},
      "spec": {
        "containers": [{
          "name": "nginx",
          "image": "nginx:latest",
          "unknownNested": "val1",
          "imagePullPolicy": "Always",
          "imagePullPolicy": "Never"
        }]
      }
    }
  }
}`;
}

const KUBE_ERRORS = [
  'duplicate field "metadata.name"',
  'unknown field "metadata.unknownMeta"',
  'unknown field "spec.unknown1"',
  'unknown field "spec.unknownDupe"',
  'duplicate field "spec.paused"',
  'unknown field "spec.template.spec.containers[0].unknownNested"',
  'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
];

/** The Warning header value kube sends for a warning text (code 299, agent "-", Go-quoted). */
function warningHeader(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}

const DEPLOYMENTS = "/apis/apps/v1/namespaces/dupes/deployments";

describe("duplicate fields in request bodies (fieldValidation)", () => {
  const h = useServer();

  beforeAll(async () => {
    const ns = await h.client.post("/api/v1/namespaces", { metadata: { name: "dupes" } });
    expect(ns.status, ns.text).toBe(201);
  });

  it("Warn (the default): 201, one Warning per duplicate and unknown field, last value kept", async () => {
    const res = await h.client.post(DEPLOYMENTS, deployment("warned"));
    expect(res.status, res.text).toBe(201);
    expect(warnings(res)).toEqual(KUBE_ERRORS.map(warningHeader));
    const json = res.json as { metadata: { name: string }; spec: { paused: boolean } };
    expect(json.metadata.name).toBe("warned");
    // The last `paused` (false) wins over the first (true), and Go omits false (omitempty).
    expect(json.spec.paused).toBeUndefined();
  });

  it("Strict: 400 strict decoding error listing the errors in document order", async () => {
    const res = await h.client.post(`${DEPLOYMENTS}?fieldValidation=Strict`, deployment("strict"));
    const status = expectStatus(res, 400, "BadRequest");
    expect(status["message"]).toBe(
      `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ${KUBE_ERRORS.join(", ")}`,
    );
    expect((await h.client.get(`${DEPLOYMENTS}/strict`)).status).toBe(404);
  });

  it("Ignore: 201 without warnings", async () => {
    const res = await h.client.post(`${DEPLOYMENTS}?fieldValidation=Ignore`, deployment("ignored"));
    expect(res.status, res.text).toBe(201);
    expect(warnings(res)).toEqual([]);
  });

  it("PUT with Strict reports a duplicate field of the update body", async () => {
    const created = await h.client.post("/api/v1/namespaces/dupes/configmaps", {
      metadata: { name: "cm" },
      data: { a: "1" },
    });
    expect(created.status, created.text).toBe(201);
    const rv = (created.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","resourceVersion":"${rv}"},"data":{"a":"2","a":"3"}}`;
    const res = await h.client.put(
      "/api/v1/namespaces/dupes/configmaps/cm?fieldValidation=Strict",
      body,
    );
    const status = expectStatus(res, 400, "BadRequest");
    expect(status["message"]).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a"',
    );
  });
});
