import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { JsonObject, JsonValue } from "kubekit";
import { builtinResources } from "../../../packages/kubekit/src/core/resource-table.js";
import { messageNameForKind } from "../../../packages/kubekit/src/core/field-table.js";
import { alwaysEncodedFields } from "../../../packages/apiserver/src/encoding/go-zero-fields.js";
import { normalizeTypedObject } from "../../../packages/apiserver/src/schema/typed-normalization.js";

/**
 * An independent reading of the raw field tables with Go's encoding/json rules, to compare
 * the server's table-driven encoding with: what a zero value of each message prints.
 */
interface RawField {
  name: string;
  type?: string;
  repeated?: boolean;
  map?: [string, string];
  json?: string;
  omitempty?: boolean;
  pointer?: boolean;
}
const RAW = JSON.parse(
  readFileSync(
    new URL("../../../packages/kubekit/data/kubernetes-api-fields.json", import.meta.url),
    "utf8",
  ),
) as { messages: Record<string, { fields: RawField[] }> };

const META = "k8s.io.apimachinery.pkg.apis.meta.v1";
const NULL_MESSAGES = new Set([
  `${META}.Time`,
  `${META}.MicroTime`,
  `${META}.FieldsV1`,
  "k8s.io.apimachinery.pkg.runtime.RawExtension",
]);
/** Go 1.32 tags these `omitempty`; the v1.37-line tables do not (see go-zero-fields.ts). */
const OMITEMPTY = new Set([
  `${META}.LabelSelector.matchLabels`,
  `${META}.LabelSelector.matchExpressions`,
]);
/** Inline embedded structs (`Message.field`, message-json-view.ts): their fields print in the parent. */
const INLINE = new Set([
  "ConfigMapEnvSource.localObjectReference",
  "ConfigMapKeySelector.localObjectReference",
  "ConfigMapProjection.localObjectReference",
  "ConfigMapVolumeSource.localObjectReference",
  "SecretEnvSource.localObjectReference",
  "SecretKeySelector.localObjectReference",
  "SecretProjection.localObjectReference",
  "EphemeralContainer.ephemeralContainerCommon",
  "PersistentVolumeSpec.persistentVolumeSource",
  "Volume.volumeSource",
  "Probe.handler",
  "IngressRule.ingressRuleValue",
  "NamedRuleWithOperations.ruleWithOperations",
  "RuleWithOperations.rule",
]);

function qualify(type: string, pkg: string): string {
  return type.startsWith(".") ? type.slice(1) : `${pkg}.${type}`;
}

function expectedZero(messageName: string): JsonValue {
  if (NULL_MESSAGES.has(messageName)) return null;
  if (messageName === "k8s.io.apimachinery.pkg.util.intstr.IntOrString") return 0;
  if (messageName === "k8s.io.apimachinery.pkg.api.resource.Quantity") return "0";
  const message = RAW.messages[messageName];
  if (!message) throw new Error(`no message ${messageName}`);
  const pkg = messageName.slice(0, messageName.lastIndexOf("."));
  const out: JsonObject = {};
  for (const f of message.fields) {
    const key = f.json ?? f.name;
    if (key === "-") continue;
    const omitempty = f.omitempty === true || OMITEMPTY.has(`${messageName}.${f.name}`);
    const isMessage =
      f.type !== undefined && !/^(string|bool|bytes|u?int(32|64)|double|float)$/.test(f.type);
    if (f.pointer || f.repeated || f.map) {
      if (!omitempty) out[key] = null;
    } else if (isMessage && INLINE.has(`${messageName.slice(pkg.length + 1)}.${f.name}`)) {
      Object.assign(out, expectedZero(qualify(f.type as string, pkg)));
    } else if (isMessage) {
      out[key] = expectedZero(qualify(f.type as string, pkg));
    } else if (!omitempty) {
      out[key] =
        f.type === "string" ? "" : f.type === "bool" ? false : f.type === "bytes" ? null : 0;
    }
  }
  return out;
}

/** Top-level fields of a minimal object of the kind: the table's zero value of each. */
function expectedTopLevel(messageName: string): JsonObject {
  const zero = expectedZero(messageName) as JsonObject;
  const { metadata: _m, ...rest } = zero;
  return rest;
}

const CREATED = "2026-01-01T00:00:00Z";

function minimal(apiVersion: string, kind: string): JsonObject {
  return { apiVersion, kind, metadata: { name: "x", creationTimestamp: CREATED } };
}

function normalized(group: string, version: string, kind: string): JsonObject {
  const apiVersion = group === "" ? version : `${group}/${version}`;
  return normalizeTypedObject(minimal(apiVersion, kind), messageNameForKind(group, version, kind));
}

describe("fields Go always encodes, for every built-in kind", () => {
  const kinds = builtinResources
    .map((r) => ({ ...r, message: messageNameForKind(r.group, r.version, r.kind) }))
    .filter((r): r is typeof r & { message: string } => r.message !== undefined);

  it("covers the resource table's kinds with field-table messages", () => {
    // apiextensions.k8s.io and apiregistration.k8s.io live outside k8s.io/api.
    const uncovered = builtinResources.filter(
      (r) => messageNameForKind(r.group, r.version, r.kind) === undefined,
    );
    expect(uncovered.map((r) => `${r.group}/${r.kind}`).sort()).toEqual([
      "apiextensions.k8s.io/CustomResourceDefinition",
      "apiregistration.k8s.io/APIService",
    ]);
    expect(kinds.length).toBeGreaterThan(50);
  });

  it("prints each kind's minimal object with exactly the table's always-encoded fields", () => {
    for (const r of kinds) {
      const obj = normalized(r.group, r.version, r.kind);
      const { apiVersion: _a, kind: _k, metadata, ...rest } = obj;
      expect(metadata, `${r.kind} metadata`).toEqual({ name: "x", creationTimestamp: CREATED });
      const expected =
        r.message === "k8s.io.api.storage.v1.CSINode"
          ? { spec: expectedTopLevel(r.message)["spec"] } // CSINode has no status in 1.32
          : expectedTopLevel(r.message);
      expect(rest, `${r.group}/${r.version} ${r.kind}`).toEqual(expected);
    }
  });

  it("writes the status structs kube-apiserver 1.32 returns right after a create", () => {
    const status = (group: string, version: string, kind: string): JsonValue | undefined =>
      normalized(group, version, kind)["status"];
    expect(status("apps", "v1", "Deployment")).toEqual({});
    expect(status("apps", "v1", "StatefulSet")).toEqual({ replicas: 0, availableReplicas: 0 });
    expect(status("apps", "v1", "DaemonSet")).toEqual({
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    });
    expect(status("apps", "v1", "ReplicaSet")).toEqual({ replicas: 0 });
    expect(status("", "v1", "ReplicationController")).toEqual({ replicas: 0 });
    expect(status("batch", "v1", "Job")).toEqual({});
    expect(status("batch", "v1", "CronJob")).toEqual({});
    expect(status("autoscaling", "v2", "HorizontalPodAutoscaler")).toEqual({
      currentMetrics: null,
      desiredReplicas: 0,
    });
    expect(status("autoscaling", "v1", "HorizontalPodAutoscaler")).toEqual({
      currentReplicas: 0,
      desiredReplicas: 0,
    });
    expect(status("policy", "v1", "PodDisruptionBudget")).toEqual({
      disruptionsAllowed: 0,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
    });
    expect(status("networking.k8s.io", "v1", "Ingress")).toEqual({ loadBalancer: {} });
    expect(status("", "v1", "Service")).toEqual({ loadBalancer: {} });
    expect(status("", "v1", "ResourceQuota")).toEqual({});
    expect(status("certificates.k8s.io", "v1", "CertificateSigningRequest")).toEqual({});
  });
});

describe("nested structs and values Go prints when zero", () => {
  const POD = messageNameForKind("", "v1", "Pod");
  const DEPLOYMENT = messageNameForKind("apps", "v1", "Deployment");

  it("writes a template's creationTimestamp as null and a container's resources as {}", () => {
    const obj = normalizeTypedObject(
      {
        ...minimal("apps/v1", "Deployment"),
        spec: {
          selector: { matchLabels: { a: "b" } },
          template: {
            metadata: { labels: { a: "b" } },
            spec: { containers: [{ name: "c", image: "nginx" }] },
          },
        },
      },
      DEPLOYMENT,
    );
    const spec = obj["spec"] as JsonObject;
    // LabelSelector's fields are omitempty in Go: an absent matchExpressions stays absent.
    expect(spec["selector"]).toEqual({ matchLabels: { a: "b" } });
    const template = spec["template"] as JsonObject;
    expect(template["metadata"]).toEqual({ labels: { a: "b" }, creationTimestamp: null });
    expect((template["spec"] as JsonObject)["containers"]).toEqual([
      { name: "c", image: "nginx", resources: {} },
    ]);
  });

  it("writes a pod condition's zero times as null and a container status's zero fields", () => {
    const obj = normalizeTypedObject(
      {
        ...minimal("v1", "Pod"),
        spec: { containers: [{ name: "c", image: "nginx" }] },
        status: {
          phase: "Running",
          conditions: [{ type: "Ready", status: "True" }],
          containerStatuses: [{ name: "c", image: "nginx", ready: true }],
        },
      },
      POD,
    );
    const status = obj["status"] as JsonObject;
    expect(status["conditions"]).toEqual([
      { type: "Ready", status: "True", lastProbeTime: null, lastTransitionTime: null },
    ]);
    expect(status["containerStatuses"]).toEqual([
      {
        name: "c",
        image: "nginx",
        ready: true,
        state: {},
        lastState: {},
        restartCount: 0,
        imageID: "",
      },
    ]);
  });

  it("prints null for absent or empty non-omitempty lists, and zero for null scalars", () => {
    const role = normalizeTypedObject(
      { ...minimal("rbac.authorization.k8s.io/v1", "ClusterRole"), rules: [] },
      messageNameForKind("rbac.authorization.k8s.io", "v1", "ClusterRole"),
    );
    expect(role["rules"]).toBeNull();
    const slice = normalizeTypedObject(
      { ...minimal("discovery.k8s.io/v1", "EndpointSlice"), addressType: null },
      messageNameForKind("discovery.k8s.io", "v1", "EndpointSlice"),
    );
    expect(slice).toMatchObject({ addressType: "", endpoints: null });
  });

  it('writes a zero IntOrString as 0 and a zero Quantity as "0"', () => {
    const obj = normalizeTypedObject(
      {
        ...minimal("v1", "Pod"),
        spec: {
          containers: [
            {
              name: "c",
              image: "nginx",
              env: [{ name: "CPU", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } }],
            },
          ],
        },
      },
      POD,
    );
    const container = ((obj["spec"] as JsonObject)["containers"] as JsonObject[])[0] as JsonObject;
    expect((container["env"] as JsonObject[])[0]).toEqual({
      name: "CPU",
      valueFrom: { resourceFieldRef: { resource: "limits.cpu", divisor: "0" } },
    });
    const service = normalizeTypedObject(
      { ...minimal("v1", "Service"), spec: { ports: [{ port: 80 }] } },
      messageNameForKind("", "v1", "Service"),
    );
    expect((service["spec"] as JsonObject)["ports"]).toEqual([{ port: 80, targetPort: 0 }]);
  });

  it("keeps what is already there: the same instance when nothing is missing", () => {
    const once = normalized("apps", "v1", "StatefulSet");
    expect(normalizeTypedObject(once, messageNameForKind("apps", "v1", "StatefulSet"))).toBe(once);
  });

  it("gives fresh zero objects on every use", () => {
    const fields = alwaysEncodedFields("k8s.io.api.apps.v1.Deployment");
    const status = fields.find((f) => f.key === "status");
    expect(status?.zero()).toEqual({});
    expect(status?.zero()).not.toBe(status?.zero());
  });
});
