import type {
  ContainerState,
  ContainerStatus,
  Pod,
  PodCondition,
  PodStatus,
} from "kubernetes-types/core/v1.js";
import { formatTime } from "kubekit/apimachinery";
import { normalizedImage, simulatedImageId } from "./container-image.js";
import type {
  PodRuntime,
  SimulatedContainer,
  SimulatedContainerState,
} from "./kubelet-pod-runtime.js";
import { podQosClass } from "./pod-qos.js";
import { podCondition } from "../controller-support/pod-state.js";

/** The pod conditions the kubelet owns; others (readiness gates, DisruptionTarget, …) are kept. */
const KUBELET_CONDITIONS = new Set([
  "PodReadyToStartContainers",
  "Initialized",
  "Ready",
  "ContainersReady",
  "PodScheduled",
]);

/** Where the pod runs, for the status. */
export interface PodPlacement {
  /** The node's InternalIP. */
  readonly hostIp: string;
  /** The Kubernetes minor version the kubelet is (PodReadyToStartContainers exists from 1.29). */
  readonly kubernetesMinor: number;
}

function stateOf(state: SimulatedContainerState): ContainerState {
  switch (state.kind) {
    case "waiting":
      return {
        waiting: { reason: state.reason, ...(state.message ? { message: state.message } : {}) },
      };
    case "running":
      return { running: { startedAt: formatTime(state.startedAtMs) } };
    case "terminated":
      return {
        terminated: {
          containerID: state.containerId,
          exitCode: state.exitCode,
          reason: state.reason,
          startedAt: formatTime(state.startedAtMs),
          finishedAt: formatTime(state.finishedAtMs),
        },
      };
  }
}

/** A container's status (`pkg/kubelet/kubelet_pods.go` convertToAPIContainerStatuses). */
function containerStatusOf(
  runtime: PodRuntime,
  c: SimulatedContainer,
  nowMs: number,
): ContainerStatus {
  const image = c.spec.image ?? "";
  const created = c.containerId !== undefined;
  return {
    name: c.spec.name,
    image: created ? normalizedImage(image) : image,
    imageID: created ? simulatedImageId(image) : "",
    ...(c.containerId !== undefined ? { containerID: c.containerId } : {}),
    lastState: c.lastTerminated !== undefined ? stateOf(c.lastTerminated) : {},
    ready: runtime.isReady(c, nowMs),
    restartCount: c.restartCount,
    started: c.state.kind === "running",
    state: stateOf(c.state),
  };
}

/**
 * The pod phase (`pkg/kubelet/kubelet_pods.go` getPhase): Pending until initialized and while
 * an app container waits for its first start; Running while one runs (or, under `Always`
 * and `OnFailure`, restarts); Succeeded or Failed once all stopped for good. A pod whose
 * deletion stopped its containers is terminal: Succeeded when they all exited 0, else Failed.
 */
function phaseOf(runtime: PodRuntime): string {
  if (runtime.initFailed) return "Failed";
  const containers = runtime.containers;
  if (runtime.terminating && runtime.finished) {
    const succeeded = containers.every(
      (c) => c.state.kind === "terminated" && c.state.exitCode === 0,
    );
    return succeeded ? "Succeeded" : "Failed";
  }
  if (!runtime.initialized) return "Pending";
  let running = 0;
  let stopped = 0;
  let succeeded = 0;
  let waiting = 0;
  for (const c of containers) {
    if (c.state.kind === "running") running++;
    else if (c.state.kind === "terminated") {
      stopped++;
      if (c.state.exitCode === 0) succeeded++;
    } else if (c.lastTerminated !== undefined) stopped++;
    else waiting++;
  }
  if (waiting > 0) return "Pending";
  if (running > 0) return "Running";
  if (stopped === 0) return "Pending";
  if (runtime.restartPolicy === "Always") return "Running";
  if (stopped === succeeded) return "Succeeded";
  return runtime.restartPolicy === "Never" ? "Failed" : "Running";
}

/**
 * The status the kubelet reports for a pod it runs (`pkg/kubelet/kubelet_pods.go`
 * generateAPIPodStatus and `pkg/kubelet/status/generate.go`): phase, the kubelet's
 * conditions, host and pod IPs, start time, QoS class and the container statuses (app
 * containers sorted by name, init and ephemeral containers in spec order), projected from the runtime at
 * `nowMs`. Conditions keep their `lastTransitionTime` while their status stays; conditions
 * the kubelet does not own and other status fields are kept from `pod`. Deterministic: the
 * same runtime, pod and time give an equal status, so an unchanged pod needs no write.
 * Pure: it reads the runtime and the pod and changes neither. Its cases, pod in and status
 * out, are the table of `status-fixtures.ts`.
 */
export function projectPodStatus(
  runtime: PodRuntime,
  pod: Pod,
  nowMs: number,
  placement: PodPlacement,
): PodStatus {
  const now = formatTime(nowMs);
  const phase = phaseOf(runtime);
  const terminal = phase === "Succeeded" || phase === "Failed";
  const condition = (
    type: string,
    status: "True" | "False",
    reason?: string,
    message?: string,
  ): PodCondition => {
    const previous = podCondition(pod, type);
    return {
      type,
      status,
      ...(reason !== undefined ? { reason } : {}),
      ...(message !== undefined ? { message } : {}),
      lastTransitionTime:
        previous?.status === status && previous.lastTransitionTime !== undefined
          ? previous.lastTransitionTime
          : now,
    };
  };
  const incomplete = runtime.initContainers
    .filter((c) => !runtime.isReady(c, nowMs))
    .map((c) => c.spec.name);
  const unready = runtime.containers
    .filter((c) => !runtime.isReady(c, nowMs))
    .map((c) => c.spec.name)
    .sort();
  // Ready follows ContainersReady: no readiness gates are simulated.
  const readiness: [status: "True" | "False", reason?: string, message?: string] =
    unready.length === 0 && !terminal
      ? ["True"]
      : phase === "Succeeded"
        ? ["False", "PodCompleted"]
        : ["False", "ContainersNotReady", `containers with unready status: [${unready.join(" ")}]`];
  const conditions: PodCondition[] = [
    ...(placement.kubernetesMinor >= 29
      ? [condition("PodReadyToStartContainers", terminal ? "False" : "True")]
      : []),
    incomplete.length === 0 || runtime.initialized
      ? condition("Initialized", "True")
      : condition(
          "Initialized",
          "False",
          "ContainersNotInitialized",
          `containers with incomplete status: [${incomplete.join(" ")}]`,
        ),
    condition("Ready", ...readiness),
    condition("ContainersReady", ...readiness),
    condition("PodScheduled", "True"),
  ];
  const others = (pod.status?.conditions ?? []).filter((c) => !KUBELET_CONDITIONS.has(c.type));
  const byName = (a: SimulatedContainer, b: SimulatedContainer): number =>
    a.spec.name < b.spec.name ? -1 : a.spec.name > b.spec.name ? 1 : 0;
  return {
    ...pod.status,
    phase,
    conditions: [...conditions, ...others],
    hostIP: placement.hostIp,
    hostIPs: [{ ip: placement.hostIp }],
    podIP: runtime.podIp,
    podIPs: [{ ip: runtime.podIp }],
    startTime: formatTime(runtime.startTimeMs),
    qosClass: podQosClass(pod),
    ...(runtime.initContainers.length > 0
      ? {
          initContainerStatuses: runtime.initContainers.map((c) =>
            containerStatusOf(runtime, c, nowMs),
          ),
        }
      : {}),
    containerStatuses: [...runtime.containers]
      .sort(byName)
      .map((c) => containerStatusOf(runtime, c, nowMs)),
    ...(runtime.ephemeralContainers.length > 0
      ? {
          ephemeralContainerStatuses: runtime.ephemeralContainers.map((c) =>
            containerStatusOf(runtime, c, nowMs),
          ),
        }
      : {}),
  };
}
