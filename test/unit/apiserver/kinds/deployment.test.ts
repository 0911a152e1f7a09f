import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { deploymentStrategy } from "../../../../packages/apiserver/src/kinds/deployment.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * apps/v1 Deployments: SetDefaults_Deployment (`pkg/apis/apps/v1/defaults.go`),
 * ValidateDeployment / ValidateDeploymentUpdate (`pkg/apis/apps/validation/validation.go`).
 */

const deployment = hooksOf(deploymentStrategy);

function deploymentWith(spec: JsonObject): JsonObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default" },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "web", image: "nginx:1.27" }] },
      },
      ...spec,
    },
  };
}

describe("Deployment defaults", () => {
  it("sets replicas, the RollingUpdate strategy, history and progress deadline, and the template's pod defaults", () => {
    const spec = deployment.applyDefaults(deploymentWith({}))["spec"] as JsonObject;
    expect(spec).toMatchObject({
      replicas: 1,
      strategy: {
        type: "RollingUpdate",
        rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" },
      },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      template: { spec: { restartPolicy: "Always", dnsPolicy: "ClusterFirst" } },
    });
  });

  it("keeps what is set and adds no rollingUpdate to a Recreate strategy", () => {
    const spec = deployment.applyDefaults(
      deploymentWith({
        replicas: 0,
        strategy: { type: "Recreate" },
        revisionHistoryLimit: 2,
        progressDeadlineSeconds: 60,
      }),
    )["spec"] as JsonObject;
    expect(spec).toMatchObject({
      replicas: 0,
      revisionHistoryLimit: 2,
      progressDeadlineSeconds: 60,
    });
    expect(spec["strategy"]).toEqual({ type: "Recreate" });
    const partial = deployment.applyDefaults(
      deploymentWith({ strategy: { rollingUpdate: { maxSurge: 1 } } }),
    )["spec"] as JsonObject;
    expect(partial["strategy"]).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxSurge: 1, maxUnavailable: "25%" },
    });
  });
});

describe("Deployment validation", () => {
  it("accepts a defaulted deployment", () => {
    expect(deployment.validateCreate(deployment.applyDefaults(deploymentWith({})))).toEqual([]);
  });

  it("allows only restartPolicy Always in the template", () => {
    const obj = deployment.applyDefaults(
      deploymentWith({
        template: {
          metadata: { labels: { app: "web" } },
          spec: { restartPolicy: "Never", containers: [{ name: "web", image: "nginx" }] },
        },
      }),
    );
    expect(messages(deployment.validateCreate(obj))).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]);
  });

  it("names the kind in the empty-selector message and checks replicas", () => {
    const obj = deployment.applyDefaults(deploymentWith({ selector: {}, replicas: -1 }));
    expect(messages(deployment.validateCreate(obj))).toEqual([
      "spec.selector: Invalid value: {}: empty selector is invalid for deployment",
      "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
    ]);
  });

  it("keeps the selector immutable on update", () => {
    const old = deployment.applyDefaults(deploymentWith({}));
    const scaled = deployment.updated(deploymentWith({ replicas: 3 }), old);
    expect(deployment.validateUpdate(scaled, old)).toEqual([]);
    const moved = deployment.updated(
      deploymentWith({
        selector: { matchLabels: { app: "web", tier: "x" } },
        template: {
          metadata: { labels: { app: "web", tier: "x" } },
          spec: { containers: [{ name: "web", image: "nginx" }] },
        },
      }),
      old,
    );
    expect(messages(deployment.validateUpdate(moved, old))).toEqual([
      'spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: field is immutable',
    ]);
  });
});

describe("Deployment policy and printer", () => {
  it("tracks generation and prints kube's columns", () => {
    expect(deploymentStrategy.policy).toEqual({ tracksGeneration: true });
    expect(deploymentStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Ready",
      "Up-to-date",
      "Available",
      "Age",
      "Containers",
      "Images",
      "Selector",
    ]);
  });
});
