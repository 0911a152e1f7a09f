import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { jobStrategy } from "../../../../packages/apiserver/src/kinds/job.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * batch/v1 Jobs: generateSelector (`pkg/registry/batch/job/strategy.go`), SetDefaults_Job
 * (`pkg/apis/batch/v1/defaults.go`), ValidateJob / ValidateJobUpdate
 * (`pkg/apis/batch/validation/validation.go`).
 */

const job = hooksOf(jobStrategy);
const UID = "3f1c2a4e-0000-4000-8000-000000000001";

function jobWith(spec: JsonObject, metadata: JsonObject = {}): JsonObject {
  return {
    metadata: { name: "pi", namespace: "default", uid: UID, ...metadata },
    spec: {
      template: {
        metadata: { labels: { app: "pi" } },
        spec: { restartPolicy: "Never", containers: [{ name: "pi", image: "perl:5.34" }] },
      },
      ...spec,
    },
  };
}

describe("Job create: the generated selector", () => {
  it("selects the Job's own pods by controller-uid and labels the template", () => {
    const spec = job.prepareForCreate(jobWith({}))["spec"] as JsonObject;
    expect(spec["selector"]).toEqual({
      matchLabels: { "batch.kubernetes.io/controller-uid": UID },
    });
    expect((spec["template"] as JsonObject)["metadata"]).toEqual({
      labels: {
        app: "pi",
        "batch.kubernetes.io/controller-uid": UID,
        "batch.kubernetes.io/job-name": "pi",
        "controller-uid": UID,
        "job-name": "pi",
      },
    });
  });

  it("leaves a manualSelector Job alone", () => {
    const manual = jobWith({ manualSelector: true, selector: { matchLabels: { app: "pi" } } });
    expect(job.prepareForCreate(manual)).toEqual(manual);
  });
});

describe("Job defaults (SetDefaults_Job)", () => {
  it("sets the counts, backoffLimit, completionMode, suspend and podReplacementPolicy", () => {
    expect(job.applyDefaults(jobWith({}))["spec"]).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: "NonIndexed",
      suspend: false,
      podReplacementPolicy: "TerminatingOrFailed",
      template: { spec: { restartPolicy: "Never", dnsPolicy: "ClusterFirst" } },
    });
  });

  it("leaves completions unset when parallelism is set, and Failed replacement with a podFailurePolicy", () => {
    const spec = job.applyDefaults(jobWith({ parallelism: 3, podFailurePolicy: { rules: [] } }))[
      "spec"
    ] as JsonObject;
    expect(spec).not.toHaveProperty("completions");
    expect(spec).toMatchObject({ parallelism: 3, podReplacementPolicy: "Failed" });
    const completions = job.applyDefaults(jobWith({ completions: 5 }))["spec"] as JsonObject;
    expect(completions).toMatchObject({ completions: 5, parallelism: 1 });
  });

  it("copies the template's labels to a Job without labels", () => {
    expect((job.applyDefaults(jobWith({}))["metadata"] as JsonObject)["labels"]).toEqual({
      app: "pi",
    });
    const labelled = job.applyDefaults(jobWith({}, { labels: { team: "a" } }));
    expect((labelled["metadata"] as JsonObject)["labels"]).toEqual({ team: "a" });
  });
});

describe("Job validation", () => {
  it("accepts a created Job", () => {
    expect(job.validateCreate(job.created(jobWith({})))).toEqual([]);
  });

  it("allows only OnFailure and Never, so a template left to default to Always is rejected", () => {
    const always = jobWith({
      template: { metadata: {}, spec: { containers: [{ name: "pi", image: "perl" }] } },
    });
    expect(messages(job.validateCreate(job.created(always)))).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    ]);
  });

  it("rejects negative counts", () => {
    const obj = job.created(
      jobWith({ parallelism: -1, completions: -2, backoffLimit: -3, activeDeadlineSeconds: -4 }),
    );
    expect(messages(job.validateCreate(obj))).toEqual([
      "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
      "spec.completions: Invalid value: -2: must be greater than or equal to 0",
      "spec.backoffLimit: Invalid value: -3: must be greater than or equal to 0",
      "spec.activeDeadlineSeconds: Invalid value: -4: must be greater than or equal to 0",
    ]);
  });

  it("checks a manual selector against the template, an empty one allowed", () => {
    const mismatch = job.created(
      jobWith({ manualSelector: true, selector: { matchLabels: { app: "other" } } }),
    );
    expect(messages(job.validateCreate(mismatch))).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"pi"}: `selector` does not match template `labels`',
    ]);
    expect(
      job.validateCreate(job.created(jobWith({ manualSelector: true, selector: {} }))),
    ).toEqual([]);
  });

  it("keeps the selector and the template immutable", () => {
    const old = job.created(jobWith({}));
    const oldSpec = old["spec"] as JsonObject;
    expect(
      job.validateUpdate(job.updated({ ...old, spec: { ...oldSpec, suspend: true } }, old), old),
    ).toEqual([]);
    const template = {
      ...(oldSpec["template"] as JsonObject),
      spec: { restartPolicy: "Never", containers: [{ name: "pi", image: "perl:5.36" }] },
    };
    const next = job.updated(
      { ...old, spec: { ...oldSpec, selector: { matchLabels: { a: "b" } }, template } },
      old,
    );
    const errors = messages(job.validateUpdate(next, old));
    expect(errors).toContain(
      'spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: field is immutable',
    );
    expect(
      errors.filter(
        (m) => m.startsWith("spec.template: Invalid value: ") && m.endsWith(": field is immutable"),
      ),
    ).toHaveLength(1);
  });

  it("tracks generation, selects by status.successful and prints kube's columns", () => {
    expect(jobStrategy.policy?.tracksGeneration).toBe(true);
    expect(
      jobStrategy.policy?.selectableFields?.["status.successful"]?.({ status: { successful: 1 } }),
    ).toBe("1");
    expect(jobStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Status",
      "Completions",
      "Duration",
      "Age",
      "Containers",
      "Images",
      "Selector",
    ]);
  });
});
