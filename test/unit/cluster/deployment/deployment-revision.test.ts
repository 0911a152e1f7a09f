import type { Deployment } from "kubernetes-types/apps/v1.js";
import { describe, expect, it } from "vitest";
import { setNewReplicaSetAnnotations } from "../../../../packages/cluster/src/deployment/deployment-revision.js";

function deployment(annotations: Record<string, string> = {}): Deployment {
  return {
    metadata: { name: "web", annotations },
    spec: { replicas: 3, selector: {}, template: {} },
  };
}

describe("setNewReplicaSetAnnotations (kube's revision bookkeeping)", () => {
  it("gives a new ReplicaSet the revision, the replica annotations and the Deployment's other annotations", () => {
    const annotations: Record<string, string> = {};
    const d = deployment({
      "kubernetes.io/change-cause": "v1",
      "deployment.kubernetes.io/revision": "7",
      "kubectl.kubernetes.io/last-applied-configuration": "{}",
    });
    expect(setNewReplicaSetAnnotations(d, annotations, 1, false, 1)).toBe(true);
    expect(annotations).toEqual({
      "kubernetes.io/change-cause": "v1",
      "deployment.kubernetes.io/revision": "1",
      "deployment.kubernetes.io/desired-replicas": "3",
      "deployment.kubernetes.io/max-replicas": "4",
    });
  });

  it("moves a reused ReplicaSet's old revision into revision-history", () => {
    const annotations: Record<string, string> = {
      "deployment.kubernetes.io/revision": "3",
      "deployment.kubernetes.io/revision-history": "1",
    };
    expect(setNewReplicaSetAnnotations(deployment(), annotations, 5, true, 1)).toBe(true);
    expect(annotations).toEqual({
      "deployment.kubernetes.io/revision": "5",
      "deployment.kubernetes.io/revision-history": "1,3",
    });
  });

  it("changes nothing for a ReplicaSet already at the newest revision", () => {
    const annotations: Record<string, string> = { "deployment.kubernetes.io/revision": "5" };
    expect(setNewReplicaSetAnnotations(deployment(), annotations, 4, true, 1)).toBe(false);
    expect(annotations).toEqual({ "deployment.kubernetes.io/revision": "5" });
  });

  it("drops the oldest revisions to keep revision-history within 2000 characters", () => {
    const long = Array.from({ length: 400 }, (_, i) => String(10_000 + i)).join(",");
    const annotations: Record<string, string> = {
      "deployment.kubernetes.io/revision": "20000",
      "deployment.kubernetes.io/revision-history": long,
    };
    setNewReplicaSetAnnotations(deployment(), annotations, 20_001, true, 1);
    const history = annotations["deployment.kubernetes.io/revision-history"] ?? "";
    expect(history.length).toBeLessThanOrEqual(2000);
    expect(history.endsWith(",20000")).toBe(true);
    expect(history.startsWith("10000,")).toBe(false);
  });
});
