import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { NODE_STORAGE_ID } from "../../../../packages/apiserver/src/kinds/node.js";
import { podStrategy } from "../../../../packages/apiserver/src/kinds/pod.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * Pods (`pkg/registry/core/pod/strategy.go`; ValidatePodCreate / ValidatePodUpdate in
 * `pkg/apis/core/validation/validation.go`; CheckGracefulDelete).
 */

const pod = hooksOf(podStrategy);

const POD_UPDATE_FORBIDDEN =
  "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

function podWith(spec: JsonObject, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "default" },
    spec,
    ...extra,
  };
}

const created = pod.created(
  podWith({
    containers: [{ name: "web", image: "nginx:1.27" }],
    tolerations: [{ key: "a", operator: "Exists" }],
  }),
);

describe("Pod create", () => {
  it("starts Pending with a BestEffort QoS class, whatever status the client sent", () => {
    const prepared = pod.prepareForCreate(
      podWith({ containers: [] }, { status: { phase: "Running", podIP: "10.0.0.1" } }),
    );
    expect(prepared["status"]).toEqual({ phase: "Pending", qosClass: "BestEffort" });
  });

  it("defaults the pod spec and enableServiceLinks (SetDefaults_Pod)", () => {
    expect(created["spec"]).toMatchObject({
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      terminationGracePeriodSeconds: 30,
      schedulerName: "default-scheduler",
      securityContext: {},
      enableServiceLinks: true,
      containers: [{ imagePullPolicy: "IfNotPresent", terminationMessagePolicy: "File" }],
    });
    expect(
      pod.applyDefaults(podWith({ containers: [], enableServiceLinks: false }))["spec"],
    ).toMatchObject({
      enableServiceLinks: false,
    });
  });

  it("validates the spec at `spec`", () => {
    expect(pod.validateCreate(created)).toEqual([]);
    expect(messages(pod.validateCreate(pod.applyDefaults(podWith({ containers: [] }))))).toEqual([
      "spec.containers: Required value",
    ]);
  });
});

describe("Pod update (ValidatePodUpdate)", () => {
  function update(change: (spec: JsonObject) => JsonObject): string[] {
    const next = pod.updated({ ...created, spec: change(created["spec"] as JsonObject) }, created);
    return messages(pod.validateUpdate(next, created));
  }

  it("allows images, activeDeadlineSeconds and added tolerations to change", () => {
    expect(
      update((s) => ({
        ...s,
        containers: [{ ...(s["containers"] as JsonObject[])[0], image: "nginx:1.28" }],
      })),
    ).toEqual([]);
    expect(update((s) => ({ ...s, activeDeadlineSeconds: 60 }))).toEqual([]);
    expect(
      update((s) => ({
        ...s,
        tolerations: [...(s["tolerations"] as JsonObject[]), { key: "b", operator: "Exists" }],
      })),
    ).toEqual([]);
  });

  it("forbids any other spec change, removing a toleration included", () => {
    expect(update((s) => ({ ...s, restartPolicy: "Never" }))).toEqual([POD_UPDATE_FORBIDDEN]);
    expect(update((s) => ({ ...s, tolerations: [] }))).toEqual([POD_UPDATE_FORBIDDEN]);
    expect(update((s) => ({ ...s, nodeName: "node-1" }))).toEqual([POD_UPDATE_FORBIDDEN]);
  });

  it("lets a negative grace period become 1, and nothing else", () => {
    const negative = {
      ...created,
      spec: { ...(created["spec"] as JsonObject), terminationGracePeriodSeconds: -1 },
    };
    const to = (grace: number) => ({
      ...negative,
      spec: { ...(negative["spec"] as JsonObject), terminationGracePeriodSeconds: grace },
    });
    expect(pod.validateUpdate(to(1), negative)).toEqual([]);
    expect(messages(pod.validateUpdate(to(5), negative))).toEqual([POD_UPDATE_FORBIDDEN]);
  });

  it("still validates the new spec", () => {
    const next = {
      ...created,
      spec: {
        ...(created["spec"] as JsonObject),
        containers: [{ name: "web", image: "", imagePullPolicy: "Always" }],
      },
    };
    expect(messages(pod.validateUpdate(next, created))).toContain(
      "spec.containers[0].image: Required value",
    );
  });
});

describe("Pod delete (graceful deletion)", () => {
  const node = { metadata: { name: "node-1" } };
  const bound: JsonObject = {
    ...created,
    spec: { ...(created["spec"] as JsonObject), nodeName: "node-1" },
  };
  const withNode = { stored: [[NODE_STORAGE_ID, "node-1", node]] as const };

  it("keeps a pod bound to an existing node for its grace period", () => {
    const decision = pod.beforeDelete(bound, withNode);
    expect(decision.terminate?.["metadata"]).toMatchObject({
      deletionTimestamp: "2025-01-02T03:04:35Z",
      deletionGracePeriodSeconds: 30,
    });
  });

  it("uses DeleteOptions' gracePeriodSeconds over the pod's", () => {
    const decision = pod.beforeDelete(bound, { ...withNode, gracePeriodSeconds: 5 });
    expect(decision.terminate?.["metadata"]).toMatchObject({ deletionGracePeriodSeconds: 5 });
    expect(pod.beforeDelete(bound, { ...withNode, gracePeriodSeconds: 0 })).toEqual({});
  });

  it("removes at once a pod not bound, bound to a missing node, or finished", () => {
    expect(pod.beforeDelete(created, withNode)).toEqual({});
    expect(pod.beforeDelete(bound)).toEqual({});
    expect(pod.beforeDelete({ ...bound, status: { phase: "Succeeded" } }, withNode)).toEqual({});
    expect(pod.beforeDelete({ ...bound, status: { phase: "Failed" } }, withNode)).toEqual({});
  });

  it("only shortens a pending grace period", () => {
    const pending = {
      ...bound,
      metadata: {
        ...(bound["metadata"] as JsonObject),
        deletionTimestamp: "2025-01-02T03:04:15Z",
        deletionGracePeriodSeconds: 10,
      },
    };
    expect(pod.beforeDelete(pending, { ...withNode, gracePeriodSeconds: 20 }).terminate).toEqual(
      pending,
    );
    expect(
      pod.beforeDelete(pending, { ...withNode, gracePeriodSeconds: 3 }).terminate?.["metadata"],
    ).toMatchObject({
      deletionTimestamp: "2025-01-02T03:04:08Z",
      deletionGracePeriodSeconds: 3,
    });
  });
});

describe("Pod policy and printer", () => {
  it("tracks generation, answers DELETE with the object, selects by kube's pod fields", () => {
    expect(podStrategy.policy).toMatchObject({ tracksGeneration: true, deleteReturnsObject: true });
    const fields = podStrategy.policy?.selectableFields ?? {};
    expect(Object.keys(fields).sort()).toEqual([
      "spec.host",
      "spec.hostNetwork",
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "status.nominatedNodeName",
      "status.phase",
      "status.podIP",
      "status.podIPs",
    ]);
    const running = {
      spec: { nodeName: "n1" },
      status: { podIPs: [{ ip: "10.0.0.1" }, { ip: "fd00::1" }] },
    };
    expect(fields["spec.host"]?.(running)).toBe("n1");
    expect(fields["spec.hostNetwork"]?.(running)).toBe("false");
    expect(fields["status.podIPs"]?.(running)).toBe("10.0.0.1,fd00::1");
  });

  it("prints kube's pod columns", () => {
    expect(podStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Ready",
      "Status",
      "Restarts",
      "Age",
      "IP",
      "Node",
      "Nominated Node",
      "Readiness Gates",
    ]);
  });
});
