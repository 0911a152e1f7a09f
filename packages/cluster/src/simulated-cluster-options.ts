import { USAGE_ANNOTATIONS } from "@kubekit/apiserver";
import type { Logger } from "kubekit";

/**
 * Options of the simulated control plane that `startCluster({ server, ...options })` starts
 * against an API server (on by default in `kubekit serve`).
 */
export interface SimulatedClusterOptions {
  /** How many Nodes to register, named `kubekit-node-1` … (default 3; at least 1). */
  readonly nodes?: number;
  /**
   * Which controllers of the simulated kube-controller-manager run, in its `--controllers`
   * syntax: `"*"` enables every controller, `"name"` one controller, `"-name"` disables one
   * (default `["*"]`). The names are kube-controller-manager's: {@link CLUSTER_CONTROLLER_NAMES}.
   * The scheduler and the kubelets always run; the namespace and garbage collectors are part
   * of the API server itself and always run.
   */
  readonly controllers?: readonly string[];
  /**
   * How long a container takes from the pod's binding to running (image pull and start),
   * on the server's clock (default 0).
   */
  readonly containerStartMs?: number;
  /**
   * How long a running container takes to pass its readiness probe, on the server's clock
   * (default 0: Ready as soon as running). A pod's `initialDelaySeconds` adds to it.
   */
  readonly readinessDelayMs?: number;
  /**
   * How long the containers of a run-to-completion pod (`restartPolicy` Never or OnFailure, as
   * a Job's) run before exiting 0, on the server's clock (default 1000). The pod annotations
   * of {@link SIMULATION_ANNOTATIONS} change it per pod.
   */
  readonly completionMs?: number;
  /** Where the simulated components log (default: nowhere). */
  readonly logger?: Logger;
}

/** The controllers of the simulated kube-controller-manager, by kube-controller-manager's names. */
export const CLUSTER_CONTROLLER_NAMES = [
  "replicaset",
  "deployment",
  "statefulset",
  "daemonset",
  "job",
  "cronjob",
  "endpointslice",
  "serviceaccount",
  "disruption",
  "csrsigning",
] as const;

/** A controller name of {@link CLUSTER_CONTROLLER_NAMES}. */
export type ClusterControllerName = (typeof CLUSTER_CONTROLLER_NAMES)[number];

/**
 * Pod annotations that tell the simulated kubelet how the pod's containers behave. Values are
 * strings, as every annotation; an annotation naming a container (`…/exit-code.web`) applies
 * to that container only and wins over the pod-wide one.
 */
export const SIMULATION_ANNOTATIONS = {
  /**
   * The exit code of the containers once they have run (`"0"` completes, anything else fails);
   * makes containers of `restartPolicy: Always` pods exit too (they are restarted with the
   * kubelet's crash-loop back-off).
   */
  exitCode: "simulation.kubekit.dev/exit-code",
  /** How long the containers run before exiting, in milliseconds (default: the cluster's `completionMs`). */
  runMs: "simulation.kubekit.dev/run-ms",
  /** `"false"`: the containers never pass their readiness probe. */
  ready: "simulation.kubekit.dev/ready",
  /** Lines the containers print when they start (shown by `kubectl logs`). */
  log: "simulation.kubekit.dev/log",
  /**
   * How long the containers take to stop after SIGTERM, in milliseconds (default 0); a pod
   * being deleted is removed after this, or after its grace period if that is shorter.
   */
  terminationMs: "simulation.kubekit.dev/termination-ms",
  /**
   * The CPU the containers use, as the metrics API (`kubectl top`) reports it, e.g. `"250m"`
   * (default: the container's CPU request, else 1m). Served by the embedded API server.
   */
  usageCpu: USAGE_ANNOTATIONS.cpu,
  /** The memory the containers use, e.g. `"64Mi"` (default: the memory request, else 4Mi). */
  usageMemory: USAGE_ANNOTATIONS.memory,
} as const;
