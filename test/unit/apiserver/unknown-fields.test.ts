import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { findUnknownFields } from "../../../packages/apiserver/src/schema/unknown-fields.js";

const DEPLOYMENT = "k8s.io.api.apps.v1.Deployment";
const POD = "k8s.io.api.core.v1.Pod";

function deployment(containerExtra: JsonObject = {}, specExtra: JsonObject = {}): JsonObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      labels: { "app.kubernetes.io/name": "web" },
      annotations: { anything: "goes" },
      creationTimestamp: null,
      managedFields: [
        { manager: "m", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:x": {} } } },
      ],
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: [
            {
              name: "app",
              image: "nginx",
              env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "cm", key: "a" } } }],
              resources: { limits: { cpu: "1", "example.com/gpu": 1 } },
              readinessProbe: { httpGet: { path: "/", port: 80 }, periodSeconds: 3 },
              ...containerExtra,
            },
          ],
          volumes: [
            { name: "cfg", configMap: { name: "cm" } },
            { name: "secret", secret: { secretName: "s" } },
          ],
        },
      },
      ...specExtra,
    },
    status: {},
  };
}

describe("findUnknownFields", () => {
  it("accepts a valid Deployment, including inline embedded fields and leaf types", () => {
    expect(findUnknownFields(deployment(), DEPLOYMENT)).toEqual([]);
  });

  it("reports nested unknown fields with kube-apiserver's path format, in document order", () => {
    const obj = deployment({
      bogusField: true,
      ports: [{ containerPort: 80 }, { containerPort: 81, nope: 1 }],
    });
    (obj.metadata as JsonObject).extra = "x";
    obj.topLevel = 1;
    expect(findUnknownFields(obj, DEPLOYMENT)).toEqual([
      "metadata.extra",
      "spec.template.spec.containers[0].bogusField",
      "spec.template.spec.containers[0].ports[1].nope",
      "topLevel",
    ]);
  });

  it("allows apiVersion and kind only at the top level", () => {
    expect(findUnknownFields(deployment({}, { kind: "X", apiVersion: "v1" }), DEPLOYMENT)).toEqual([
      "spec.kind",
      "spec.apiVersion",
    ]);
  });

  it("treats the proto name of an inline field as unknown and is case-sensitive", () => {
    const pod: JsonObject = {
      apiVersion: "v1",
      kind: "Pod",
      Metadata: {},
      spec: {
        containers: [{ name: "c", livenessProbe: { handler: { exec: { command: ["true"] } } } }],
        volumes: [{ name: "v", volumeSource: { emptyDir: {} } }],
      },
    };
    expect(findUnknownFields(pod, POD)).toEqual([
      "Metadata",
      "spec.containers[0].livenessProbe.handler",
      "spec.volumes[0].volumeSource",
    ]);
  });

  it("descends into map values of message type with .key", () => {
    const slice: JsonObject = {
      apiVersion: "resource.k8s.io/v1",
      kind: "ResourceSlice",
      spec: {
        driver: "d",
        devices: [
          {
            name: "gpu0",
            attributes: { model: { string: "x" }, "vendor.com/mem": { int: 1, bogus: 2 } },
          },
        ],
      },
    };
    expect(findUnknownFields(slice, "k8s.io.api.resource.v1.ResourceSlice")).toEqual([
      "spec.devices[0].attributes.vendor.com/mem.bogus",
    ]);
  });

  it("does not look inside RawExtension, string-list maps or values of the wrong type", () => {
    const rev: JsonObject = {
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      data: { whatever: { deeply: ["nested"] } },
      revision: 1,
    };
    expect(findUnknownFields(rev, "k8s.io.api.apps.v1.ControllerRevision")).toEqual([]);
    const sar: JsonObject = { spec: { extra: { scopes: ["a"] }, user: "u" } };
    expect(findUnknownFields(sar, "k8s.io.api.authorization.v1.SubjectAccessReview")).toEqual([]);
    expect(findUnknownFields({ spec: "oops", metadata: null }, DEPLOYMENT)).toEqual([]);
    expect(
      findUnknownFields({ spec: { template: { spec: { containers: "x" } } } }, DEPLOYMENT),
    ).toEqual([]);
  });

  it("returns nothing for a message the tables do not know", () => {
    expect(findUnknownFields({ anything: 1 }, "com.example.v1.Widget")).toEqual([]);
  });
});
