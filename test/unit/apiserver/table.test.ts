import { describe, expect, it } from "vitest";
import type { JsonObject, JsonValue } from "kubekit";
import {
  partialObjectMetadataListHead,
  tableParts,
  toPartialObjectMetadata,
  toTable,
} from "../../../packages/apiserver/src/table/table.js";
import type { ServedResource } from "../../../packages/apiserver/src/registry/served-resource.js";
import { builtin, widgetResource } from "./served-fixtures.js";

const NOW = Date.parse("2024-05-03T16:00:00Z");
const PODS = builtin("", "v1", "pods");

function table(
  objects: JsonObject[],
  resource: ServedResource,
  extra: Partial<Parameters<typeof toTable>[2]> = {},
) {
  return toTable(objects, resource, { includeObject: "Metadata", now: NOW, ...extra });
}

function columnNames(t: JsonObject): string[] {
  return (t["columnDefinitions"] as JsonObject[]).map((c) => c["name"] as string);
}

function rows(t: JsonObject): JsonObject[] {
  return t["rows"] as JsonObject[];
}

/** The cells of the only row, keyed by column name. */
function cellsByName(t: JsonObject): Record<string, JsonValue> {
  const names = columnNames(t);
  const cells = rows(t)[0]?.["cells"] as JsonValue[];
  return Object.fromEntries(names.map((n, i) => [n, cells[i] as JsonValue]));
}

function pod(
  overrides: { spec?: JsonObject; status?: JsonObject; metadata?: JsonObject } = {},
): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "web-0",
      namespace: "default",
      uid: "u-1",
      resourceVersion: "42",
      labels: { app: "web" },
      creationTimestamp: "2024-05-03T15:55:00Z",
      ...overrides.metadata,
    },
    spec: {
      nodeName: "node-a",
      containers: [
        { name: "app", image: "nginx:1.27" },
        { name: "sidecar", image: "envoy:1.30" },
      ],
      ...overrides.spec,
    },
    status: {
      phase: "Running",
      podIP: "10.0.0.7",
      podIPs: [{ ip: "10.0.0.7" }],
      conditions: [{ type: "Ready", status: "False" }],
      containerStatuses: [
        {
          name: "app",
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: "2024-05-03T15:55:05Z" } },
        },
        {
          name: "sidecar",
          ready: false,
          restartCount: 3,
          state: { waiting: { reason: "CrashLoopBackOff" } },
          lastState: { terminated: { exitCode: 1, finishedAt: "2024-05-03T15:58:00Z" } },
        },
      ],
      ...overrides.status,
    },
  };
}

describe("toTable for pods", () => {
  it("prints kubectl's pod columns, wide ones with priority 1", () => {
    const t = table([pod()], PODS);
    expect(t["kind"]).toBe("Table");
    expect(t["apiVersion"]).toBe("meta.k8s.io/v1");
    expect(columnNames(t)).toEqual([
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
    const defs = t["columnDefinitions"] as JsonObject[];
    expect(defs[0]).toMatchObject({ name: "Name", type: "string", format: "name", priority: 0 });
    expect(defs.map((d) => d["priority"])).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1]);
    for (const d of defs)
      expect(Object.keys(d).sort()).toEqual(["description", "format", "name", "priority", "type"]);
  });

  it("fills the cells of a running pod with a crash-looping container", () => {
    expect(cellsByName(table([pod()], PODS))).toEqual({
      Name: "web-0",
      Ready: "1/2",
      Status: "CrashLoopBackOff",
      Restarts: "3 (2m ago)",
      Age: "5m",
      IP: "10.0.0.7",
      Node: "node-a",
      "Nominated Node": "<none>",
      "Readiness Gates": "<none>",
    });
  });

  it("shows the phase of a healthy pod, plain restart counts and readiness gates", () => {
    const cells = cellsByName(
      table(
        [
          pod({
            spec: {
              readinessGates: [
                { conditionType: "example.com/lb" },
                { conditionType: "example.com/dns" },
              ],
            },
            status: {
              conditions: [
                { type: "Ready", status: "True" },
                { type: "example.com/lb", status: "True" },
              ],
              containerStatuses: [
                { name: "app", ready: true, restartCount: 0, state: { running: {} } },
                { name: "sidecar", ready: true, restartCount: 0, state: { running: {} } },
              ],
            },
          }),
        ],
        PODS,
      ),
    );
    expect(cells).toMatchObject({
      Ready: "2/2",
      Status: "Running",
      Restarts: "0",
      "Readiness Gates": "1/2",
    });
  });

  it("shows Terminating for a pod being deleted, and Pending with <none> for an unscheduled pod", () => {
    const deleting = cellsByName(
      table([pod({ metadata: { deletionTimestamp: "2024-05-03T15:59:00Z" } })], PODS),
    );
    expect(deleting["Status"]).toBe("Terminating");
    const pending = cellsByName(
      table(
        [
          pod({
            spec: { nodeName: "" },
            status: { phase: "Pending", podIPs: [], podIP: "", containerStatuses: [] },
          }),
        ],
        PODS,
      ),
    );
    expect(pending).toMatchObject({
      Ready: "0/2",
      Status: "Pending",
      IP: "<none>",
      Node: "<none>",
      Restarts: "0",
    });
  });

  it("reports init container progress and failures", () => {
    const initSpec = {
      initContainers: [
        { name: "migrate", image: "tool" },
        { name: "warm", image: "tool" },
      ],
    };
    const waiting = cellsByName(
      table(
        [
          pod({
            spec: initSpec,
            status: {
              phase: "Pending",
              containerStatuses: [],
              initContainerStatuses: [
                {
                  name: "migrate",
                  ready: true,
                  restartCount: 0,
                  state: { terminated: { exitCode: 0, reason: "Completed" } },
                },
                { name: "warm", ready: false, restartCount: 0, state: { running: {} } },
              ],
            },
          }),
        ],
        PODS,
      ),
    );
    expect(waiting["Status"]).toBe("Init:1/2");
    const failed = cellsByName(
      table(
        [
          pod({
            spec: initSpec,
            status: {
              phase: "Pending",
              containerStatuses: [],
              initContainerStatuses: [
                { name: "migrate", restartCount: 2, state: { terminated: { exitCode: 3 } } },
              ],
            },
          }),
        ],
        PODS,
      ),
    );
    expect(failed["Status"]).toBe("Init:ExitCode:3");
    expect(failed["Restarts"]).toBe("2");
  });

  it("counts started sidecar init containers towards readiness", () => {
    const cells = cellsByName(
      table(
        [
          pod({
            spec: { initContainers: [{ name: "proxy", image: "envoy", restartPolicy: "Always" }] },
            status: {
              conditions: [{ type: "Initialized", status: "True" }],
              initContainerStatuses: [
                {
                  name: "proxy",
                  ready: true,
                  started: true,
                  restartCount: 0,
                  state: { running: {} },
                },
              ],
              containerStatuses: [
                { name: "app", ready: true, restartCount: 0, state: { running: {} } },
                { name: "sidecar", ready: true, restartCount: 0, state: { running: {} } },
              ],
            },
          }),
        ],
        PODS,
      ),
    );
    expect(cells).toMatchObject({ Ready: "3/3", Status: "Running" });
  });

  it("marks finished pods with a Completed row condition", () => {
    const t = table(
      [
        pod({
          status: {
            phase: "Succeeded",
            containerStatuses: [
              {
                name: "app",
                ready: false,
                restartCount: 0,
                state: { terminated: { exitCode: 0, reason: "Completed" } },
              },
            ],
          },
        }),
      ],
      PODS,
    );
    expect(cellsByName(t)["Status"]).toBe("Completed");
    expect(rows(t)[0]?.["conditions"]).toEqual([
      {
        type: "Completed",
        status: "True",
        reason: "Succeeded",
        message: "The pod has completed successfully.",
      },
    ]);
    expect(rows(table([pod()], PODS))[0]).not.toHaveProperty("conditions");
  });
});

describe("toTable for other built-ins", () => {
  it("prints a deployment like kubectl get deployments -o wide", () => {
    const deployment: JsonObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default", creationTimestamp: "2024-05-01T12:00:00Z" },
      spec: {
        replicas: 3,
        selector: {
          matchLabels: { app: "web" },
          matchExpressions: [{ key: "tier", operator: "In", values: ["front", "edge"] }],
        },
        template: {
          spec: {
            containers: [
              { name: "nginx", image: "nginx:1.27" },
              { name: "log", image: "fluent:2" },
            ],
          },
        },
      },
      status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    const t = table([deployment], builtin("apps", "v1", "deployments"));
    expect(cellsByName(t)).toEqual({
      Name: "web",
      Ready: "2/3",
      "Up-to-date": 3,
      Available: 2,
      Age: "2d4h",
      Containers: "nginx,log",
      Images: "nginx:1.27,fluent:2",
      Selector: "app=web,tier in (edge,front)",
    });
  });

  it("prints services of each type", () => {
    const services = builtin("", "v1", "services");
    const base = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", creationTimestamp: "2024-05-03T15:59:30Z" },
    };
    const clusterIP = cellsByName(
      table(
        [
          {
            ...base,
            spec: {
              type: "ClusterIP",
              clusterIP: "10.96.0.10",
              clusterIPs: ["10.96.0.10"],
              selector: { app: "web" },
              ports: [
                { port: 80, protocol: "TCP" },
                { port: 53, protocol: "UDP" },
              ],
            },
          },
        ],
        services,
      ),
    );
    expect(clusterIP).toEqual({
      Name: "web",
      Type: "ClusterIP",
      "Cluster-IP": "10.96.0.10",
      "External-IP": "<none>",
      "Port(s)": "80/TCP,53/UDP",
      Age: "30s",
      Selector: "app=web",
    });
    const nodePort = cellsByName(
      table(
        [
          {
            ...base,
            spec: {
              type: "NodePort",
              clusterIPs: ["10.96.0.11"],
              ports: [{ port: 80, nodePort: 30080 }],
            },
          },
        ],
        services,
      ),
    );
    expect(nodePort).toMatchObject({ "Port(s)": "80:30080/TCP", Selector: "<none>" });
    const pendingLb = cellsByName(
      table([{ ...base, spec: { type: "LoadBalancer", ports: [] } }], services),
    );
    expect(pendingLb).toMatchObject({
      "External-IP": "<pending>",
      "Cluster-IP": "<none>",
      "Port(s)": "<none>",
    });
    const lb = cellsByName(
      table(
        [
          {
            ...base,
            spec: { type: "LoadBalancer", externalIPs: ["1.2.3.4"] },
            status: {
              loadBalancer: { ingress: [{ ip: "9.9.9.9" }, { hostname: "lb.example.com" }] },
            },
          },
        ],
        services,
      ),
    );
    expect(lb["External-IP"]).toBe("9.9.9.9,lb.example.com,1.2.3.4");
    const external = cellsByName(
      table(
        [{ ...base, spec: { type: "ExternalName", externalName: "db.example.com" } }],
        services,
      ),
    );
    expect(external["External-IP"]).toBe("db.example.com");
  });

  it("prints namespaces, configmaps, secrets, service accounts and leases", () => {
    const meta = { name: "x", creationTimestamp: "2024-05-03T13:00:00Z" };
    expect(
      cellsByName(
        table(
          [{ metadata: meta, status: { phase: "Terminating" } }],
          builtin("", "v1", "namespaces"),
        ),
      ),
    ).toEqual({
      Name: "x",
      Status: "Terminating",
      Age: "3h",
    });
    expect(
      cellsByName(table([{ metadata: meta }], builtin("", "v1", "namespaces")))["Status"],
    ).toBe("Active");
    expect(
      cellsByName(
        table(
          [{ metadata: meta, data: { a: "1", b: "2" }, binaryData: { c: "AA==" } }],
          builtin("", "v1", "configmaps"),
        ),
      ),
    ).toEqual({
      Name: "x",
      Data: 3,
      Age: "3h",
    });
    expect(
      cellsByName(
        table(
          [{ metadata: meta, type: "kubernetes.io/tls", data: { "tls.crt": "", "tls.key": "" } }],
          builtin("", "v1", "secrets"),
        ),
      ),
    ).toEqual({
      Name: "x",
      Type: "kubernetes.io/tls",
      Data: 2,
      Age: "3h",
    });
    expect(cellsByName(table([{ metadata: meta }], builtin("", "v1", "serviceaccounts")))).toEqual({
      Name: "x",
      Secrets: 0,
      Age: "3h",
    });
    expect(
      cellsByName(
        table(
          [{ metadata: meta, spec: { holderIdentity: "pod-a_1b2c" } }],
          builtin("coordination.k8s.io", "v1", "leases"),
        ),
      ),
    ).toEqual({
      Name: "x",
      Holder: "pod-a_1b2c",
      Age: "3h",
    });
  });

  it("prints nodes with roles, readiness and addresses", () => {
    const node: JsonObject = {
      metadata: {
        name: "node-a",
        creationTimestamp: "2024-04-01T16:00:00Z",
        labels: { "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "worker" },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: "Ready", status: "True" }],
        addresses: [{ type: "InternalIP", address: "192.168.1.5" }],
        nodeInfo: {
          kubeletVersion: "v1.32.0",
          osImage: "Debian",
          kernelVersion: "6.1",
          containerRuntimeVersion: "containerd://1.7",
        },
      },
    };
    expect(cellsByName(table([node], builtin("", "v1", "nodes")))).toEqual({
      Name: "node-a",
      Status: "Ready,SchedulingDisabled",
      Roles: "control-plane,worker",
      Age: "32d",
      Version: "v1.32.0",
      "Internal-IP": "192.168.1.5",
      "External-IP": "<none>",
      "OS-Image": "Debian",
      "Kernel-Version": "6.1",
      "Container-Runtime": "containerd://1.7",
    });
  });

  it("prints jobs and cronjobs", () => {
    const job: JsonObject = {
      metadata: { name: "pi", creationTimestamp: "2024-05-03T15:50:00Z" },
      spec: {
        completions: 3,
        template: { spec: { containers: [{ name: "pi", image: "perl" }] } },
        selector: { matchLabels: { "batch.kubernetes.io/controller-uid": "u" } },
      },
      status: {
        succeeded: 3,
        startTime: "2024-05-03T15:50:00Z",
        completionTime: "2024-05-03T15:51:10Z",
        conditions: [{ type: "Complete", status: "True" }],
      },
    };
    expect(cellsByName(table([job], builtin("batch", "v1", "jobs")))).toEqual({
      Name: "pi",
      Status: "Complete",
      Completions: "3/3",
      Duration: "70s",
      Age: "10m",
      Containers: "pi",
      Images: "perl",
      Selector: "batch.kubernetes.io/controller-uid=u",
    });
    const running = cellsByName(
      table(
        [{ ...job, spec: { parallelism: 2 }, status: { startTime: "2024-05-03T15:59:00Z" } }],
        builtin("batch", "v1", "jobs"),
      ),
    );
    expect(running).toMatchObject({
      Status: "Running",
      Completions: "0/1 of 2",
      Duration: "60s",
      Selector: "<none>",
    });
    const cronJob: JsonObject = {
      metadata: { name: "nightly", creationTimestamp: "2024-05-03T15:00:00Z" },
      spec: {
        schedule: "0 3 * * *",
        suspend: false,
        jobTemplate: {
          spec: { template: { spec: { containers: [{ name: "c", image: "busybox" }] } } },
        },
      },
      status: { active: [{ name: "nightly-1" }], lastScheduleTime: "2024-05-03T15:30:00Z" },
    };
    expect(cellsByName(table([cronJob], builtin("batch", "v1", "cronjobs")))).toMatchObject({
      Schedule: "0 3 * * *",
      Timezone: "<none>",
      Suspend: "False",
      Active: 1,
      "Last Schedule": "30m",
      Age: "60m",
    });
  });

  it("prints core events with object, source and count", () => {
    const event: JsonObject = {
      metadata: {
        name: "web-0.17c",
        namespace: "default",
        creationTimestamp: "2024-05-03T15:00:00Z",
      },
      involvedObject: { kind: "Pod", name: "web-0", fieldPath: "spec.containers{app}" },
      reason: "BackOff",
      message: "Back-off restarting failed container  \n",
      type: "Warning",
      source: { component: "kubelet", host: "node-a" },
      firstTimestamp: "2024-05-03T15:00:00Z",
      lastTimestamp: "2024-05-03T15:58:00Z",
      count: 12,
    };
    expect(cellsByName(table([event], builtin("", "v1", "events")))).toEqual({
      "Last Seen": "2m",
      Type: "Warning",
      Reason: "BackOff",
      Object: "pod/web-0",
      Subobject: "spec.containers{app}",
      Source: "kubelet, node-a",
      Message: "Back-off restarting failed container",
      "First Seen": "60m",
      Count: 12,
      Name: "web-0.17c",
    });
    const singleton = cellsByName(
      table(
        [
          {
            metadata: { name: "e" },
            involvedObject: { kind: "Node" },
            eventTime: "2024-05-03T15:59:50.000000Z",
          },
        ],
        builtin("", "v1", "events"),
      ),
    );
    expect(singleton).toMatchObject({
      "Last Seen": "10s",
      "First Seen": "10s",
      Count: 1,
      Object: "node",
      Source: "<unknown>",
    });
  });

  it("prints persistent volume claims, bound and pending", () => {
    const pvcs = builtin("", "v1", "persistentvolumeclaims");
    const bound = cellsByName(
      table(
        [
          {
            metadata: { name: "data", creationTimestamp: "2024-05-03T15:00:00Z" },
            spec: { volumeName: "pv-1", storageClassName: "standard", volumeMode: "Filesystem" },
            status: {
              phase: "Bound",
              accessModes: ["ReadWriteMany", "ReadWriteOnce"],
              capacity: { storage: "10Gi" },
            },
          },
        ],
        pvcs,
      ),
    );
    expect(bound).toEqual({
      Name: "data",
      Status: "Bound",
      Volume: "pv-1",
      Capacity: "10Gi",
      "Access Modes": "RWO,RWX",
      StorageClass: "standard",
      VolumeAttributesClass: "<unset>",
      Age: "60m",
      VolumeMode: "Filesystem",
    });
    const pending = cellsByName(
      table([{ metadata: { name: "d" }, spec: {}, status: { phase: "Pending" } }], pvcs),
    );
    expect(pending).toMatchObject({
      Status: "Pending",
      Volume: "",
      Capacity: "",
      "Access Modes": "",
      Age: "<unknown>",
      VolumeMode: "<unset>",
    });
  });

  it("gives other resources, including CRDs themselves, Name and Created At", () => {
    const crd: JsonObject = {
      metadata: { name: "widgets.example.com", creationTimestamp: "2024-05-01T12:00:00.123Z" },
    };
    const t = table([crd], builtin("apiextensions.k8s.io", "v1", "customresourcedefinitions"));
    expect(t["columnDefinitions"]).toEqual([
      expect.objectContaining({ name: "Name", type: "string", format: "name", priority: 0 }),
      expect.objectContaining({ name: "Created At", type: "date", format: "", priority: 0 }),
    ]);
    expect(rows(t)[0]?.["cells"]).toEqual(["widgets.example.com", "2024-05-01T12:00:00Z"]);
    const noTimestamp = table(
      [{ metadata: { name: "r" } }],
      builtin("rbac.authorization.k8s.io", "v1", "roles"),
    );
    expect(rows(noTimestamp)[0]?.["cells"]).toEqual(["r", "0001-01-01T00:00:00Z"]);
  });
});

describe("toTable for custom resources", () => {
  const widget: JsonObject = {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w1", namespace: "default", creationTimestamp: "2024-05-03T15:00:00Z" },
    spec: { replicas: 2.7, size: "large", paused: true, tags: { b: 1, a: [2] } },
    status: {
      conditions: [
        { type: "Synced", status: "True" },
        { type: "Ready", status: "False", lastTransitionTime: "2024-05-03T15:59:00Z" },
      ],
    },
  };

  it("uses Name plus the printer columns, converting values by column type", () => {
    const resource = widgetResource("v1", [
      { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
      {
        name: "Ratio",
        type: "number",
        jsonPath: ".spec.replicas",
        priority: 1,
        description: "ratio",
      },
      { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      {
        name: "Since",
        type: "date",
        jsonPath: '.status.conditions[?(@.type=="Ready")].lastTransitionTime',
      },
      { name: "Paused", type: "boolean", jsonPath: ".spec.paused" },
      { name: "Tags", type: "string", jsonPath: ".spec.tags" },
      { name: "Count", type: "integer", jsonPath: ".spec.size" },
      { name: "Missing", type: "string", jsonPath: ".status.nothing" },
      { name: "Broken", type: "string", jsonPath: ".spec[" },
    ]);
    const t = table([widget], resource);
    expect((t["columnDefinitions"] as JsonObject[]).slice(0, 3)).toEqual([
      expect.objectContaining({ name: "Name", format: "name" }),
      {
        name: "Replicas",
        type: "integer",
        format: "",
        description: "Custom resource definition column (in JSONPath format): .spec.replicas",
        priority: 0,
      },
      { name: "Ratio", type: "number", format: "", description: "ratio", priority: 1 },
    ]);
    expect(cellsByName(t)).toEqual({
      Name: "w1",
      Replicas: 2,
      Ratio: 2.7,
      Ready: "False",
      Since: "60s",
      Paused: true,
      Tags: '{"a":[2],"b":1}',
      Count: null,
      Missing: null,
      Broken: null,
    });
  });

  it("falls back to an Age column of type date when the CRD declares none", () => {
    const t = table([widget], widgetResource("v1", []));
    expect(columnNames(t)).toEqual(["Name", "Age"]);
    expect((t["columnDefinitions"] as JsonObject[])[1]).toMatchObject({ type: "date" });
    expect(cellsByName(t)).toEqual({ Name: "w1", Age: "60m" });
  });
});

describe("toTable rows and metadata", () => {
  const deployments = builtin("apps", "v1", "deployments");
  const listItem: JsonObject = {
    metadata: { name: "web", namespace: "prod", labels: { app: "web" }, resourceVersion: "7" },
    spec: { replicas: 1 },
  };

  it("puts a PartialObjectMetadata in each row by default (namespace and labels for kubectl)", () => {
    const row = rows(table([listItem], deployments))[0];
    expect(row?.["object"]).toEqual({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: listItem["metadata"],
    });
  });

  it("omits the object for None and gives the full object with its type for Object", () => {
    expect(rows(table([listItem], deployments, { includeObject: "None" }))[0]).not.toHaveProperty(
      "object",
    );
    const full = rows(table([listItem], deployments, { includeObject: "Object" }))[0]?.[
      "object"
    ] as JsonObject;
    expect(full).toEqual({ apiVersion: "apps/v1", kind: "Deployment", ...listItem });
  });

  it("copies list metadata without empty fields", () => {
    const t = table([listItem, listItem], deployments, {
      listMeta: { resourceVersion: "99", continue: "tok", remainingItemCount: 5 },
    });
    expect(t["metadata"]).toEqual({
      resourceVersion: "99",
      continue: "tok",
      remainingItemCount: 5,
    });
    expect(rows(t)).toHaveLength(2);
    expect(
      table([], deployments, { listMeta: { resourceVersion: "99", continue: "" } })["metadata"],
    ).toEqual({ resourceVersion: "99" });
    expect(rows(table([], deployments, { listMeta: {} }))).toEqual([]);
  });

  it("uses a single object's resourceVersion when no list metadata is given (get, watch events)", () => {
    expect(table([listItem], deployments)["metadata"]).toEqual({ resourceVersion: "7" });
    expect(table([listItem, listItem], deployments)["metadata"]).toEqual({});
  });
});

describe("PartialObjectMetadata", () => {
  it("wraps the whole ObjectMeta", () => {
    const obj = pod();
    expect(toPartialObjectMetadata(obj)).toEqual({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: obj["metadata"],
    });
    expect(toPartialObjectMetadata({ kind: "Pod" })["metadata"]).toEqual({});
  });

  it("builds a list head with metadata, the items being each object's PartialObjectMetadata", () => {
    expect(partialObjectMetadataListHead({ resourceVersion: "5", continue: "c" })).toEqual({
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata: { resourceVersion: "5", continue: "c" },
    });
    expect(partialObjectMetadataListHead()).toEqual({
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata: {},
    });
  });

  it("gives a Table in parts that make up toTable's list Table", () => {
    const objects = [pod(), pod({ metadata: { name: "web-1" } })];
    const options = {
      includeObject: "Metadata",
      now: NOW,
      listMeta: { resourceVersion: "7" },
    } as const;
    const { head, row } = tableParts(PODS, options);
    expect(Object.keys(head)).toEqual(["kind", "apiVersion", "metadata", "columnDefinitions"]);
    expect({ ...head, rows: objects.map(row) }).toEqual(toTable(objects, PODS, options));
  });
});
