import { describe, expect, it } from "vitest";
import {
  StrategicMergePatchError,
  applyStrategicMergePatch,
  type JsonObject,
  type JsonValue,
} from "kubekit";

const DEPLOYMENT = "k8s.io.api.apps.v1.Deployment";
const POD = "k8s.io.api.core.v1.Pod";
const SERVICE = "k8s.io.api.core.v1.Service";

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Every object key in `value` that starts with "$" (directives must never reach a result). */
function directiveKeys(value: JsonValue): string[] {
  if (Array.isArray(value)) return value.flatMap(directiveKeys);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [
    ...(key.startsWith("$") ? [key] : []),
    ...directiveKeys(child),
  ]);
}

function smpError(fn: () => unknown): StrategicMergePatchError {
  try {
    fn();
  } catch (error) {
    if (error instanceof StrategicMergePatchError) return error;
    throw error;
  }
  throw new Error("expected a StrategicMergePatchError");
}

const LAST_APPLIED_OLD =
  '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web","namespace":"default"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:1.27","name":"nginx"}]}}}}\n';
const LAST_APPLIED_NEW =
  '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web","namespace":"default"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:1.28","name":"nginx"}]}}}}\n';

/** A Deployment as kube-apiserver stores it after `kubectl apply` (defaults filled in). */
function deployment(): JsonObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      namespace: "default",
      uid: "5d0e2a6c-0000-4000-8000-000000000001",
      resourceVersion: "1234",
      generation: 1,
      creationTimestamp: "2024-05-01T12:00:00Z",
      annotations: {
        "deployment.kubernetes.io/revision": "1",
        "kubectl.kubernetes.io/last-applied-configuration": LAST_APPLIED_OLD,
      },
      finalizers: ["example.com/a", "example.com/b"],
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: [
            {
              name: "nginx",
              image: "nginx:1.27",
              imagePullPolicy: "IfNotPresent",
              ports: [
                { containerPort: 80, name: "http", protocol: "TCP" },
                { containerPort: 443, name: "https", protocol: "TCP" },
              ],
              env: [
                { name: "A", value: "1" },
                { name: "B", value: "2" },
              ],
              volumeMounts: [
                { name: "data", mountPath: "/data" },
                { name: "config", mountPath: "/etc/config" },
              ],
              resources: { limits: { cpu: "500m", memory: "128Mi" } },
              terminationMessagePath: "/dev/termination-log",
              terminationMessagePolicy: "File",
            },
            { name: "sidecar", image: "busybox", args: ["sleep", "3600"] },
          ],
          volumes: [
            { name: "data", emptyDir: {} },
            { name: "config", configMap: { name: "web-config", defaultMode: 420 } },
          ],
          tolerations: [
            { key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" },
            { key: "spot", operator: "Exists", effect: "NoExecute" },
          ],
          restartPolicy: "Always",
          terminationGracePeriodSeconds: 30,
          dnsPolicy: "ClusterFirst",
          schedulerName: "default-scheduler",
          securityContext: {},
        },
      },
      strategy: {
        type: "RollingUpdate",
        rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" },
      },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {
      observedGeneration: 1,
      replicas: 2,
      conditions: [
        { type: "Available", status: "True", reason: "MinimumReplicasAvailable" },
        { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable" },
      ],
    },
  };
}

/** Path helpers into the fixture's pod template. */
function podSpec(object: JsonObject): JsonObject {
  return ((object["spec"] as JsonObject)["template"] as JsonObject)["spec"] as JsonObject;
}
function container(object: JsonObject, name: string): JsonObject {
  const found = (podSpec(object)["containers"] as JsonObject[]).find((c) => c["name"] === name);
  if (!found) throw new Error(`no container ${name}`);
  return found;
}
function patchContainers(containers: JsonValue, extra: JsonObject = {}): JsonObject {
  return { spec: { template: { spec: { containers, ...extra } } } };
}

describe("applyStrategicMergePatch: kubectl client-side apply", () => {
  it("applies the exact patch kubectl apply sends (replicas, image, $setElementOrder)", () => {
    const original = deepFreeze(deployment());
    const patch = deepFreeze({
      metadata: {
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": LAST_APPLIED_NEW },
      },
      spec: {
        replicas: 3,
        template: {
          spec: {
            "$setElementOrder/containers": [{ name: "nginx" }],
            containers: [{ image: "nginx:1.28", name: "nginx" }],
          },
        },
      },
    });
    const result = applyStrategicMergePatch(original, patch, DEPLOYMENT);

    const expected = deployment();
    (expected["metadata"] as JsonObject)["annotations"] = {
      "deployment.kubernetes.io/revision": "1",
      "kubectl.kubernetes.io/last-applied-configuration": LAST_APPLIED_NEW,
    };
    (expected["spec"] as JsonObject)["replicas"] = 3;
    container(expected, "nginx")["image"] = "nginx:1.28";
    expect(result).toEqual(expected);
    // nginx is named first by $setElementOrder; sidecar (not named) stays after it.
    expect((podSpec(result)["containers"] as JsonObject[]).map((c) => c["name"])).toEqual([
      "nginx",
      "sidecar",
    ]);
    expect(directiveKeys(result)).toEqual([]);
  });

  it("shares the untouched subtrees with the original", () => {
    const original = deployment();
    const result = applyStrategicMergePatch(original, { spec: { replicas: 5 } }, DEPLOYMENT);
    expect(result["status"]).toBe(original["status"]);
    expect((result["spec"] as JsonObject)["template"]).toBe(
      (original["spec"] as JsonObject)["template"],
    );
    expect(result["spec"]).not.toBe(original["spec"]);
    expect((original["spec"] as JsonObject)["replicas"]).toBe(2);
  });

  it("reorders with $setElementOrder, removing elements deleted in the same patch", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      patchContainers(
        [
          { name: "nginx", $patch: "delete" },
          { name: "extra", image: "e" },
        ],
        {
          "$setElementOrder/containers": [{ name: "extra" }, { name: "sidecar" }],
        },
      ),
      DEPLOYMENT,
    );
    expect((podSpec(result)["containers"] as JsonObject[]).map((c) => c["name"])).toEqual([
      "extra",
      "sidecar",
    ]);
  });
});

describe("applyStrategicMergePatch: lists merged by key", () => {
  it("merges env vars by name, changes and adds, and deletes with $patch: delete", () => {
    const changed = applyStrategicMergePatch(
      deployment(),
      patchContainers([
        {
          name: "nginx",
          env: [
            { name: "B", value: "20" },
            { name: "C", value: "3" },
          ],
        },
      ]),
      DEPLOYMENT,
    );
    expect(container(changed, "nginx")["env"]).toEqual([
      { name: "A", value: "1" },
      { name: "B", value: "20" },
      { name: "C", value: "3" },
    ]);
    expect(container(changed, "nginx")["image"]).toBe("nginx:1.27");

    const deleted = applyStrategicMergePatch(
      changed,
      patchContainers([{ name: "nginx", env: [{ name: "A", $patch: "delete" }] }]),
      DEPLOYMENT,
    );
    expect(container(deleted, "nginx")["env"]).toEqual([
      { name: "B", value: "20" },
      { name: "C", value: "3" },
    ]);
  });

  it("places a new element before the server-only ones, as apimachinery does", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      patchContainers([{ name: "redis", image: "redis" }]),
      DEPLOYMENT,
    );
    expect((podSpec(result)["containers"] as JsonObject[]).map((c) => c["name"])).toEqual([
      "redis",
      "nginx",
      "sidecar",
    ]);
  });

  it("follows the patch's order for the elements it names (apimachinery's examples)", () => {
    const env = (names: string[]) => names.map((name) => ({ name }));
    const original = patchContainers([
      { name: "c", env: [{ name: "1" }, { name: "2", value: "b" }, { name: "3" }] },
    ]);
    const result = applyStrategicMergePatch(
      original,
      patchContainers([
        {
          name: "c",
          env: [
            { name: "3", value: "c" },
            { name: "1", value: "a" },
          ],
        },
      ]),
      DEPLOYMENT,
    );
    expect(container(result, "c")["env"]).toEqual([
      { name: "2", value: "b" },
      { name: "3", value: "c" },
      { name: "1", value: "a" },
    ]);
    const all = applyStrategicMergePatch(
      original,
      patchContainers([{ name: "c", env: env(["3", "1", "2"]) }]),
      DEPLOYMENT,
    );
    expect((container(all, "c")["env"] as JsonObject[]).map((e) => e["name"])).toEqual([
      "3",
      "1",
      "2",
    ]);
  });

  it("merges volumeMounts by mountPath", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      patchContainers([
        {
          name: "nginx",
          volumeMounts: [
            { mountPath: "/etc/config", readOnly: true },
            { mountPath: "/cache", name: "cache" },
          ],
        },
      ]),
      DEPLOYMENT,
    );
    expect(container(result, "nginx")["volumeMounts"]).toEqual([
      { name: "data", mountPath: "/data" },
      { name: "config", mountPath: "/etc/config", readOnly: true },
      { mountPath: "/cache", name: "cache" },
    ]);
  });

  it("merges container ports by containerPort", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      patchContainers([{ name: "nginx", ports: [{ containerPort: 443, name: "tls" }] }]),
      DEPLOYMENT,
    );
    expect(container(result, "nginx")["ports"]).toEqual([
      { containerPort: 80, name: "http", protocol: "TCP" },
      { containerPort: 443, name: "tls", protocol: "TCP" },
    ]);
  });

  it("merges Pod status conditions by type", () => {
    const pod: JsonObject = {
      metadata: { name: "p" },
      status: {
        phase: "Running",
        conditions: [
          { type: "Initialized", status: "True" },
          { type: "Ready", status: "False", reason: "ContainersNotReady" },
        ],
      },
    };
    const result = applyStrategicMergePatch(
      pod,
      { status: { conditions: [{ type: "Ready", status: "True", reason: null }] } },
      POD,
    );
    expect(result).toEqual({
      metadata: { name: "p" },
      status: {
        phase: "Running",
        conditions: [
          { type: "Initialized", status: "True" },
          { type: "Ready", status: "True" },
        ],
      },
    });
  });

  it("merges Deployment status conditions by type", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      { status: { conditions: [{ type: "Progressing", reason: "ReplicaSetUpdated" }] } },
      DEPLOYMENT,
    );
    expect((result["status"] as JsonObject)["conditions"]).toEqual([
      { type: "Available", status: "True", reason: "MinimumReplicasAvailable" },
      { type: "Progressing", status: "True", reason: "ReplicaSetUpdated" },
    ]);
  });

  it("merges Service spec.ports by port", () => {
    const service = {
      metadata: { name: "web" },
      spec: {
        selector: { app: "web" },
        ports: [
          { name: "http", port: 80, targetPort: 8080, protocol: "TCP" },
          { name: "https", port: 443, targetPort: 8443, protocol: "TCP" },
        ],
      },
    };
    const result = applyStrategicMergePatch(
      service,
      { spec: { ports: [{ port: 80, targetPort: "http-alt" }] } },
      SERVICE,
    );
    expect((result["spec"] as JsonObject)["ports"]).toEqual([
      { name: "http", port: 80, targetPort: "http-alt", protocol: "TCP" },
      { name: "https", port: 443, targetPort: 8443, protocol: "TCP" },
    ]);
  });

  it("merges ownerReferences by uid", () => {
    const original = {
      metadata: {
        ownerReferences: [
          { uid: "u1", kind: "ReplicaSet", name: "rs1" },
          { uid: "u2", kind: "ReplicaSet", name: "rs2" },
        ],
      },
    };
    const result = applyStrategicMergePatch(
      original,
      { metadata: { ownerReferences: [{ uid: "u2", controller: true }] } },
      POD,
    );
    expect((result["metadata"] as JsonObject)["ownerReferences"]).toEqual([
      { uid: "u1", kind: "ReplicaSet", name: "rs1" },
      { uid: "u2", kind: "ReplicaSet", name: "rs2", controller: true },
    ]);
  });

  it("deletes every element with the merge key of a $patch: delete element", () => {
    const original = patchContainers([
      {
        name: "c",
        env: [
          { name: "1" },
          { name: "1" },
          { name: "2", value: "a" },
          { name: "3" },
          { name: "3" },
        ],
      },
    ]);
    const result = applyStrategicMergePatch(
      original,
      patchContainers([
        {
          name: "c",
          env: [
            { name: "1", $patch: "delete" },
            { name: "3", $patch: "delete" },
          ],
        },
      ]),
      DEPLOYMENT,
    );
    expect(container(result, "c")["env"]).toEqual([{ name: "2", value: "a" }]);
  });

  it("leaves a merged list alone when the patch list is empty", () => {
    const result = applyStrategicMergePatch(deployment(), patchContainers([]), DEPLOYMENT);
    expect(podSpec(result)["containers"]).toEqual(podSpec(deployment())["containers"]);
  });

  it("finds fields of embedded structs (EphemeralContainer's env merges by name)", () => {
    const pod = {
      spec: {
        ephemeralContainers: [
          { name: "debug", image: "busybox", env: [{ name: "A", value: "1" }] },
        ],
      },
    };
    const result = applyStrategicMergePatch(
      pod,
      { spec: { ephemeralContainers: [{ name: "debug", env: [{ name: "B", value: "2" }] }] } },
      POD,
    );
    expect(result).toEqual({
      spec: {
        ephemeralContainers: [
          {
            name: "debug",
            image: "busybox",
            env: [
              { name: "B", value: "2" },
              { name: "A", value: "1" },
            ],
          },
        ],
      },
    });
  });
});

describe("applyStrategicMergePatch: lists of primitives", () => {
  it("unions metadata.finalizers keeping order", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      { metadata: { finalizers: ["example.com/b", "example.com/c"] } },
      DEPLOYMENT,
    );
    expect((result["metadata"] as JsonObject)["finalizers"]).toEqual([
      "example.com/a",
      "example.com/b",
      "example.com/c",
    ]);
  });

  it("follows the patch's order for the values it names", () => {
    const original = { metadata: { finalizers: ["1", "2", "3"] } };
    const result = applyStrategicMergePatch(
      original,
      { metadata: { finalizers: ["3", "1"] } },
      POD,
    );
    expect((result["metadata"] as JsonObject)["finalizers"]).toEqual(["2", "3", "1"]);
  });

  it("removes values with $deleteFromPrimitiveList", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      {
        metadata: {
          "$deleteFromPrimitiveList/finalizers": ["example.com/a", "example.com/unknown"],
          finalizers: ["example.com/c"],
        },
      },
      DEPLOYMENT,
    );
    expect((result["metadata"] as JsonObject)["finalizers"]).toEqual([
      "example.com/c",
      "example.com/b",
    ]);
    expect(directiveKeys(result)).toEqual([]);
  });

  it("ignores $deleteFromPrimitiveList on a missing list", () => {
    const result = applyStrategicMergePatch(
      { metadata: { name: "x" } },
      { metadata: { "$deleteFromPrimitiveList/finalizers": ["a"] } },
      POD,
    );
    expect(result).toEqual({ metadata: { name: "x" } });
  });

  it("orders primitives with $setElementOrder (values absent from the list are ignored)", () => {
    const result = applyStrategicMergePatch(
      { metadata: { finalizers: ["1", "3"] } },
      { metadata: { "$setElementOrder/finalizers": ["3", "2", "1"] } },
      POD,
    );
    expect((result["metadata"] as JsonObject)["finalizers"]).toEqual(["3", "1"]);
  });

  it("replaces lists of primitives without the merge strategy (container args)", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      patchContainers([{ name: "sidecar", args: ["sleep", "60"] }]),
      DEPLOYMENT,
    );
    expect(container(result, "sidecar")["args"]).toEqual(["sleep", "60"]);
  });
});

describe("applyStrategicMergePatch: $setElementOrder", () => {
  it("merges elements and then orders them (apimachinery: $setElementOrder item not in the list)", () => {
    const original = patchContainers([{ name: "c", env: [{ name: "1" }, { name: "3" }] }]);
    const result = applyStrategicMergePatch(
      original,
      patchContainers([
        {
          name: "c",
          "$setElementOrder/env": [{ name: "3" }, { name: "2" }, { name: "1" }],
          env: [
            { name: "3", value: "3" },
            { name: "1", value: "1" },
          ],
        },
      ]),
      DEPLOYMENT,
    );
    expect(container(result, "c")["env"]).toEqual([
      { name: "3", value: "3" },
      { name: "1", value: "1" },
    ]);
  });

  it("interleaves elements it does not name by their original positions", () => {
    const original = patchContainers([{ name: "a" }, { name: "b" }, { name: "c" }, { name: "d" }]);
    const reordered = applyStrategicMergePatch(
      original,
      {
        spec: {
          template: { spec: { "$setElementOrder/containers": [{ name: "d" }, { name: "b" }] } },
        },
      },
      DEPLOYMENT,
    );
    expect((podSpec(reordered)["containers"] as JsonObject[]).map((c) => c["name"])).toEqual([
      "a",
      "c",
      "d",
      "b",
    ]);
    const full = applyStrategicMergePatch(
      original,
      {
        spec: {
          template: {
            spec: {
              "$setElementOrder/containers": [
                { name: "c" },
                { name: "a" },
                { name: "d" },
                { name: "b" },
              ],
            },
          },
        },
      },
      DEPLOYMENT,
    );
    expect((podSpec(full)["containers"] as JsonObject[]).map((c) => c["name"])).toEqual([
      "c",
      "a",
      "d",
      "b",
    ]);
  });

  it("builds a list absent from the original in the given order", () => {
    const result = applyStrategicMergePatch(
      { spec: {} },
      {
        spec: {
          "$setElementOrder/containers": [{ name: "b" }, { name: "a" }],
          containers: [
            { name: "b", image: "b" },
            { name: "x", $patch: "delete" },
            { name: "a", image: "a" },
          ],
        },
      },
      POD,
    );
    expect(result).toEqual({
      spec: {
        containers: [
          { name: "b", image: "b" },
          { name: "a", image: "a" },
        ],
      },
    });
  });

  it("rejects a patch list whose order contradicts $setElementOrder", () => {
    const error = smpError(() =>
      applyStrategicMergePatch(
        patchContainers([{ name: "1" }, { name: "3" }, { name: "2" }]),
        patchContainers(
          [
            { name: "3", image: "x" },
            { name: "1", image: "y" },
          ],
          {
            "$setElementOrder/containers": [{ name: "1" }, { name: "2" }, { name: "3" }],
          },
        ),
        DEPLOYMENT,
      ),
    );
    expect(error.kind).toBe("invalid");
    expect(error.detail).toContain("doesn't match $setElementOrder list");
    expect(error.path).toBe("spec.template.spec.containers");
  });

  it("ignores $setElementOrder on a list the same patch deletes", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      { metadata: { finalizers: null, "$setElementOrder/finalizers": ["example.com/b"] } },
      DEPLOYMENT,
    );
    expect(Object.hasOwn(result["metadata"] as JsonObject, "finalizers")).toBe(false);
    expect(directiveKeys(result)).toEqual([]);
  });

  it("ignores $setElementOrder on a list without the merge strategy", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      { spec: { template: { spec: { "$setElementOrder/tolerations": [{ key: "spot" }] } } } },
      DEPLOYMENT,
    );
    expect(podSpec(result)["tolerations"]).toEqual(podSpec(deployment())["tolerations"]);
    expect(directiveKeys(result)).toEqual([]);
  });
});

describe("applyStrategicMergePatch: $retainKeys", () => {
  it("clears rollingUpdate when the strategy switches to Recreate", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      { spec: { strategy: { $retainKeys: ["type"], type: "Recreate", rollingUpdate: null } } },
      DEPLOYMENT,
    );
    expect((result["spec"] as JsonObject)["strategy"]).toEqual({ type: "Recreate" });
  });

  it("clears unlisted keys even when the patch does not null them", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } },
      DEPLOYMENT,
    );
    expect((result["spec"] as JsonObject)["strategy"]).toEqual({ type: "Recreate" });
  });

  it("merges normally without the directive (rollingUpdate is kept)", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      { spec: { strategy: { type: "Recreate" } } },
      DEPLOYMENT,
    );
    expect((result["spec"] as JsonObject)["strategy"]).toEqual({
      type: "Recreate",
      rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" },
    });
  });

  it("switches a volume's source inside a merged list element", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      {
        spec: {
          template: {
            spec: {
              volumes: [
                {
                  name: "data",
                  persistentVolumeClaim: { claimName: "pvc" },
                  $retainKeys: ["name", "persistentVolumeClaim"],
                },
              ],
            },
          },
        },
      },
      DEPLOYMENT,
    );
    expect(podSpec(result)["volumes"]).toEqual([
      { name: "data", persistentVolumeClaim: { claimName: "pvc" } },
      { name: "config", configMap: { name: "web-config", defaultMode: 420 } },
    ]);
  });

  it("rejects a non-list directive (400) and patch keys missing from it (422)", () => {
    const notList = smpError(() =>
      applyStrategicMergePatch(
        deployment(),
        { spec: { strategy: { $retainKeys: "type" } } },
        DEPLOYMENT,
      ),
    );
    expect(notList.kind).toBe("malformed");
    expect(notList.detail).toBe("invalid patch format of retainKeys");
    expect(notList.message).toBe("spec.strategy: invalid patch format of retainKeys");
    const mismatch = smpError(() =>
      applyStrategicMergePatch(
        deployment(),
        {
          spec: {
            strategy: {
              $retainKeys: ["type"],
              type: "RollingUpdate",
              rollingUpdate: { maxSurge: 1 },
            },
          },
        },
        DEPLOYMENT,
      ),
    );
    expect(mismatch.kind).toBe("invalid");
    expect(mismatch.detail).toBe("patch content doesn't match retainKeys list");
  });
});

describe("applyStrategicMergePatch: $patch directives", () => {
  it("replaces a whole merged list with $patch: replace in an element", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      patchContainers([{ $patch: "replace" }, { name: "only", image: "only:1" }]),
      DEPLOYMENT,
    );
    expect(podSpec(result)["containers"]).toEqual([{ name: "only", image: "only:1" }]);
  });

  it("empties a merged list with a lone $patch: replace element", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      { metadata: { ownerReferences: [{ $patch: "replace" }] } },
      DEPLOYMENT,
    );
    expect((result["metadata"] as JsonObject)["ownerReferences"]).toEqual([]);
  });

  it("replaces a map with $patch: replace", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      { spec: { template: { metadata: { labels: { $patch: "replace", tier: "frontend" } } } } },
      DEPLOYMENT,
    );
    expect(((result["spec"] as JsonObject)["template"] as JsonObject)["metadata"]).toEqual({
      labels: { tier: "frontend" },
    });
  });

  it("deletes a map with $patch: delete", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      { spec: { strategy: { $patch: "delete" } } },
      DEPLOYMENT,
    );
    expect(Object.hasOwn(result["spec"] as JsonObject, "strategy")).toBe(false);
  });

  it("replaces or empties the whole object at the top level", () => {
    expect(applyStrategicMergePatch({ a: 1 }, { $patch: "replace", b: 2 }, POD)).toEqual({ b: 2 });
    expect(applyStrategicMergePatch({ a: 1 }, { $patch: "delete" }, POD)).toEqual({});
  });

  it("rejects unknown $patch values in maps and list elements", () => {
    const inMap = smpError(() =>
      applyStrategicMergePatch(
        deployment(),
        { spec: { strategy: { $patch: "merge" } } },
        DEPLOYMENT,
      ),
    );
    expect(inMap.kind).toBe("invalid");
    expect(inMap.detail).toBe('unknown patch type: merge in map: {"$patch":"merge"}');
    const inList = smpError(() =>
      applyStrategicMergePatch(
        deployment(),
        patchContainers([{ name: "nginx", $patch: "merge" }]),
        DEPLOYMENT,
      ),
    );
    expect(inList.detail).toBe("merging lists cannot yet be specified in the patch");
    const bogus = smpError(() =>
      applyStrategicMergePatch(
        deployment(),
        patchContainers([{ name: "nginx", $patch: "zap" }]),
        DEPLOYMENT,
      ),
    );
    expect(bogus.detail).toBe('unknown patch type: zap in map: {"name":"nginx","$patch":"zap"}');
  });
});

describe("applyStrategicMergePatch: replaced values and schema-less subtrees", () => {
  it("replaces nested tolerations (no patch strategy) whole", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      { spec: { template: { spec: { tolerations: [{ key: "gpu", operator: "Exists" }] } } } },
      DEPLOYMENT,
    );
    expect(podSpec(result)["tolerations"]).toEqual([{ key: "gpu", operator: "Exists" }]);
  });

  it("merges map fields (resource limits) key by key", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      patchContainers([
        {
          name: "nginx",
          resources: { limits: { cpu: "1", memory: null }, requests: { cpu: "100m" } },
        },
      ]),
      DEPLOYMENT,
    );
    expect(container(result, "nginx")["resources"]).toEqual({
      limits: { cpu: "1" },
      requests: { cpu: "100m" },
    });
  });

  it("replaces a field with the replace strategy (PodDisruptionBudget selector)", () => {
    const pdb = { spec: { selector: { matchLabels: { app: "web" } }, minAvailable: 1 } };
    const patch = { spec: { selector: { matchLabels: { tier: "fe" } } } };
    expect(
      applyStrategicMergePatch(pdb, patch, "k8s.io.api.policy.v1.PodDisruptionBudget"),
    ).toEqual({
      spec: { selector: { matchLabels: { tier: "fe" } }, minAvailable: 1 },
    });
    // The same patch merges on a Deployment, whose selector has no strategy.
    expect(
      applyStrategicMergePatch(
        { spec: { selector: { matchLabels: { app: "web" } } } },
        patch,
        DEPLOYMENT,
      ),
    ).toEqual({ spec: { selector: { matchLabels: { app: "web", tier: "fe" } } } });
  });

  it("treats special messages as opaque values (IntOrString, Quantity, Time)", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      {
        metadata: { creationTimestamp: "2025-01-01T00:00:00Z" },
        spec: { strategy: { rollingUpdate: { maxSurge: 1 } } },
      },
      DEPLOYMENT,
    );
    expect((result["metadata"] as JsonObject)["creationTimestamp"]).toBe("2025-01-01T00:00:00Z");
    expect((result["spec"] as JsonObject)["strategy"]).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxUnavailable: "25%", maxSurge: 1 },
    });
  });

  it("merges RawExtension content like a merge patch (lists replaced, even 'containers')", () => {
    const revision = {
      metadata: { name: "rev" },
      data: { spec: { template: { containers: [{ name: "a", image: "a" }] }, keep: true } },
      revision: 1,
    };
    const result = applyStrategicMergePatch(
      revision,
      { data: { spec: { template: { containers: [{ name: "b" }] }, keep: null, added: 1 } } },
      "k8s.io.api.apps.v1.ControllerRevision",
    );
    expect(result).toEqual({
      metadata: { name: "rev" },
      data: { spec: { template: { containers: [{ name: "b" }] }, added: 1 } },
      revision: 1,
    });
  });

  it("handles unknown fields without a schema", () => {
    const original = { spec: { replicas: 1, extra: { list: [1, 2], obj: { a: 1 } } } };
    const result = applyStrategicMergePatch(
      original,
      { spec: { extra: { list: [3], obj: { b: 2 } } } },
      DEPLOYMENT,
    );
    expect(result).toEqual({ spec: { replicas: 1, extra: { list: [3], obj: { a: 1, b: 2 } } } });
  });

  it("behaves like merge patch without a message name", () => {
    const result = applyStrategicMergePatch(
      deployment(),
      {
        metadata: { labels: { a: "b" }, finalizers: ["x"] },
        spec: {
          template: { spec: { containers: [{ name: "new" }] } },
          strategy: { $patch: "delete" },
        },
      },
      undefined,
    );
    expect((result["metadata"] as JsonObject)["finalizers"]).toEqual(["x"]);
    expect((result["metadata"] as JsonObject)["labels"]).toEqual({ a: "b" });
    expect(podSpec(result)["containers"]).toEqual([{ name: "new" }]);
    expect(Object.hasOwn(result["spec"] as JsonObject, "strategy")).toBe(false);
    expect((result["spec"] as JsonObject)["replicas"]).toBe(2);
  });
});

describe("applyStrategicMergePatch: directives never leak", () => {
  it("processes values that do not exist in the original", () => {
    const patch: JsonObject = {
      metadata: {
        labels: { $patch: "replace", a: "1" },
        annotations: { gone: null, kept: "k" },
        "$setElementOrder/finalizers": ["f"],
        "$deleteFromPrimitiveList/finalizers": ["g"],
      },
      spec: {
        strategy: { $retainKeys: ["type"], type: "Recreate" },
        template: {
          spec: {
            "$setElementOrder/containers": [{ name: "a" }],
            containers: [
              {
                name: "a",
                "$setElementOrder/env": [{ name: "X" }],
                env: [
                  { name: "X", value: "1" },
                  { name: "Y", $patch: "delete" },
                ],
                ports: [{ $patch: "replace" }, { containerPort: 80 }],
              },
            ],
            tolerations: [
              { key: "t", $patch: "delete" },
              { key: "u", nested: { $patch: "replace", v: 1 } },
            ],
          },
        },
      },
    };
    const result = applyStrategicMergePatch({}, patch, DEPLOYMENT);
    expect(directiveKeys(result)).toEqual([]);
    expect(result).toEqual({
      metadata: { labels: { a: "1" }, annotations: { kept: "k" } },
      spec: {
        strategy: { type: "Recreate" },
        template: {
          spec: {
            containers: [
              { name: "a", env: [{ name: "X", value: "1" }], ports: [{ containerPort: 80 }] },
            ],
            tolerations: [{ key: "u", nested: { v: 1 } }],
          },
        },
      },
    });
  });
});

describe("applyStrategicMergePatch: errors", () => {
  it.each<[string, JsonObject, "malformed" | "invalid", string]>([
    [
      "a merged element without its merge key",
      patchContainers([{ image: "x" }]),
      "invalid",
      'spec.template.spec.containers: map: {"image":"x"} does not contain declared merge key: name',
    ],
    [
      "a $setElementOrder that is not a list",
      { spec: { template: { spec: { "$setElementOrder/containers": { name: "a" } } } } },
      "malformed",
      "spec.template.spec: invalid patch format of setElementOrder list",
    ],
    [
      "a $setElementOrder key without a list name",
      { metadata: { $setElementOrderfinalizers: [] } },
      "malformed",
      "metadata: invalid patch format of setElementOrder list",
    ],
    [
      "a $deleteFromPrimitiveList that is not a list",
      { metadata: { "$deleteFromPrimitiveList/finalizers": "a" } },
      "malformed",
      "metadata: invalid patch format of primitive list",
    ],
    [
      "a $deleteFromPrimitiveList on a list without the merge strategy",
      patchContainers([{ name: "sidecar", "$deleteFromPrimitiveList/args": ["sleep"] }]),
      "invalid",
      "spec.template.spec.containers[name=sidecar].args: $deleteFromPrimitiveList applies only to merged lists",
    ],
    [
      "lists of lists",
      { metadata: { finalizers: [["a"]] } },
      "invalid",
      "metadata.finalizers: lists of lists are not supported",
    ],
    [
      "mixed element types in a merged list",
      { metadata: { finalizers: [{ a: 1 }] } },
      "invalid",
      "metadata.finalizers: list element types are not identical",
    ],
  ])("rejects %s", (_what, patch, kind, message) => {
    const error = smpError(() => applyStrategicMergePatch(deployment(), patch, DEPLOYMENT));
    expect(error.kind).toBe(kind);
    expect(error.message).toBe(message);
  });

  it("throws a plain Error for a message name missing from the tables", () => {
    expect(() => applyStrategicMergePatch({}, {}, "k8s.io.api.apps.v1.Nope")).toThrow(
      "strategic merge patch: unknown message k8s.io.api.apps.v1.Nope",
    );
  });

  it("rejects a patch that is not an object", () => {
    const error = smpError(() =>
      applyStrategicMergePatch({}, [] as unknown as JsonObject, DEPLOYMENT),
    );
    expect(error.kind).toBe("malformed");
  });

  it("never mutates its inputs, even when failing half-way", () => {
    const original = deepFreeze(deployment());
    const patch = deepFreeze(
      patchContainers([{ name: "nginx", env: [{ name: "Z", value: "z" }] }, { image: "no-key" }]),
    );
    expect(() => applyStrategicMergePatch(original, patch, DEPLOYMENT)).toThrow(
      StrategicMergePatchError,
    );
    expect(original).toEqual(deployment());
  });
});
