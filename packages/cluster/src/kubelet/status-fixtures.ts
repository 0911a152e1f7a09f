import type { Container, Pod, PodStatus } from "kubernetes-types/core/v1.js";
import type { ClusterSettings } from "../cluster-context.js";
import { SIMULATION_ANNOTATIONS } from "../simulated-cluster-options.js";
import { simulatedContainerId, simulatedImageId } from "./container-image.js";

/**
 * The kubelet's status projection stated as cases, kwok's stages turned around: a pod as the
 * API server holds it (its spec and simulation annotations, maybe a deletion) and a time go
 * in, the status the simulated kubelet writes comes out. A new kubelet behaviour is a new case
 * here; `test/unit/cluster/kubelet/status-fixtures.test.ts` runs every case through
 * {@link PodRuntime} and {@link projectPodStatus}, as the kubelet controller does.
 *
 * Every pod is accepted by the kubelet of node {@link FIXTURE_PLACEMENT} at
 * {@link FIXTURE_ACCEPTED_AT} with pod IP {@link FIXTURE_POD_IP}; a pod with a
 * `deletionTimestamp` ran until its deletion was seen, at `deletionTimestamp -
 * deletionGracePeriodSeconds` (when the API server set it).
 *
 * A table of test data, not used by the kubelet itself (kept out of the package's build).
 */

/** When the kubelet accepts every fixture's pod. */
export const FIXTURE_ACCEPTED_AT = "2024-05-01T10:00:00Z";
/** The pod IP every fixture's pod gets. */
export const FIXTURE_POD_IP = "10.244.1.5";
/** The node every fixture's pod runs on. */
export const FIXTURE_PLACEMENT = { hostIp: "172.18.0.2", kubernetesMinor: 32 } as const;
/** The cluster settings of a fixture unless it says otherwise. */
export const FIXTURE_SETTINGS: ClusterSettings = {
  kubernetesMinor: "32",
  nodeNames: ["kubekit-node-1"],
  containerStartMs: 0,
  readinessDelayMs: 0,
  completionMs: 1_000,
};

/** One case: a pod in, the status out. */
export interface KubeletStatusFixture {
  /** What the case shows. */
  readonly name: string;
  /** Settings replacing {@link FIXTURE_SETTINGS}'s. */
  readonly settings?: Partial<ClusterSettings>;
  /** The pod as the API server holds it when the kubelet syncs it. */
  readonly pod: Pod;
  /** When the kubelet syncs the pod, in ms after {@link FIXTURE_ACCEPTED_AT}. */
  readonly atMs: number;
  /** The status the kubelet writes then. */
  readonly status: PodStatus;
}

const UID = "0f1d2e3c-4b5a-4697-8877-665544332211";
const BUSYBOX = "busybox:1.36";
const NGINX = "nginx:1.27";

/** The ID of the `restart`-th instance of container `name` of a fixture's pod. */
function containerId(name: string, restart = 0): string {
  return simulatedContainerId(UID, name, restart);
}

/** A fixture's pod named `web` in `default`, with these annotations and spec fields. */
function pod(
  spec: { containers?: Container[] } & Omit<NonNullable<Pod["spec"]>, "containers">,
  annotations: Record<string, string> = {},
  metadata: NonNullable<Pod["metadata"]> = {},
): Pod {
  return {
    metadata: {
      name: "web",
      namespace: "default",
      uid: UID,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...metadata,
    },
    spec: {
      nodeName: "kubekit-node-1",
      containers: [{ name: "app", image: NGINX }],
      ...spec,
    },
  };
}

/** The cases, each named after what it shows. */
export const KUBELET_STATUS_FIXTURES: readonly KubeletStatusFixture[] = [
  {
    name: "pending: bound, the container still being created",
    settings: { containerStartMs: 2000 },
    pod: pod({}),
    atMs: 1000,
    status: {
      phase: "Pending",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:01Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
        {
          type: "Ready",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:01Z",
        },
        {
          type: "ContainersReady",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:01Z",
        },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "app",
          image: "nginx:1.27",
          imageID: "",
          lastState: {},
          ready: false,
          restartCount: 0,
          started: false,
          state: { waiting: { reason: "ContainerCreating" } },
        },
      ],
    },
  },
  {
    name: "running and ready: PodScheduled, Initialized, ContainersReady and Ready all True",
    settings: { containerStartMs: 2000 },
    pod: pod({}),
    atMs: 2000,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:02Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:02Z" },
        { type: "Ready", status: "True", lastTransitionTime: "2024-05-01T10:00:02Z" },
        { type: "ContainersReady", status: "True", lastTransitionTime: "2024-05-01T10:00:02Z" },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:02Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app"),
          lastState: {},
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:02Z" } },
        },
      ],
    },
  },
  {
    name: "running, readiness delay not elapsed: Ready and ContainersReady False",
    settings: { readinessDelayMs: 5000 },
    pod: pod({}),
    atMs: 3000,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:03Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:03Z" },
        {
          type: "Ready",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:03Z",
        },
        {
          type: "ContainersReady",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:03Z",
        },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:03Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app"),
          lastState: {},
          ready: false,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:00Z" } },
        },
      ],
    },
  },
  {
    name: "a readiness probe's initialDelaySeconds adds to the readiness delay",
    settings: { readinessDelayMs: 1000 },
    pod: pod({
      containers: [
        {
          name: "app",
          image: NGINX,
          readinessProbe: { initialDelaySeconds: 5, httpGet: { path: "/", port: 80 } },
        },
      ],
    }),
    atMs: 6000,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:06Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:06Z" },
        { type: "Ready", status: "True", lastTransitionTime: "2024-05-01T10:00:06Z" },
        { type: "ContainersReady", status: "True", lastTransitionTime: "2024-05-01T10:00:06Z" },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:06Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app"),
          lastState: {},
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:00Z" } },
        },
      ],
    },
  },
  {
    name: "init containers: the first runs, the second and the app wait (PodInitializing)",
    pod: pod(
      {
        initContainers: [
          { name: "migrate", image: BUSYBOX },
          { name: "seed", image: BUSYBOX },
        ],
      },
      { [`${SIMULATION_ANNOTATIONS.runMs}.migrate`]: "1000" },
    ),
    atMs: 500,
    status: {
      phase: "Pending",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        {
          type: "Initialized",
          status: "False",
          reason: "ContainersNotInitialized",
          message: "containers with incomplete status: [migrate seed]",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        {
          type: "Ready",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        {
          type: "ContainersReady",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      initContainerStatuses: [
        {
          name: "migrate",
          image: "docker.io/library/busybox:1.36",
          imageID: simulatedImageId(BUSYBOX),
          containerID: containerId("migrate"),
          lastState: {},
          ready: false,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:00Z" } },
        },
        {
          name: "seed",
          image: "busybox:1.36",
          imageID: "",
          lastState: {},
          ready: false,
          restartCount: 0,
          started: false,
          state: { waiting: { reason: "PodInitializing" } },
        },
      ],
      containerStatuses: [
        {
          name: "app",
          image: "nginx:1.27",
          imageID: "",
          lastState: {},
          ready: false,
          restartCount: 0,
          started: false,
          state: { waiting: { reason: "PodInitializing" } },
        },
      ],
    },
  },
  {
    name: "init containers done in order: Initialized, the app running",
    pod: pod(
      {
        initContainers: [
          { name: "migrate", image: BUSYBOX },
          { name: "seed", image: BUSYBOX },
        ],
      },
      {
        [`${SIMULATION_ANNOTATIONS.runMs}.migrate`]: "1000",
        [`${SIMULATION_ANNOTATIONS.runMs}.seed`]: "500",
      },
    ),
    atMs: 2000,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:02Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:02Z" },
        { type: "Ready", status: "True", lastTransitionTime: "2024-05-01T10:00:02Z" },
        { type: "ContainersReady", status: "True", lastTransitionTime: "2024-05-01T10:00:02Z" },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:02Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      initContainerStatuses: [
        {
          name: "migrate",
          image: "docker.io/library/busybox:1.36",
          imageID: simulatedImageId(BUSYBOX),
          containerID: containerId("migrate"),
          lastState: {},
          ready: true,
          restartCount: 0,
          started: false,
          state: {
            terminated: {
              containerID: containerId("migrate"),
              exitCode: 0,
              reason: "Completed",
              startedAt: "2024-05-01T10:00:00Z",
              finishedAt: "2024-05-01T10:00:01Z",
            },
          },
        },
        {
          name: "seed",
          image: "docker.io/library/busybox:1.36",
          imageID: simulatedImageId(BUSYBOX),
          containerID: containerId("seed"),
          lastState: {},
          ready: true,
          restartCount: 0,
          started: false,
          state: {
            terminated: {
              containerID: containerId("seed"),
              exitCode: 0,
              reason: "Completed",
              startedAt: "2024-05-01T10:00:01Z",
              finishedAt: "2024-05-01T10:00:01Z",
            },
          },
        },
      ],
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app"),
          lastState: {},
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:01Z" } },
        },
      ],
    },
  },
  {
    name: "a failed init container under restartPolicy Never fails the pod",
    pod: pod(
      { restartPolicy: "Never", initContainers: [{ name: "migrate", image: BUSYBOX }] },
      { [`${SIMULATION_ANNOTATIONS.exitCode}.migrate`]: "2" },
    ),
    atMs: 100,
    status: {
      phase: "Failed",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "False",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        {
          type: "Initialized",
          status: "False",
          reason: "ContainersNotInitialized",
          message: "containers with incomplete status: [migrate]",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        {
          type: "Ready",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        {
          type: "ContainersReady",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      initContainerStatuses: [
        {
          name: "migrate",
          image: "docker.io/library/busybox:1.36",
          imageID: simulatedImageId(BUSYBOX),
          containerID: containerId("migrate"),
          lastState: {},
          ready: false,
          restartCount: 0,
          started: false,
          state: {
            terminated: {
              containerID: containerId("migrate"),
              exitCode: 2,
              reason: "Error",
              startedAt: "2024-05-01T10:00:00Z",
              finishedAt: "2024-05-01T10:00:00Z",
            },
          },
        },
      ],
      containerStatuses: [
        {
          name: "app",
          image: "nginx:1.27",
          imageID: "",
          lastState: {},
          ready: false,
          restartCount: 0,
          started: false,
          state: { waiting: { reason: "PodInitializing" } },
        },
      ],
    },
  },
  {
    name: "run to completion: exit 0 → Succeeded, Ready False (PodCompleted)",
    pod: pod({ restartPolicy: "Never", containers: [{ name: "job", image: BUSYBOX }] }),
    atMs: 1000,
    status: {
      phase: "Succeeded",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "False",
          lastTransitionTime: "2024-05-01T10:00:01Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
        {
          type: "Ready",
          status: "False",
          reason: "PodCompleted",
          lastTransitionTime: "2024-05-01T10:00:01Z",
        },
        {
          type: "ContainersReady",
          status: "False",
          reason: "PodCompleted",
          lastTransitionTime: "2024-05-01T10:00:01Z",
        },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "job",
          image: "docker.io/library/busybox:1.36",
          imageID: simulatedImageId(BUSYBOX),
          containerID: containerId("job"),
          lastState: {},
          ready: false,
          restartCount: 0,
          started: false,
          state: {
            terminated: {
              containerID: containerId("job"),
              exitCode: 0,
              reason: "Completed",
              startedAt: "2024-05-01T10:00:00Z",
              finishedAt: "2024-05-01T10:00:01Z",
            },
          },
        },
      ],
    },
  },
  {
    name: "run to completion: still running before completionMs",
    pod: pod({ restartPolicy: "Never", containers: [{ name: "job", image: BUSYBOX }] }),
    atMs: 999,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        { type: "Ready", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        { type: "ContainersReady", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "job",
          image: "docker.io/library/busybox:1.36",
          imageID: simulatedImageId(BUSYBOX),
          containerID: containerId("job"),
          lastState: {},
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:00Z" } },
        },
      ],
    },
  },
  {
    name: "run to completion: a non-zero exit code → Failed with that exit code",
    pod: pod(
      { restartPolicy: "Never", containers: [{ name: "job", image: BUSYBOX }] },
      { [SIMULATION_ANNOTATIONS.exitCode]: "3" },
    ),
    atMs: 1000,
    status: {
      phase: "Failed",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "False",
          lastTransitionTime: "2024-05-01T10:00:01Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
        {
          type: "Ready",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [job]",
          lastTransitionTime: "2024-05-01T10:00:01Z",
        },
        {
          type: "ContainersReady",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [job]",
          lastTransitionTime: "2024-05-01T10:00:01Z",
        },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "job",
          image: "docker.io/library/busybox:1.36",
          imageID: simulatedImageId(BUSYBOX),
          containerID: containerId("job"),
          lastState: {},
          ready: false,
          restartCount: 0,
          started: false,
          state: {
            terminated: {
              containerID: containerId("job"),
              exitCode: 3,
              reason: "Error",
              startedAt: "2024-05-01T10:00:00Z",
              finishedAt: "2024-05-01T10:00:01Z",
            },
          },
        },
      ],
    },
  },
  {
    name: "OnFailure: a failed container restarts at once the first time (restartCount 1)",
    pod: pod(
      { restartPolicy: "OnFailure", containers: [{ name: "job", image: BUSYBOX }] },
      { [SIMULATION_ANNOTATIONS.exitCode]: "1", [SIMULATION_ANNOTATIONS.runMs]: "1000" },
    ),
    atMs: 1500,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:01Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
        { type: "Ready", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
        { type: "ContainersReady", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "job",
          image: "docker.io/library/busybox:1.36",
          imageID: simulatedImageId(BUSYBOX),
          containerID: containerId("job", 1),
          lastState: {
            terminated: {
              containerID: containerId("job"),
              exitCode: 1,
              reason: "Error",
              startedAt: "2024-05-01T10:00:00Z",
              finishedAt: "2024-05-01T10:00:01Z",
            },
          },
          ready: true,
          restartCount: 1,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:01Z" } },
        },
      ],
    },
  },
  {
    name: "crash loop: a second failure waits in CrashLoopBackOff, last state terminated",
    pod: pod(
      {},
      { [SIMULATION_ANNOTATIONS.exitCode]: "1", [SIMULATION_ANNOTATIONS.runMs]: "1000" },
    ),
    atMs: 2500,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:02Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:02Z" },
        {
          type: "Ready",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:02Z",
        },
        {
          type: "ContainersReady",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:02Z",
        },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:02Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app", 1),
          lastState: {
            terminated: {
              containerID: containerId("app", 1),
              exitCode: 1,
              reason: "Error",
              startedAt: "2024-05-01T10:00:01Z",
              finishedAt: "2024-05-01T10:00:02Z",
            },
          },
          ready: false,
          restartCount: 1,
          started: false,
          state: {
            waiting: {
              reason: "CrashLoopBackOff",
              message:
                "back-off 10s restarting failed container=app pod=web_default(0f1d2e3c-4b5a-4697-8877-665544332211)",
            },
          },
        },
      ],
    },
  },
  {
    name: "crash loop: restarted after the 10 s back-off (restartCount 2)",
    pod: pod(
      {},
      { [SIMULATION_ANNOTATIONS.exitCode]: "1", [SIMULATION_ANNOTATIONS.runMs]: "1000" },
    ),
    atMs: 12500,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:12Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:12Z" },
        { type: "Ready", status: "True", lastTransitionTime: "2024-05-01T10:00:12Z" },
        { type: "ContainersReady", status: "True", lastTransitionTime: "2024-05-01T10:00:12Z" },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:12Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app", 2),
          lastState: {
            terminated: {
              containerID: containerId("app", 1),
              exitCode: 1,
              reason: "Error",
              startedAt: "2024-05-01T10:00:01Z",
              finishedAt: "2024-05-01T10:00:02Z",
            },
          },
          ready: true,
          restartCount: 2,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:12Z" } },
        },
      ],
    },
  },
  {
    name: "terminating: the container stops within its grace period, not ready meanwhile",
    pod: pod(
      {},
      { [SIMULATION_ANNOTATIONS.terminationMs]: "5000" },
      { deletionTimestamp: "2024-05-01T10:00:40Z", deletionGracePeriodSeconds: 30 },
    ),
    atMs: 12000,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:12Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:12Z" },
        {
          type: "Ready",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:12Z",
        },
        {
          type: "ContainersReady",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:12Z",
        },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:12Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app"),
          lastState: {},
          ready: false,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:00Z" } },
        },
      ],
    },
  },
  {
    name: "terminating: stopped (exit 0) → Succeeded, ready to be removed",
    pod: pod(
      {},
      { [SIMULATION_ANNOTATIONS.terminationMs]: "5000" },
      { deletionTimestamp: "2024-05-01T10:00:40Z", deletionGracePeriodSeconds: 30 },
    ),
    atMs: 15000,
    status: {
      phase: "Succeeded",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "False",
          lastTransitionTime: "2024-05-01T10:00:15Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:15Z" },
        {
          type: "Ready",
          status: "False",
          reason: "PodCompleted",
          lastTransitionTime: "2024-05-01T10:00:15Z",
        },
        {
          type: "ContainersReady",
          status: "False",
          reason: "PodCompleted",
          lastTransitionTime: "2024-05-01T10:00:15Z",
        },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:15Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app"),
          lastState: {},
          ready: false,
          restartCount: 0,
          started: false,
          state: {
            terminated: {
              containerID: containerId("app"),
              exitCode: 0,
              reason: "Completed",
              startedAt: "2024-05-01T10:00:00Z",
              finishedAt: "2024-05-01T10:00:15Z",
            },
          },
        },
      ],
    },
  },
  {
    name: "terminating: killed at the end of the grace period (exit 137) → Failed",
    pod: pod(
      {},
      { [SIMULATION_ANNOTATIONS.terminationMs]: "60000" },
      { deletionTimestamp: "2024-05-01T10:00:12Z", deletionGracePeriodSeconds: 2 },
    ),
    atMs: 12000,
    status: {
      phase: "Failed",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "False",
          lastTransitionTime: "2024-05-01T10:00:12Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:12Z" },
        {
          type: "Ready",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:12Z",
        },
        {
          type: "ContainersReady",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [app]",
          lastTransitionTime: "2024-05-01T10:00:12Z",
        },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:12Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app"),
          lastState: {},
          ready: false,
          restartCount: 0,
          started: false,
          state: {
            terminated: {
              containerID: containerId("app"),
              exitCode: 137,
              reason: "Error",
              startedAt: "2024-05-01T10:00:00Z",
              finishedAt: "2024-05-01T10:00:12Z",
            },
          },
        },
      ],
    },
  },
  {
    name: "QoS Guaranteed: every container limits cpu and memory, requests equal",
    pod: pod({
      containers: [
        { name: "app", image: NGINX, resources: { limits: { cpu: "500m", memory: "128Mi" } } },
      ],
    }),
    atMs: 0,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        { type: "Ready", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        { type: "ContainersReady", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "Guaranteed",
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app"),
          lastState: {},
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:00Z" } },
        },
      ],
    },
  },
  {
    name: "QoS Burstable: requests without limits",
    pod: pod({
      containers: [{ name: "app", image: NGINX, resources: { requests: { cpu: "100m" } } }],
    }),
    atMs: 0,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        { type: "Ready", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        { type: "ContainersReady", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "Burstable",
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app"),
          lastState: {},
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:00Z" } },
        },
      ],
    },
  },
  {
    name: "conditions keep their lastTransitionTime while their status stays; others are kept",
    pod: {
      ...pod({}),
      status: {
        phase: "Running",
        conditions: [
          { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T09:59:59Z" },
          {
            type: "Ready",
            status: "False",
            reason: "ContainersNotReady",
            lastTransitionTime: "2024-05-01T09:59:59Z",
          },
          {
            type: "DisruptionTarget",
            status: "True",
            reason: "EvictionByEvictionAPI",
            lastTransitionTime: "2024-05-01T09:59:58Z",
          },
        ],
      },
    },
    atMs: 1000,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:01Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
        { type: "Ready", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
        { type: "ContainersReady", status: "True", lastTransitionTime: "2024-05-01T10:00:01Z" },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T09:59:59Z" },
        {
          type: "DisruptionTarget",
          status: "True",
          reason: "EvictionByEvictionAPI",
          lastTransitionTime: "2024-05-01T09:59:58Z",
        },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app"),
          lastState: {},
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:00Z" } },
        },
      ],
    },
  },
  {
    name: "Kubernetes 1.28: no PodReadyToStartContainers condition",
    settings: { kubernetesMinor: "28" },
    pod: pod({}),
    atMs: 0,
    status: {
      phase: "Running",
      conditions: [
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        { type: "Ready", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        { type: "ContainersReady", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "app",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("app"),
          lastState: {},
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:00Z" } },
        },
      ],
    },
  },
  {
    name: "sorted app container statuses; a container that never gets ready",
    pod: pod(
      {
        containers: [
          { name: "web", image: NGINX },
          { name: "sidecar", image: BUSYBOX },
        ],
      },
      { [`${SIMULATION_ANNOTATIONS.ready}.sidecar`]: "false" },
    ),
    atMs: 0,
    status: {
      phase: "Running",
      conditions: [
        {
          type: "PodReadyToStartContainers",
          status: "True",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        { type: "Initialized", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
        {
          type: "Ready",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [sidecar]",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        {
          type: "ContainersReady",
          status: "False",
          reason: "ContainersNotReady",
          message: "containers with unready status: [sidecar]",
          lastTransitionTime: "2024-05-01T10:00:00Z",
        },
        { type: "PodScheduled", status: "True", lastTransitionTime: "2024-05-01T10:00:00Z" },
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      startTime: "2024-05-01T10:00:00Z",
      qosClass: "BestEffort",
      containerStatuses: [
        {
          name: "sidecar",
          image: "docker.io/library/busybox:1.36",
          imageID: simulatedImageId(BUSYBOX),
          containerID: containerId("sidecar"),
          lastState: {},
          ready: false,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:00Z" } },
        },
        {
          name: "web",
          image: "docker.io/library/nginx:1.27",
          imageID: simulatedImageId(NGINX),
          containerID: containerId("web"),
          lastState: {},
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: "2024-05-01T10:00:00Z" } },
        },
      ],
    },
  },
];
