import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { validatePathSegmentName } from "kubekit/apimachinery";
import { horizontalPodAutoscalerStrategy } from "../../../../packages/apiserver/src/kinds/horizontal-pod-autoscaler.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * autoscaling HorizontalPodAutoscalers (`pkg/apis/autoscaling/validation/validation.go`
 * ValidateHorizontalPodAutoscaler, validateMetricSpec, validateScalingRules).
 */

const hpa = hooksOf(horizontalPodAutoscalerStrategy);

function hpaWith(spec: JsonObject): JsonObject {
  return {
    metadata: { name: "web", namespace: "default" },
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
      minReplicas: 1,
      maxReplicas: 5,
      ...spec,
    },
  };
}

function errors(spec: JsonObject): string[] {
  return messages(hpa.validateCreate(hpaWith(spec)));
}

const CPU = {
  type: "Resource",
  resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
};

describe("HorizontalPodAutoscaler replicas and target", () => {
  it("accepts a valid autoscaler, on create and update", () => {
    expect(errors({ metrics: [CPU] })).toEqual([]);
    expect(hpa.validateUpdate(hpaWith({ maxReplicas: 10 }), hpaWith({}))).toEqual([]);
  });

  it("checks minReplicas, maxReplicas and their order", () => {
    expect(
      errors({
        minReplicas: 0,
        metrics: [
          {
            type: "External",
            external: { metric: { name: "queue" }, target: { type: "Value", value: "10" } },
          },
        ],
      }),
    ).toEqual(["spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"]);
    expect(errors({ minReplicas: 3, maxReplicas: 2 })).toEqual([
      "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`",
    ]);
    expect(errors({ maxReplicas: 0 })).toEqual([
      "spec.maxReplicas: Invalid value: 0: must be greater than 0",
      "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
    ]);
  });

  it("requires the scale target's kind and name, path segments", () => {
    expect(errors({ scaleTargetRef: { name: "a/b" } })).toEqual([
      "spec.scaleTargetRef.kind: Required value",
      ...validatePathSegmentName("a/b").map(
        (m) => `spec.scaleTargetRef.name: Invalid value: "a/b": ${m}`,
      ),
    ]);
  });

  it("reports autoscaling/v1's CPU target at the converted metric's path", () => {
    expect(errors({ targetCPUUtilizationPercentage: 0 })).toEqual([
      "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
    ]);
  });
});

describe("HorizontalPodAutoscaler metrics (validateMetricSpec)", () => {
  it("requires a supported type with exactly its own source", () => {
    expect(errors({ metrics: [{ type: "Custom" }] })).toEqual([
      'spec.metrics[0].type: Unsupported value: "Custom": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
      'spec.metrics[0].type: Unsupported value: "Custom": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
    ]);
    expect(errors({ metrics: [{ type: "Pods", resource: CPU.resource }] })).toEqual([
      "spec.metrics[0].pods: Required value: must populate information for the given metric source",
    ]);
    expect(
      errors({
        metrics: [
          {
            ...CPU,
            pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "1" } },
          },
        ],
      }),
    ).toEqual(["spec.metrics[0].pods: Forbidden: must populate the given metric source only"]);
  });

  it("checks targets: type, positive values, utilization", () => {
    expect(
      errors({
        metrics: [
          {
            type: "Resource",
            resource: {
              name: "cpu",
              target: { type: "Percent", averageValue: "-1", averageUtilization: 0 },
            },
          },
        ],
      }),
    ).toEqual([
      'spec.metrics[0].resource.target.type: Invalid value: "Percent": must be either Utilization, Value, or AverageValue',
      'spec.metrics[0].resource.target.averageValue: Invalid value: "-1": must be positive',
      "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
      "spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization",
    ]);
  });

  it("requires what each source needs", () => {
    expect(
      errors({ metrics: [{ type: "Pods", pods: { metric: {}, target: { type: "Value" } } }] }),
    ).toEqual([
      "spec.metrics[0].pods.metric.name: Required value: must specify a metric name",
      "spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue",
    ]);
    expect(
      errors({
        metrics: [
          { type: "ContainerResource", containerResource: { target: { type: "Utilization" } } },
        ],
      }),
    ).toEqual([
      "spec.metrics[0].containerResource.name: Required value: must specify a resource name",
      "spec.metrics[0].containerResource.container: Required value: must specify a container",
      "spec.metrics[0].containerResource.target.averageUtilization: Required value: must set either a target raw value or a target utilization",
    ]);
    expect(
      errors({
        metrics: [
          {
            type: "Object",
            object: {
              metric: { name: "hits" },
              describedObject: { kind: "Ingress", name: "main" },
              target: { type: "Value" },
            },
          },
        ],
      }),
    ).toEqual([
      "spec.metrics[0].object.target.averageValue: Required value: must set either a target value or averageValue",
    ]);
    expect(
      errors({
        metrics: [
          {
            type: "External",
            external: {
              metric: { name: "q" },
              target: { type: "Value", value: "1", averageValue: "1" },
            },
          },
        ],
      }),
    ).toEqual([
      "spec.metrics[0].external.target.value: Forbidden: may not set both a target value for metric and a per-pod target",
    ]);
  });

  it("requires an Object or External metric to scale to zero", () => {
    expect(errors({ minReplicas: 0, metrics: [CPU] })).toEqual([
      "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
      "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
    ]);
  });
});

describe("HorizontalPodAutoscaler behavior (validateScalingRules)", () => {
  it("checks the window, the select policy and each policy", () => {
    expect(
      errors({
        behavior: {
          scaleUp: {
            stabilizationWindowSeconds: 3601,
            selectPolicy: "Median",
            policies: [{ type: "Nodes", value: 0, periodSeconds: 1801 }],
          },
          scaleDown: { stabilizationWindowSeconds: -1, policies: [] },
        },
      }),
    ).toEqual([
      "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
      'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Median": supported values: "Disabled", "Max", "Min"',
      'spec.behavior.scaleUp.policies[0].type: Unsupported value: "Nodes": supported values: "Percent", "Pods"',
      "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
      "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
      "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero",
      "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy",
    ]);
  });

  it("tracks generation", () => {
    expect(horizontalPodAutoscalerStrategy.policy).toEqual({ tracksGeneration: true });
  });
});
