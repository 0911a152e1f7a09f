import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { daemonSetStrategy } from "../../../../packages/apiserver/src/kinds/daemon-set.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * apps/v1 DaemonSets: SetDefaults_DaemonSet (`pkg/apis/apps/v1/defaults.go`),
 * ValidateDaemonSetSpec (`pkg/apis/apps/validation/validation.go`), the template generation and
 * immutable selector of `pkg/registry/apps/daemonset/strategy.go`.
 */

const daemonSet = hooksOf(daemonSetStrategy);
const GENERATION = "deprecated.daemonset.template.generation";

function daemonSetWith(spec: JsonObject, metadata: JsonObject = {}): JsonObject {
  return {
    metadata: { name: "agent", namespace: "kube-system", ...metadata },
    spec: {
      selector: { matchLabels: { app: "agent" } },
      template: {
        metadata: { labels: { app: "agent" } },
        spec: { containers: [{ name: "agent", image: "agent:1" }] },
      },
      ...spec,
    },
  };
}

function generationOf(obj: JsonObject): unknown {
  return ((obj["metadata"] as JsonObject)["annotations"] as JsonObject | undefined)?.[GENERATION];
}

describe("DaemonSet defaults and template generation", () => {
  it("sets the RollingUpdate strategy (1 unavailable, 0 surge) and history limit", () => {
    const spec = daemonSet.applyDefaults(daemonSetWith({}))["spec"] as JsonObject;
    expect(spec).toMatchObject({
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
      template: { spec: { restartPolicy: "Always" } },
    });
    expect(spec).not.toHaveProperty("replicas");
    const onDelete = daemonSet.applyDefaults(
      daemonSetWith({ updateStrategy: { type: "OnDelete" } }),
    )["spec"] as JsonObject;
    expect(onDelete["updateStrategy"]).toEqual({ type: "OnDelete" });
  });

  it("starts the template generation at 1 and keeps a higher one sent on create", () => {
    expect(generationOf(daemonSet.prepareForCreate(daemonSetWith({})))).toBe("1");
    expect(
      generationOf(
        daemonSet.prepareForCreate(daemonSetWith({}, { annotations: { [GENERATION]: "4" } })),
      ),
    ).toBe("4");
  });

  it("bumps the template generation only when the template changes", () => {
    const old = daemonSet.created(daemonSetWith({}));
    expect(
      generationOf(daemonSet.prepareForUpdate(daemonSetWith({ minReadySeconds: 5 }), old)),
    ).toBe("1");
    const changed = daemonSetWith({
      template: {
        metadata: { labels: { app: "agent" } },
        spec: { containers: [{ name: "agent", image: "agent:2" }] },
      },
    });
    expect(generationOf(daemonSet.prepareForUpdate(changed, old))).toBe("2");
  });
});

describe("DaemonSet validation", () => {
  it("accepts a defaulted DaemonSet", () => {
    expect(daemonSet.validateCreate(daemonSet.created(daemonSetWith({})))).toEqual([]);
  });

  it("reads a missing selector as matching nothing and rejects an empty one", () => {
    expect(
      messages(daemonSet.validateCreate(daemonSet.created(daemonSetWith({ selector: null })))),
    ).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"agent"}: `selector` does not match template `labels`',
    ]);
    expect(
      messages(daemonSet.validateCreate(daemonSet.created(daemonSetWith({ selector: {} })))),
    ).toEqual(["spec.selector: Invalid value: {}: empty selector is invalid for daemonset"]);
  });

  it("checks the update strategy, counts, restart policy and activeDeadlineSeconds", () => {
    const obj = daemonSet.created(
      daemonSetWith({
        updateStrategy: { type: "Sometimes" },
        minReadySeconds: -1,
        revisionHistoryLimit: -2,
        template: {
          metadata: { labels: { app: "agent" } },
          spec: {
            restartPolicy: "OnFailure",
            activeDeadlineSeconds: 10,
            containers: [{ name: "agent", image: "agent:1" }],
          },
        },
      }),
    );
    expect(messages(daemonSet.validateCreate(obj))).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"',
      "spec.template.spec.activeDeadlineSeconds: Invalid value: 10: must not be specified",
      "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
      'spec.updateStrategy.type: Unsupported value: "Sometimes": supported values: "RollingUpdate", "OnDelete"',
      "spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0",
    ]);
  });

  it("keeps the selector immutable on update", () => {
    const old = daemonSet.created(daemonSetWith({}));
    const next = daemonSet.updated(
      daemonSetWith({ selector: { matchLabels: { app: "agent", v: "2" } } }),
      old,
    );
    expect(messages(daemonSet.validateUpdate(next, old))).toContain(
      'spec.selector: Invalid value: {"matchLabels":{"app":"agent","v":"2"}}: field is immutable',
    );
    expect(
      daemonSet.validateUpdate(daemonSet.updated(daemonSetWith({ minReadySeconds: 3 }), old), old),
    ).toEqual([]);
  });

  it("tracks generation and prints kube's columns", () => {
    expect(daemonSetStrategy.policy).toEqual({ tracksGeneration: true });
    expect(daemonSetStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Desired",
      "Current",
      "Ready",
      "Up-to-date",
      "Available",
      "Node Selector",
      "Age",
      "Containers",
      "Images",
      "Selector",
    ]);
  });
});
