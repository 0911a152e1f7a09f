import type { Pod } from "kubernetes-types/core/v1.js";

/** Options of {@link makePod}. */
export interface PodOptions {
  /** Namespaces the pods are spread over, round-robin by index (default: one, "bench"). */
  readonly namespaces?: readonly string[];
  /** Pods per owning ReplicaSet, which share labels and the name prefix (default 10). */
  readonly podsPerReplicaSet?: number;
  /** The instant creation/start/transition timestamps are derived from (default 2024-01-01T00:00:00Z). */
  readonly epochMs?: number;
  /**
   * `"small"` (default): about 2.8 KB of JSON, coarse managedFields. `"big"`: about 5.8 KB, as
   * kube-apiserver returns a Deployment's pod — the fields the API server's defaulting and
   * admission add (the service-account token volume and its mounts, termination message
   * settings, default tolerations, priority, ...) and managedFields listing every field set
   * (see {@link bigPodFields}).
   */
  readonly size?: PodSize;
}

/** The two pod sizes of {@link makePod}. */
export type PodSize = "small" | "big";

const DEFAULT_EPOCH_MS = Date.UTC(2024, 0, 1);
const APPS = ["web", "api", "worker", "cache", "gateway", "auth", "search", "billing"];
const TIERS = ["frontend", "backend", "data"];

/** A deterministic 32-bit hash of a string and a number (FNV-1a), for stable pseudo-random fields. */
function hash32(text: string, n: number): number {
  let h = 0x811c9dc5 ^ n;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The 27 characters Kubernetes uses in generated name suffixes. */
const SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** `length` characters of {@link SUFFIX_ALPHABET} derived from `seed`, like the suffixes controllers generate. */
function suffix(seed: number, length: number): string {
  let out = "";
  let s = seed;
  for (let i = 0; i < length; i++) {
    s = Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) >>> 0;
    out += SUFFIX_ALPHABET[s % SUFFIX_ALPHABET.length];
  }
  return out;
}

/**
 * A 5-character pod-name suffix that looks random but is distinct for every index below
 * 27^5 under one `salt`: the index is scrambled by a bijection of [0, 27^5) (multiplying
 * by a number prime to 3, then adding the salt) and written in base 27.
 */
function podSuffix(index: number, salt: number): string {
  const space = 27 ** 5;
  let n = (((index * 1_000_003) % space) + (salt % space)) % space;
  let out = "";
  for (let i = 0; i < 5; i++) {
    out += SUFFIX_ALPHABET[n % 27];
    n = Math.floor(n / 27);
  }
  return out;
}

/** A UUID-shaped string derived from `seed` (stable across processes and runs). */
function uuidFrom(seed: string): string {
  const hex = [0, 1, 2, 3].map((i) => hash32(seed, i).toString(16).padStart(8, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * A realistic Pod as a server returns it, about 2.8 KB of JSON (1.4 KB as a create body):
 * labels, annotations, an owning ReplicaSet, two containers with env, ports and resources,
 * a status with conditions and container statuses, and managedFields of the controller and
 * the kubelet. Pods come in ReplicaSets of `podsPerReplicaSet` that share a namespace, the
 * name prefix and the labels `app`, `tier` and `pod-template-hash`.
 *
 * Guarantees: deterministic in `index` and `options` (the same pod in every process and
 * run); a distinct name for every index below 27^5 (14.3 million); the label
 * `bench.kubekit.dev/index` holds the index and `status.podIP` encodes it (so both are
 * unique below 2^24). Caveats: `uid` and `resourceVersion` are synthetic (a server assigns its own), and
 * the managedFields describe the fields only coarsely (they are payload, not a correct
 * field set); strip server-owned fields with {@link podForCreate} before sending it.
 */
export function makePod(index: number, options: PodOptions = {}): Pod {
  const namespaces = options.namespaces ?? ["bench"];
  const perReplicaSet = options.podsPerReplicaSet ?? 10;
  const epoch = options.epochMs ?? DEFAULT_EPOCH_MS;
  const replicaSet = Math.floor(index / perReplicaSet);
  const namespace = namespaces[replicaSet % namespaces.length] as string;
  const app = APPS[replicaSet % APPS.length] as string;
  const tier = TIERS[replicaSet % TIERS.length] as string;
  const templateHash = suffix(hash32(app, replicaSet), 10);
  const replicaSetName = `${app}-${replicaSet}-${templateHash}`;
  const name = `${replicaSetName}-${podSuffix(index, hash32(replicaSetName, 0))}`;
  const created = epoch + index * 1_000;
  const started = created + 2_000;
  const ready = created + 9_000;
  const node = `node-${(hash32(name, 7) % 200).toString().padStart(3, "0")}`;
  const podIp = `10.${(index >>> 16) & 255}.${(index >>> 8) & 255}.${index & 255}`;
  const hostIp = `192.168.${hash32(node, 1) % 4}.${hash32(node, 2) % 250}`;
  const image = `registry.example.com/${app}:1.${replicaSet % 20}.${index % 7}`;
  const transition = (
    type: string,
    at: number,
  ): { type: string; status: string; lastTransitionTime: string } => ({
    type,
    status: "True",
    lastTransitionTime: iso(at),
  });
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace,
      uid: uuidFrom(`${namespace}/${name}`),
      resourceVersion: String(1_000 + index),
      creationTimestamp: iso(created),
      labels: {
        app,
        tier,
        "app.kubernetes.io/name": app,
        "pod-template-hash": templateHash,
        "bench.kubekit.dev/index": String(index),
      },
      annotations: {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "9090",
      },
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: replicaSetName,
          uid: uuidFrom(`${namespace}/${replicaSetName}`),
          controller: true,
        },
      ],
      managedFields: [
        {
          manager: "kube-controller-manager",
          operation: "Update",
          apiVersion: "v1",
          time: iso(created),
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": { "f:labels": {}, "f:ownerReferences": {} },
            "f:spec": { "f:containers": {} },
          },
        },
        {
          manager: "kubelet",
          operation: "Update",
          apiVersion: "v1",
          time: iso(ready),
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:status": { "f:conditions": {}, "f:containerStatuses": {} },
          },
          subresource: "status",
        },
      ],
    },
    spec: {
      containers: [
        {
          name: "app",
          image,
          imagePullPolicy: "IfNotPresent",
          ports: [
            { name: "http", containerPort: 8080, protocol: "TCP" },
            { name: "metrics", containerPort: 9090, protocol: "TCP" },
          ],
          env: [
            { name: "APP_NAME", value: app },
            { name: "LOG_LEVEL", value: index % 10 === 0 ? "debug" : "info" },
          ],
          resources: {
            requests: { cpu: "100m", memory: "128Mi" },
            limits: { cpu: "500m", memory: "256Mi" },
          },
        },
        {
          name: "metrics",
          image: "registry.example.com/metrics-sidecar:0.9.2",
          ports: [{ name: "sidecar", containerPort: 9100, protocol: "TCP" }],
          env: [{ name: "SCRAPE_PORT", value: "9090" }],
          resources: {
            requests: { cpu: "10m", memory: "16Mi" },
            limits: { cpu: "50m", memory: "32Mi" },
          },
        },
      ],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      nodeName: node,
      schedulerName: "default-scheduler",
    },
    status: {
      phase: "Running",
      conditions: [
        transition("Initialized", started),
        transition("Ready", ready),
        transition("ContainersReady", ready),
        transition("PodScheduled", created),
      ],
      hostIP: hostIp,
      podIP: podIp,
      startTime: iso(started),
      qosClass: "Burstable",
      containerStatuses: ["app", "metrics"].map((container) => ({
        name: container,
        ready: true,
        restartCount: 0,
        image: container === "app" ? image : "registry.example.com/metrics-sidecar:0.9.2",
        imageID: `sha256:${uuidFrom(container === "app" ? image : "sidecar").replace(/-/g, "")}`,
        state: { running: { startedAt: iso(started + 1_000) } },
      })),
    },
  };
  return options.size === "big" ? bigPodFields(pod, replicaSetName, templateHash) : pod;
}

/** The managedFields key of a list item merged by `key` (structured-merge-diff's `k:` syntax). */
function itemKey(key: Record<string, string | number>): string {
  return `k:${JSON.stringify(key)}`;
}

/** The fieldsV1 set of one container as the ReplicaSet controller creates it. */
function containerFields(container: NonNullable<Pod["spec"]>["containers"][number]): object {
  const env = Object.fromEntries(
    (container.env ?? []).map((e) => [
      itemKey({ name: e.name }),
      { ".": {}, "f:name": {}, "f:value": {} },
    ]),
  );
  const ports = Object.fromEntries(
    (container.ports ?? []).map((p) => [
      itemKey({ containerPort: p.containerPort, protocol: p.protocol ?? "TCP" }),
      { ".": {}, "f:containerPort": {}, "f:name": {}, "f:protocol": {} },
    ]),
  );
  return {
    ".": {},
    "f:env": { ".": {}, ...env },
    "f:image": {},
    "f:imagePullPolicy": {},
    "f:name": {},
    "f:ports": { ".": {}, ...ports },
    "f:resources": {
      ".": {},
      "f:limits": { ".": {}, "f:cpu": {}, "f:memory": {} },
      "f:requests": { ".": {}, "f:cpu": {}, "f:memory": {} },
    },
    "f:terminationMessagePath": {},
    "f:terminationMessagePolicy": {},
  };
}

/**
 * `pod` (a small pod of {@link makePod}) with what kube-apiserver adds to a Deployment's pod
 * and managedFields that list every field each manager set, about 5.8 KB of JSON.
 */
function bigPodFields(pod: Pod, replicaSetName: string, templateHash: string): Pod {
  const metadata = pod.metadata ?? {};
  const spec = pod.spec ?? { containers: [] };
  const status = pod.status ?? {};
  const tokenVolume = `kube-api-access-${suffix(Number.parseInt(templateHash.slice(0, 6), 36) || 1, 5)}`;
  const mount = {
    name: tokenVolume,
    readOnly: true,
    mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
  };
  const containers = spec.containers.map((c) => ({
    ...c,
    imagePullPolicy: c.imagePullPolicy ?? "IfNotPresent",
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    volumeMounts: [mount],
  }));
  const owner = metadata.ownerReferences?.[0];
  const controllerFields = {
    "f:metadata": {
      "f:annotations": {
        ".": {},
        ...Object.fromEntries(Object.keys(metadata.annotations ?? {}).map((k) => [`f:${k}`, {}])),
      },
      "f:generateName": {},
      "f:labels": {
        ".": {},
        ...Object.fromEntries(Object.keys(metadata.labels ?? {}).map((k) => [`f:${k}`, {}])),
      },
      "f:ownerReferences": {
        ".": {},
        [itemKey({ uid: owner?.uid ?? "" })]: {},
      },
    },
    "f:spec": {
      "f:containers": Object.fromEntries(
        containers.map((c) => [itemKey({ name: c.name }), containerFields(c)]),
      ),
      "f:dnsPolicy": {},
      "f:enableServiceLinks": {},
      "f:restartPolicy": {},
      "f:schedulerName": {},
      "f:securityContext": {},
      "f:terminationGracePeriodSeconds": {},
    },
  };
  const condition = (type: string): [string, object] => [
    itemKey({ type }),
    { ".": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {} },
  ];
  const kubeletFields = {
    "f:status": {
      "f:conditions": Object.fromEntries(
        ["ContainersReady", "Initialized", "PodScheduled", "Ready"].map(condition),
      ),
      "f:containerStatuses": {},
      "f:hostIP": {},
      "f:phase": {},
      "f:podIP": {},
      "f:startTime": {},
    },
  };
  const managedFields = (metadata.managedFields ?? []).map((entry) =>
    entry.manager === "kubelet"
      ? { ...entry, fieldsV1: kubeletFields }
      : { ...entry, fieldsV1: controllerFields },
  );
  return {
    ...pod,
    metadata: {
      ...metadata,
      generateName: `${replicaSetName}-`,
      managedFields,
    },
    spec: {
      volumes: [
        {
          name: tokenVolume,
          projected: {
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
              {
                configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] },
              },
            ],
            defaultMode: 420,
          },
        },
      ],
      ...spec,
      containers,
      serviceAccount: spec.serviceAccountName ?? "default",
      securityContext: {},
      tolerations: [
        {
          key: "node.kubernetes.io/not-ready",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
        {
          key: "node.kubernetes.io/unreachable",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: "PreemptLowerPriority",
    },
    status: {
      ...status,

      containerStatuses: (status.containerStatuses ?? []).map((cs) => ({
        ...cs,
        started: true,
      })) as NonNullable<Pod["status"]>["containerStatuses"],
    },
  };
}

/**
 * The body a client POSTs to create `pod`: a copy without the fields a server owns
 * (uid, resourceVersion, creationTimestamp, managedFields, status).
 */
export function podForCreate(pod: Pod): Pod {
  const {
    uid: _uid,
    resourceVersion: _rv,
    creationTimestamp: _ct,
    managedFields: _mf,
    ...metadata
  } = pod.metadata ?? {};
  const { status: _status, ...rest } = pod;
  return { ...rest, metadata };
}

/** The patch a kubelet would send to pods/status to report `pod`'s status (a strategic merge patch body). */
export function podStatusPatch(pod: Pod): { status: NonNullable<Pod["status"]> } {
  return { status: pod.status ?? {} };
}

/**
 * `pod` as a watch reports it after its `change`-th change (a MODIFIED event's object): a
 * copy with `metadata.resourceVersion` set to `resourceVersion`, the annotation
 * `bench.kubekit.dev/change` set to `change`, the first container's `restartCount` set to
 * `change` with a new start time, and the kubelet's managedFields entry stamped with that
 * time — the fields a kubelet status update and an annotating controller touch.
 *
 * Guarantees: deterministic in its arguments; `pod` is not modified; the result has the same
 * name, namespace, labels and shape as `pod` (only values change), so it stays about as
 * large. `change` must be an integer >= 0.
 */
export function modifiedPod(pod: Pod, change: number, resourceVersion: string): Pod {
  const created = Date.parse(pod.metadata?.creationTimestamp ?? "") || DEFAULT_EPOCH_MS;
  const at = iso(created + 60_000 + change * 1_000);
  const metadata = pod.metadata ?? {};
  const status = pod.status ?? {};
  return {
    ...pod,
    metadata: {
      ...metadata,
      resourceVersion,
      annotations: { ...metadata.annotations, "bench.kubekit.dev/change": String(change) },
      managedFields: (metadata.managedFields ?? []).map((entry) =>
        entry.manager === "kubelet" ? { ...entry, time: at } : entry,
      ),
    },
    status: {
      ...status,
      containerStatuses: (status.containerStatuses ?? []).map((cs, i) =>
        i === 0 ? { ...cs, restartCount: change, state: { running: { startedAt: at } } } : cs,
      ),
    },
  };
}
