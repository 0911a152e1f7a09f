import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { replicaSetStrategy } from "../../../../packages/apiserver/src/kinds/replica-set.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/** apps/v1 ReplicaSets (`pkg/apis/apps/validation/validation.go` ValidateReplicaSet*). */

const replicaSet = hooksOf(replicaSetStrategy);

function replicaSetWith(spec: JsonObject): JsonObject {
  return {
    metadata: { name: "web-1", namespace: "default" },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "web", image: "nginx" }] },
      },
      ...spec,
    },
  };
}

describe("ReplicaSet", () => {
  it("defaults replicas to 1 and the template's pod spec, nothing else", () => {
    const spec = replicaSet.applyDefaults(replicaSetWith({}))["spec"] as JsonObject;
    expect(spec["replicas"]).toBe(1);
    expect(spec["template"]).toMatchObject({
      spec: { restartPolicy: "Always", terminationGracePeriodSeconds: 30 },
    });
    expect(spec).not.toHaveProperty("strategy");
    expect(spec).not.toHaveProperty("revisionHistoryLimit");
  });

  it("validates as a Deployment does, with the Deployment's empty-selector wording", () => {
    expect(replicaSet.validateCreate(replicaSet.applyDefaults(replicaSetWith({})))).toEqual([]);
    expect(
      messages(
        replicaSet.validateCreate(replicaSet.applyDefaults(replicaSetWith({ selector: {} }))),
      ),
    ).toEqual(["spec.selector: Invalid value: {}: empty selector is invalid for deployment"]);
    expect(
      messages(
        replicaSet.validateCreate(
          replicaSet.applyDefaults(replicaSetWith({ selector: { matchLabels: { app: "db" } } })),
        ),
      ),
    ).toEqual([
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  it("keeps the selector immutable", () => {
    const old = replicaSet.applyDefaults(replicaSetWith({}));
    expect(
      replicaSet.validateUpdate(replicaSet.updated(replicaSetWith({ replicas: 5 }), old), old),
    ).toEqual([]);
    const next = replicaSet.updated(
      replicaSetWith({ selector: { matchLabels: { app: "web", v: "2" } } }),
      old,
    );
    expect(messages(replicaSet.validateUpdate(next, old))).toContain(
      'spec.selector: Invalid value: {"matchLabels":{"app":"web","v":"2"}}: field is immutable',
    );
  });

  it("tracks generation, selects by status.replicas and prints kube's columns", () => {
    expect(replicaSetStrategy.policy?.tracksGeneration).toBe(true);
    expect(
      replicaSetStrategy.policy?.selectableFields?.["status.replicas"]?.({
        status: { replicas: 3 },
      }),
    ).toBe("3");
    expect(replicaSetStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Desired",
      "Current",
      "Ready",
      "Age",
      "Containers",
      "Images",
      "Selector",
    ]);
  });
});
