import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { defaultPodSpec } from "../../../../packages/apiserver/src/kinds/pod-spec.js";
import {
  defaultReplicas,
  validateNoActiveDeadline,
  validateNonNegative,
  validateSelectorUnchanged,
  validateWorkloadSpec,
  withDefaultedSpec,
} from "../../../../packages/apiserver/src/kinds/workload.js";
import { frozen, messages } from "./kind-test-helpers.js";

/**
 * The selector, replica and template rules the apps/v1 and batch/v1 workloads share
 * (`pkg/apis/apps/validation/validation.go`, `pkg/apis/apps/v1/defaults.go`).
 */

const TEMPLATE = {
  metadata: { labels: { app: "web" } },
  spec: defaultPodSpec({ containers: [{ name: "web", image: "nginx" }] }),
};

function workload(spec: JsonObject): JsonObject {
  return frozen({ metadata: { name: "w" }, spec: { template: TEMPLATE, ...spec } });
}

const LABELS_MISMATCH =
  'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`';

describe("defaultReplicas and withDefaultedSpec", () => {
  it("defaults replicas to 1 and keeps a set count, 0 included", () => {
    expect(defaultReplicas(frozen({}))).toEqual({ replicas: 1 });
    expect(defaultReplicas(frozen({ replicas: 0 }))).toEqual({ replicas: 0 });
    expect(defaultReplicas(frozen({ replicas: null }))).toEqual({ replicas: 1 });
  });

  it("runs the pod template defaults before the kind's spec defaults", () => {
    const out = withDefaultedSpec(
      frozen({ spec: { template: { spec: { containers: [] } } } }),
      (spec) => ({ ...spec, seen: (spec["template"] as JsonObject)["spec"] ?? null }),
    );
    expect((out["spec"] as JsonObject)["seen"]).toMatchObject({ restartPolicy: "Always" });
  });
});

describe("validateWorkloadSpec", () => {
  it("accepts a selector matching the template", () => {
    expect(
      validateWorkloadSpec(workload({ selector: { matchLabels: { app: "web" } } }), "deployment", [
        "Always",
      ]),
    ).toEqual([]);
  });

  it("requires a selector, or reads a missing one as matching nothing (DaemonSet)", () => {
    expect(messages(validateWorkloadSpec(workload({}), "deployment", ["Always"]))).toEqual([
      "spec.selector: Required value",
    ]);
    expect(
      messages(validateWorkloadSpec(workload({}), "daemonset", ["Always"], "matchesNothing")),
    ).toEqual([LABELS_MISMATCH]);
  });

  it("rejects an empty selector naming the kind, but for Jobs", () => {
    expect(
      messages(validateWorkloadSpec(workload({ selector: {} }), "deployment", ["Always"])),
    ).toEqual(["spec.selector: Invalid value: {}: empty selector is invalid for deployment"]);
    expect(validateWorkloadSpec(workload({ selector: {} }), "job", ["Always"])).toEqual([]);
  });

  it("reports a selector that does not match the template labels", () => {
    expect(
      messages(
        validateWorkloadSpec(workload({ selector: { matchLabels: { app: "db" } } }), "deployment", [
          "Always",
        ]),
      ),
    ).toEqual([LABELS_MISMATCH]);
  });

  it("reports an unconvertible selector as each kind's validation words it", () => {
    const bad = { selector: { matchExpressions: [{ key: "app", operator: "In", values: [] }] } };
    const required =
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'";
    expect(messages(validateWorkloadSpec(workload(bad), "deployment", ["Always"]))).toEqual([
      required,
      'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"In","values":[]}]}: invalid label selector',
    ]);
    expect(messages(validateWorkloadSpec(workload(bad), "statefulset", ["Always"]))).toEqual([
      required,
      'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"In","values":[]}]}',
    ]);
    expect(messages(validateWorkloadSpec(workload(bad), "daemonset", ["Always"]))).toEqual([
      required,
    ]);
  });

  it("checks replicas and the template's pod spec with the kind's restart policies", () => {
    expect(
      messages(
        validateWorkloadSpec(
          workload({ selector: { matchLabels: { app: "web" } }, replicas: -1 }),
          "deployment",
          ["OnFailure", "Never"],
        ),
      ),
    ).toEqual([
      "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
      'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    ]);
  });
});

describe("the other shared rules", () => {
  it("validateNonNegative: ValidateNonnegativeField at `<path>.<key>`", () => {
    expect(
      messages(validateNonNegative(frozen({ minReadySeconds: -5 }), "minReadySeconds", "spec")),
    ).toEqual(["spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0"]);
    expect(validateNonNegative(frozen({ minReadySeconds: 0 }), "minReadySeconds", "spec")).toEqual(
      [],
    );
  });

  it("validateNoActiveDeadline: a template's activeDeadlineSeconds must not be specified", () => {
    expect(
      messages(
        validateNoActiveDeadline(frozen({ template: { spec: { activeDeadlineSeconds: 30 } } })),
      ),
    ).toEqual([
      "spec.template.spec.activeDeadlineSeconds: Invalid value: 30: must not be specified",
    ]);
    expect(validateNoActiveDeadline(frozen({ template: { spec: {} } }))).toEqual([]);
  });

  it("validateSelectorUnchanged: the selector is immutable", () => {
    const old = workload({ selector: { matchLabels: { app: "web" } } });
    expect(validateSelectorUnchanged(old, old)).toEqual([]);
    expect(
      messages(
        validateSelectorUnchanged(workload({ selector: { matchLabels: { app: "db" } } }), old),
      ),
    ).toEqual(['spec.selector: Invalid value: {"matchLabels":{"app":"db"}}: field is immutable']);
  });
});
