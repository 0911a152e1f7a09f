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
 * `x-kubernetes-validations` rules of a CRD version on the write path over HTTP, as
 * kube-apiserver 1.32 runs them (`pkg/registry/customresource/strategy.go`): after the
 * OpenAPI validation, skipped after a blocking error, transition rules against the old object.
 */

const GROUP = "cel.example.com";
const NS = "crcel";
const BASE = `/apis/${GROUP}/v1/namespaces/${NS}/scalers`;

function scalerCrd(): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `scalers.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural: "scalers", singular: "scaler", kind: "Scaler", listKind: "ScalerList" },
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
                  "x-kubernetes-validations": [
                    {
                      rule: "self.minReplicas <= self.maxReplicas",
                      message: "minReplicas must not exceed maxReplicas",
                    },
                  ],
                  properties: {
                    minReplicas: { type: "integer" },
                    maxReplicas: { type: "integer" },
                    mode: {
                      type: "string",
                      enum: ["fast", "slow"],
                      "x-kubernetes-validations": [
                        { rule: "self == oldSelf", message: "mode is immutable" },
                      ],
                    },
                  },
                },
                status: { type: "object", properties: { ready: { type: "integer" } } },
              },
            },
          },
        },
      ],
    },
  };
}

function scaler(name: string, spec: Json): Json {
  return { apiVersion: `${GROUP}/v1`, kind: "Scaler", metadata: { name }, spec };
}

describe("CEL rules of custom resources", () => {
  const h = useServer();

  it("refuses an object breaking a rule, with the rule's message", async () => {
    await createNamespace(h.client, NS);
    await createCrd(h.client, scalerCrd());
    await waitForCrdEstablished(h.client, `scalers.${GROUP}`);
    const res = await h.client.post(
      BASE,
      scaler("bad", { minReplicas: 5, maxReplicas: 2, mode: "fast" }),
    );
    expect(expectStatus(res, 422, "Invalid")["message"]).toBe(
      `Scaler.${GROUP} "bad" is invalid: spec: Invalid value: "object": minReplicas must not exceed maxReplicas`,
    );
    const ok = await h.client.post(
      BASE,
      scaler("ok", { minReplicas: 1, maxReplicas: 2, mode: "fast" }),
    );
    expect(ok.status, ok.text).toBe(201);
  });

  it("runs transition rules against the old object on update", async () => {
    const res = await h.client.patch(
      `${BASE}/ok`,
      { spec: { mode: "slow" } },
      "application/merge-patch+json",
    );
    expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
      {
        reason: "FieldValueInvalid",
        message: 'Invalid value: "string": mode is immutable',
        field: "spec.mode",
      },
    ]);
    const same = await h.client.patch(
      `${BASE}/ok`,
      { spec: { maxReplicas: 3 } },
      "application/merge-patch+json",
    );
    expect(same.status, same.text).toBe(200);
  });

  it("skips the rules after a blocking error, and says so", async () => {
    const res = await h.client.post(
      BASE,
      scaler("blocked", { minReplicas: 5, maxReplicas: 2, mode: "medium" }),
    );
    expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
      {
        reason: "FieldValueNotSupported",
        message: 'Unsupported value: "medium": supported values: "fast", "slow"',
        field: "spec.mode",
      },
      {
        reason: "FieldValueInvalid",
        message:
          'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
        field: "<nil>",
      },
    ]);
  });

  it("runs the rules on /status writes too", async () => {
    const current = await h.client.get(`${BASE}/ok`);
    const res = await h.client.put(`${BASE}/ok/status`, { ...current.json, status: { ready: 1 } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toEqual({ ready: 1 });
  });
});
