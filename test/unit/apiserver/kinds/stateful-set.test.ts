import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { isDns1123Label } from "kubekit/apimachinery";
import { statefulSetStrategy } from "../../../../packages/apiserver/src/kinds/stateful-set.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * apps/v1 StatefulSets: SetDefaults_StatefulSet (`pkg/apis/apps/v1/defaults.go`),
 * ValidateStatefulSetSpec / ValidateStatefulSetUpdate (`pkg/apis/apps/validation/validation.go`).
 */

const statefulSet = hooksOf(statefulSetStrategy);

const UPDATE_FORBIDDEN =
  "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

function statefulSetWith(spec: JsonObject): JsonObject {
  return {
    metadata: { name: "db", namespace: "default" },
    spec: {
      serviceName: "db",
      selector: { matchLabels: { app: "db" } },
      template: {
        metadata: { labels: { app: "db" } },
        spec: { containers: [{ name: "db", image: "postgres:16" }] },
      },
      ...spec,
    },
  };
}

describe("StatefulSet defaults", () => {
  it("sets kube's defaults, volumeClaimTemplates defaulted as claims", () => {
    const spec = statefulSet.applyDefaults(
      statefulSetWith({
        volumeClaimTemplates: [
          { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } },
        ],
      }),
    )["spec"] as JsonObject;
    expect(spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
      template: { spec: { restartPolicy: "Always" } },
    });
    expect(spec["volumeClaimTemplates"]).toEqual([
      {
        metadata: { name: "data" },
        spec: { accessModes: ["ReadWriteOnce"], volumeMode: "Filesystem" },
        status: { phase: "Pending" },
      },
    ]);
  });

  it("keeps what is set", () => {
    const spec = statefulSet.applyDefaults(
      statefulSetWith({
        podManagementPolicy: "Parallel",
        updateStrategy: { type: "OnDelete" },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete" },
      }),
    )["spec"] as JsonObject;
    expect(spec).toMatchObject({
      podManagementPolicy: "Parallel",
      updateStrategy: { type: "OnDelete" },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
    });
    expect(spec["updateStrategy"]).not.toHaveProperty("rollingUpdate");
  });
});

describe("StatefulSet validation", () => {
  it("accepts a defaulted StatefulSet", () => {
    expect(statefulSet.validateCreate(statefulSet.applyDefaults(statefulSetWith({})))).toEqual([]);
  });

  it("checks policies, counts, serviceName and the template", () => {
    const obj = statefulSet.applyDefaults(
      statefulSetWith({
        podManagementPolicy: "Random",
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: -1 } },
        revisionHistoryLimit: -1,
        minReadySeconds: -1,
        serviceName: "Not_A_Label",
        template: {
          metadata: { labels: { app: "db" } },
          spec: { activeDeadlineSeconds: 5, containers: [{ name: "db", image: "postgres" }] },
        },
      }),
    );
    expect(messages(statefulSet.validateCreate(obj))).toEqual([
      "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
      "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0",
      "spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
      "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0",
      ...isDns1123Label("Not_A_Label").map(
        (m) => `spec.serviceName: Invalid value: "Not_A_Label": ${m}`,
      ),
      "spec.template.spec.activeDeadlineSeconds: Invalid value: 5: must not be specified",
    ]);
  });

  it("rejects an unknown update strategy and rollingUpdate with OnDelete", () => {
    const unknown = statefulSet.applyDefaults(
      statefulSetWith({ updateStrategy: { type: "Sometimes" } }),
    );
    expect(messages(statefulSet.validateCreate(unknown))).toEqual([
      "spec.updateStrategy: Invalid value: {\"type\":\"Sometimes\"}: must be 'RollingUpdate' or 'OnDelete'",
    ]);
    const onDelete = statefulSet.applyDefaults(
      statefulSetWith({ updateStrategy: { type: "OnDelete", rollingUpdate: { partition: 1 } } }),
    );
    expect(messages(statefulSet.validateCreate(onDelete))).toEqual([
      "spec.updateStrategy.rollingUpdate: Invalid value: {\"partition\":1}: only allowed for updateStrategy 'RollingUpdate'",
    ]);
  });

  it("requires a selector and reports an unconvertible one without detail", () => {
    const missing = statefulSet.applyDefaults(statefulSetWith({ selector: null }));
    expect(messages(statefulSet.validateCreate(missing))).toEqual([
      "spec.selector: Required value",
    ]);
    const unconvertible = statefulSet.applyDefaults(
      statefulSetWith({
        selector: { matchExpressions: [{ key: "app", operator: "Exists", values: ["x"] }] },
      }),
    );
    expect(messages(statefulSet.validateCreate(unconvertible))).toEqual([
      "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Exists","values":["x"]}]}',
    ]);
  });
});

describe("StatefulSet update", () => {
  const old = statefulSet.applyDefaults(statefulSetWith({}));

  it("allows the mutable fields to change", () => {
    const next = statefulSet.updated(
      statefulSetWith({
        replicas: 3,
        minReadySeconds: 5,
        revisionHistoryLimit: 3,
        updateStrategy: { type: "OnDelete" },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Delete" },
        template: {
          metadata: { labels: { app: "db" } },
          spec: { containers: [{ name: "db", image: "postgres:17" }] },
        },
      }),
      old,
    );
    expect(statefulSet.validateUpdate(next, old)).toEqual([]);
  });

  it("forbids any other spec change, absent and empty values alike", () => {
    const renamed = statefulSet.updated(statefulSetWith({ serviceName: "other" }), old);
    expect(messages(statefulSet.validateUpdate(renamed, old))).toEqual([UPDATE_FORBIDDEN]);
    const parallel = statefulSet.updated(statefulSetWith({ podManagementPolicy: "Parallel" }), old);
    expect(messages(statefulSet.validateUpdate(parallel, old))).toEqual([UPDATE_FORBIDDEN]);
    const emptyList = statefulSet.updated(statefulSetWith({ volumeClaimTemplates: [] }), old);
    expect(statefulSet.validateUpdate(emptyList, old)).toEqual([]);
  });
});

describe("StatefulSet policy and printer", () => {
  it("tracks generation, names are DNS-1123 labels, prints kube's columns", () => {
    expect(statefulSetStrategy.policy).toEqual({ tracksGeneration: true, nameRule: "label" });
    expect(statefulSetStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Ready",
      "Age",
      "Containers",
      "Images",
    ]);
  });
});
