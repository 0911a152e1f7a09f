import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import {
  decodeKubernetesProtobuf,
  encodeKubernetesProtobuf,
  ProtobufDecodeError,
  ProtobufEncodeError,
} from "../../../packages/apiserver/src/encoding/protobuf.js";

// --- hand-rolled wire helpers (independent of the encoder under test) -------------------

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}
const tag = (num: number, wt: number): number[] => varint(num * 8 + wt);
const bytesField = (num: number, payload: number[]): number[] => [
  ...tag(num, 2),
  ...varint(payload.length),
  ...payload,
];
const ascii = (s: string): number[] => [...Buffer.from(s, "utf8")];
const str = (num: number, s: string): number[] => bytesField(num, ascii(s));
const varintField = (num: number, n: number): number[] => [...tag(num, 0), ...varint(n)];
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

function envelope(
  apiVersion: string,
  kind: string,
  raw: number[],
  extra: number[] = [],
): Uint8Array {
  return Uint8Array.from([
    ...MAGIC,
    ...bytesField(1, [...str(1, apiVersion), ...str(2, kind)]),
    ...bytesField(2, raw),
    ...str(3, ""),
    ...str(4, ""),
    ...extra,
  ]);
}

function roundTrip(obj: JsonObject): JsonObject {
  const bytes = encodeKubernetesProtobuf(obj);
  const decoded = decodeKubernetesProtobuf(bytes);
  // decoding then re-encoding is stable byte for byte
  expect(Buffer.from(encodeKubernetesProtobuf(decoded))).toEqual(Buffer.from(bytes));
  expect(decoded).toMatchObject(obj);
  return decoded;
}

function decodeError(body: Uint8Array): ProtobufDecodeError {
  try {
    decodeKubernetesProtobuf(body);
  } catch (err) {
    if (err instanceof ProtobufDecodeError) return err;
    throw err;
  }
  throw new Error("expected a ProtobufDecodeError");
}

// --- wire compatibility ------------------------------------------------------------------

describe("decoding hand-built bytes", () => {
  it("decodes a Namespace as kubectl 1.32 sends it", () => {
    const metadata = [
      ...str(1, "demo"),
      ...str(2, ""),
      ...str(3, ""),
      ...str(4, ""),
      ...str(5, ""),
      ...str(6, ""),
      ...varintField(7, 0),
      ...bytesField(8, []), // zero creationTimestamp
      ...bytesField(11, [...str(1, "team"), ...str(2, "a")]),
      ...bytesField(11, [...str(1, "env"), ...str(2, "dev")]),
    ];
    const raw = [
      ...bytesField(1, metadata),
      ...bytesField(2, str(1, "kubernetes")),
      ...bytesField(3, str(1, "")),
    ];
    const decoded = decodeKubernetesProtobuf(envelope("v1", "Namespace", raw));
    expect(decoded).toEqual({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "demo", creationTimestamp: null, labels: { team: "a", env: "dev" } },
      spec: { finalizers: ["kubernetes"] },
      status: {},
    });
    expect(Object.keys(decoded)).toEqual(["apiVersion", "kind", "metadata", "spec", "status"]);
  });

  it("skips unknown field numbers of every wire type, at the top level and nested", () => {
    const unknownFields = [
      ...varintField(99, 300),
      ...tag(98, 1),
      ...[1, 2, 3, 4, 5, 6, 7, 8],
      ...tag(97, 5),
      ...[1, 2, 3, 4],
      ...str(96, "future"),
    ];
    const raw = [...bytesField(1, [...str(1, "x"), ...unknownFields]), ...unknownFields];
    expect(decodeKubernetesProtobuf(envelope("v1", "ConfigMap", raw, unknownFields))).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "x" },
    });
  });

  it("reads Time seconds, ignores Time nanos, and keeps MicroTime microseconds", () => {
    const time = [...varintField(1, 1714564800), ...varintField(2, 500_000_000)];
    const ns = decodeKubernetesProtobuf(
      envelope("v1", "Namespace", bytesField(1, [...str(1, "n"), ...bytesField(8, time)])),
    );
    expect(ns.metadata).toEqual({ name: "n", creationTimestamp: "2024-05-01T12:00:00Z" });

    const micro = [...varintField(1, 1714564800), ...varintField(2, 123_456_789)];
    const lease = decodeKubernetesProtobuf(
      envelope("coordination.k8s.io/v1", "Lease", bytesField(2, bytesField(4, micro))),
    );
    expect(lease.spec).toEqual({ renewTime: "2024-05-01T12:00:00.123456Z" });
  });

  it("sign-extends negative int32 values and accepts packed repeated numbers", () => {
    const negative = [...tag(2, 0), 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]; // -5
    const pc = decodeKubernetesProtobuf(
      envelope("scheduling.k8s.io/v1", "PriorityClass", [
        ...bytesField(1, str(1, "low")),
        ...negative,
      ]),
    );
    expect(pc.value).toBe(-5);

    // PodPortForwardOptions.ports is repeated int32: one packed run and one unpacked value
    const opts = decodeKubernetesProtobuf(
      envelope("v1", "PodPortForwardOptions", [
        ...bytesField(1, [80, ...varint(8080)]),
        ...varintField(1, 9090),
      ]),
    );
    expect(opts.ports).toEqual([80, 8080, 9090]);
  });

  it("applies omitempty to zero scalars but keeps non-omitempty zeros and pointer zeros", () => {
    const port = [...str(1, ""), ...varintField(2, 0), ...varintField(3, 0), ...str(4, "TCP")];
    const container = [...str(1, "c"), ...bytesField(6, port)];
    const podSpec = bytesField(2, container);
    const pod = decodeKubernetesProtobuf(envelope("v1", "Pod", bytesField(2, podSpec)));
    const spec = pod.spec as JsonObject;
    const containers = spec.containers as JsonObject[];
    // hostPort (omitempty) dropped; containerPort (not omitempty) kept at 0
    expect(containers[0]?.ports).toEqual([{ containerPort: 0, protocol: "TCP" }]);

    // Job.spec.backoffLimit is a pointer: present and zero stays
    const job = decodeKubernetesProtobuf(
      envelope("batch/v1", "Job", bytesField(2, [...varintField(7, 0), ...bytesField(6, [])])),
    );
    expect(job.spec).toEqual({ backoffLimit: 0, template: {} });
  });

  it("fills non-omitempty scalars absent from the wire with their zero value", () => {
    // ContainerPort.containerPort is not omitempty; a sparse encoder may leave it out
    const container = [...str(1, "c"), ...bytesField(6, str(4, "UDP"))];
    const pod = decodeKubernetesProtobuf(
      envelope("v1", "Pod", bytesField(2, bytesField(2, container))),
    );
    const containers = (pod.spec as JsonObject).containers as JsonObject[];
    expect(containers[0]?.ports).toEqual([{ containerPort: 0, protocol: "UDP" }]);
  });

  it("decodes a RawExtension holding a nested protobuf object", () => {
    const inner = envelope("v1", "ConfigMap", bytesField(1, str(1, "inner")));
    const rev = decodeKubernetesProtobuf(
      envelope("apps/v1", "ControllerRevision", [
        ...bytesField(2, bytesField(1, [...inner])),
        ...varintField(3, 2),
      ]),
    );
    expect(rev.data).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "inner" } });
    expect(rev.revision).toBe(2);
  });
});

// --- round trips ---------------------------------------------------------------------------

describe("encode → decode round trips", () => {
  it("Namespace", () => {
    const decoded = roundTrip({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "x", labels: { a: "b" }, annotations: { "example.com/note": "hi" } },
      spec: { finalizers: ["kubernetes"] },
    });
    expect((decoded.metadata as JsonObject).creationTimestamp).toBeNull();
    expect(decoded.status).toEqual({});
  });

  it("ConfigMap with data, binaryData and a false pointer bool", () => {
    const decoded = roundTrip({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cm", namespace: "default", creationTimestamp: "2024-05-01T12:00:00Z" },
      immutable: false,
      data: { "app.properties": "a=1\nb=2", empty: "" },
      binaryData: { blob: "AAEC/w==", none: "" },
    });
    expect(decoded.immutable).toBe(false);
  });

  it("Secret bytes survive byte for byte", () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString("base64");
    const decoded = roundTrip({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s" },
      type: "Opaque",
      data: { all, password: Buffer.from("hunter2").toString("base64") },
      stringData: { plain: "text" },
    });
    expect(Buffer.from((decoded.data as JsonObject).all as string, "base64")).toHaveLength(256);
  });

  it("Deployment with IntOrString, Quantities, Times, inline fields and nested lists", () => {
    const decoded = roundTrip({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "web",
        namespace: "default",
        generation: 4,
        creationTimestamp: "2024-05-01T12:00:00Z",
        labels: { app: "web" },
        ownerReferences: [
          { apiVersion: "v1", kind: "ConfigMap", name: "o", uid: "u-1", controller: true },
        ],
        managedFields: [
          {
            manager: "kubectl",
            operation: "Update",
            apiVersion: "apps/v1",
            time: "2024-05-01T12:00:00Z",
            fieldsType: "FieldsV1",
            fieldsV1: { "f:spec": { "f:replicas": {} } },
          },
        ],
      },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: "web" } },
        strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 1 } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            containers: [
              {
                name: "app",
                image: "nginx:1.27",
                command: ["nginx", "-g", "daemon off;"],
                ports: [{ name: "http", containerPort: 80, protocol: "TCP" }],
                env: [
                  { name: "A", value: "1" },
                  {
                    name: "B",
                    valueFrom: { configMapKeyRef: { name: "cm", key: "b", optional: true } },
                  },
                ],
                resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "250m" } },
                readinessProbe: { httpGet: { path: "/", port: "http" }, periodSeconds: 5 },
              },
            ],
            volumes: [{ name: "config", configMap: { name: "cm", defaultMode: 420 } }],
          },
        },
      },
      status: {
        replicas: 3,
        conditions: [
          {
            type: "Available",
            status: "True",
            lastUpdateTime: "2024-05-01T12:00:05Z",
            lastTransitionTime: "2024-05-01T12:00:05Z",
          },
        ],
      },
    });
    const spec = decoded.spec as JsonObject;
    expect(spec.strategy).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxUnavailable: 1, maxSurge: "25%" },
    });
    const template = spec.template as JsonObject;
    expect(template.metadata).toEqual({ creationTimestamp: null, labels: { app: "web" } });
    const podSpec = template.spec as JsonObject;
    // inline VolumeSource: configMap sits directly in the volume
    expect(podSpec.volumes).toEqual([
      { name: "config", configMap: { name: "cm", defaultMode: 420 } },
    ]);
  });

  it("Service with int and string targetPorts", () => {
    const decoded = roundTrip({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "svc" },
      spec: {
        type: "ClusterIP",
        selector: { app: "web" },
        ports: [
          { name: "http", port: 80, targetPort: 8080, protocol: "TCP" },
          { name: "metrics", port: 9090, targetPort: "metrics" },
        ],
        clusterIP: "10.0.0.10",
        clusterIPs: ["10.0.0.10"],
      },
    });
    const ports = (decoded.spec as JsonObject).ports as JsonObject[];
    expect(ports.map((p) => p.targetPort)).toEqual([8080, "metrics"]);
  });

  it("Job with zero pointer ints and an int64 pointer", () => {
    const decoded = roundTrip({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "j" },
      spec: {
        backoffLimit: 0,
        completions: 1,
        activeDeadlineSeconds: 600,
        template: {
          spec: {
            restartPolicy: "Never",
            containers: [{ name: "c", image: "busybox", args: ["sh", "-c", "exit 0"] }],
          },
        },
      },
    });
    expect((decoded.spec as JsonObject).backoffLimit).toBe(0);
  });

  it("ServiceAccount", () => {
    const decoded = roundTrip({
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "sa", namespace: "default" },
      automountServiceAccountToken: false,
      imagePullSecrets: [{ name: "pull" }],
    });
    expect(decoded.automountServiceAccountToken).toBe(false);
  });

  it("TokenRequest", () => {
    roundTrip({
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      metadata: { name: "sa", namespace: "default" },
      spec: {
        audiences: ["https://kubernetes.default.svc"],
        expirationSeconds: 3600,
        boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "p", uid: "u" },
      },
      status: { token: "abc", expirationTimestamp: "2024-05-01T13:00:00Z" },
    });
  });

  it("string-list map values, RawExtension JSON and large int64s", () => {
    const sar = roundTrip({
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      metadata: {},
      spec: { user: "u", extra: { scopes: ["a", "b"], empty: [] } },
    });
    expect((sar.spec as JsonObject).extra).toEqual({ empty: [], scopes: ["a", "b"] });

    roundTrip({
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: { name: "r", generation: 2 ** 53 - 1 },
      data: { spec: { template: { metadata: { labels: { a: "b" } } } } },
      revision: 7,
    });
  });

  it("MicroTime and RFC 3339 offsets", () => {
    const lease = roundTrip({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "l" },
      spec: {
        holderIdentity: "me",
        leaseDurationSeconds: 15,
        renewTime: "2024-05-01T12:00:00.000001Z",
      },
    });
    expect((lease.spec as JsonObject).renewTime).toBe("2024-05-01T12:00:00.000001Z");

    const ns = decodeKubernetesProtobuf(
      encodeKubernetesProtobuf({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "n", creationTimestamp: "2024-05-01T14:00:00.75+02:00" },
      }),
    );
    expect((ns.metadata as JsonObject).creationTimestamp).toBe("2024-05-01T12:00:00Z");
  });

  it("meta.v1 kinds registered in every group version (DeleteOptions)", () => {
    roundTrip({
      apiVersion: "apps/v1",
      kind: "DeleteOptions",
      propagationPolicy: "Foreground",
      dryRun: ["All"],
    });
  });
});

// --- malformed input -----------------------------------------------------------------------

describe("malformed bodies", () => {
  const deployment = encodeKubernetesProtobuf({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", labels: { app: "web" } },
    spec: { replicas: 2, template: { spec: { containers: [{ name: "c", image: "nginx" }] } } },
  });

  it("rejects a missing or wrong magic prefix", () => {
    expect(decodeError(new Uint8Array()).message).toMatch(/magic/);
    expect(decodeError(Uint8Array.from([0x6b, 0x38, 0x73]))).toBeInstanceOf(ProtobufDecodeError);
    expect(decodeError(Uint8Array.from(Buffer.from('{"kind":"Pod"}'))).message).toMatch(/magic/);
  });

  it("rejects every truncation inside the object", () => {
    const typeMetaLength = deployment[5] as number;
    const rawTag = 4 + 2 + typeMetaLength;
    let pos = rawTag + 1;
    let rawLength = 0;
    for (let scale = 1; ; scale *= 128) {
      const b = deployment[pos++] as number;
      rawLength += (b & 0x7f) * scale;
      if (b < 0x80) break;
    }
    const rawEnd = pos + rawLength;
    for (let len = rawTag + 1; len < rawEnd; len++) {
      expect(() => decodeKubernetesProtobuf(deployment.subarray(0, len))).toThrow(
        ProtobufDecodeError,
      );
    }
  });

  it("names the offset and field path of the problem", () => {
    const raw = [...bytesField(1, str(1, "x")), ...varintField(2, 5)]; // spec sent as a varint
    const err = decodeError(envelope("v1", "Namespace", raw));
    expect(err.message).toMatch(/spec/);
    expect(err.message).toMatch(/at byte \d+/);
  });

  it("names a GVK with no built-in type", () => {
    expect(decodeError(envelope("example.com/v1", "Widget", [])).message).toContain(
      'apiVersion "example.com/v1", kind "Widget"',
    );
    expect(decodeError(Uint8Array.from(MAGIC)).message).toMatch(/no built-in type/);
  });

  it("rejects content encodings, bad IntOrString types and unsupported wire types", () => {
    const gz = Uint8Array.from([...envelope("v1", "Namespace", []), ...str(3, "gzip")]);
    expect(decodeError(gz).message).toMatch(/contentEncoding "gzip"/);

    const ios = [...varintField(1, 7)];
    const svc = bytesField(2, bytesField(1, bytesField(4, ios)));
    expect(decodeError(envelope("v1", "Service", svc)).message).toMatch(/IntOrString type 7/);

    const group = [...tag(50, 3)];
    expect(decodeError(envelope("v1", "Namespace", group)).message).toMatch(/wire type 3/);
  });

  it("rejects overlong varints", () => {
    const raw = [...tag(1, 0), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    expect(decodeError(envelope("v1", "Namespace", raw)).message).toMatch(
      /varint longer than 10 bytes/,
    );
  });

  it("bounds nesting of embedded objects", () => {
    let inner = [...envelope("v1", "ConfigMap", [])];
    for (let i = 0; i < 150; i++) {
      inner = [...envelope("apps/v1", "ControllerRevision", bytesField(2, bytesField(1, inner)))];
    }
    expect(decodeError(Uint8Array.from(inner)).message).toMatch(/nested deeper/);
  });

  it("never throws anything but ProtobufDecodeError on corrupted bodies", () => {
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 3000; round++) {
      const body = Uint8Array.from(deployment);
      const flips = 1 + random(4);
      for (let i = 0; i < flips; i++) body[4 + random(body.length - 4)] = random(256);
      try {
        decodeKubernetesProtobuf(body);
      } catch (err) {
        expect(err).toBeInstanceOf(ProtobufDecodeError);
      }
    }
  });
});

describe("encoding errors", () => {
  it("reports unknown fields, wrong types and unknown kinds with their path", () => {
    expect(() =>
      encodeKubernetesProtobuf({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "x", bogus: 1 },
      }),
    ).toThrow(/metadata\.bogus/);
    expect(() =>
      encodeKubernetesProtobuf({
        apiVersion: "apps/v1",
        kind: "Deployment",
        spec: { replicas: "3" },
      }),
    ).toThrow(ProtobufEncodeError);
    expect(() =>
      encodeKubernetesProtobuf({ apiVersion: "v1", kind: "Secret", data: { k: "not base64!" } }),
    ).toThrow(/data\.k/);
    expect(() =>
      encodeKubernetesProtobuf({ apiVersion: "example.com/v1", kind: "Widget" }),
    ).toThrow(/no built-in type/);
    expect(() =>
      encodeKubernetesProtobuf({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { creationTimestamp: "yesterday" },
      }),
    ).toThrow(/RFC 3339/);
    expect(() =>
      encodeKubernetesProtobuf({
        apiVersion: "scheduling.k8s.io/v1",
        kind: "PriorityClass",
        value: 2 ** 31,
      }),
    ).toThrow(/int32/);
  });
});
