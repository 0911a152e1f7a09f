/**
 * A DaemonSet's status (`pkg/controller/daemon/daemon_controller.go` updateDaemonSetStatus and
 * storeDaemonSetStatus): the counts `kubectl get ds` prints and `kubectl rollout status
 * daemonset/<name>` reads (`staging/src/k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go`
 * DaemonSetStatusViewer).
 */
import type { DaemonSet, DaemonSetStatus } from "kubernetes-types/apps/v1.js";
import { nameOf } from "kubekit/apimachinery";
import type { Node, Pod } from "kubernetes-types/core/v1.js";
import { isDaemonPodUpdated, oldestDaemonPodsFirst } from "./daemon-pod.js";
import { daemonPlacement } from "./daemon-set-placement.js";
import { isPodAvailable, isPodReady } from "../controller-support/pod-state.js";

/** What {@link daemonSetStatus} counts from. */
export interface DaemonSetStatusInput {
  readonly ds: DaemonSet;
  readonly nodes: readonly Node[];
  /** The DaemonSet's pods by node (without deleted terminal pods). */
  readonly byNode: ReadonlyMap<string, readonly Pod[]>;
  /** The current revision's hash. */
  readonly hash: string;
  readonly nowMs: number;
  /** Whether the sync acted on the DaemonSet's generation (false while it is being deleted). */
  readonly observeGeneration: boolean;
  readonly collisionCount: number;
}

/**
 * The status: per node that should run a daemon pod, `desiredNumberScheduled`; with a pod,
 * `currentNumberScheduled`; its oldest pod Ready, `numberReady`; also available for
 * `minReadySeconds`, `numberAvailable`; at the current template, `updatedNumberScheduled`;
 * pods on nodes that should not run one, `numberMisscheduled`; `numberUnavailable` =
 * desired − available. `observedGeneration` is the DaemonSet's generation when the sync
 * acted on it, else kept.
 */
export function daemonSetStatus(input: DaemonSetStatusInput): DaemonSetStatus {
  const { ds, byNode, hash, nowMs } = input;
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  let desired = 0;
  let current = 0;
  let ready = 0;
  let available = 0;
  let updated = 0;
  let misscheduled = 0;
  for (const node of input.nodes) {
    const pods = byNode.get(nameOf(node)) ?? [];
    if (!daemonPlacement(ds, node).shouldRun) {
      if (pods.length > 0) misscheduled++;
      continue;
    }
    desired++;
    const pod = oldestDaemonPodsFirst(pods)[0];
    if (pod === undefined) continue;
    current++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySeconds, nowMs)) available++;
    }
    if (isDaemonPodUpdated(pod, ds, hash)) updated++;
  }
  const observedGeneration = input.observeGeneration
    ? (ds.metadata?.generation ?? 0)
    : (ds.status?.observedGeneration ?? 0);
  return {
    observedGeneration,
    desiredNumberScheduled: desired,
    currentNumberScheduled: current,
    numberMisscheduled: misscheduled,
    numberReady: ready,
    updatedNumberScheduled: updated,
    numberAvailable: available,
    numberUnavailable: desired - available,
    collisionCount: input.collisionCount,
  };
}

const STATUS_FIELDS = [
  "observedGeneration",
  "desiredNumberScheduled",
  "currentNumberScheduled",
  "numberMisscheduled",
  "numberReady",
  "updatedNumberScheduled",
  "numberAvailable",
  "numberUnavailable",
  "collisionCount",
] as const;

/** Fields Go omits when zero (`omitempty`); the four required counts are always written. */
const OMITTED_WHEN_ZERO = new Set<string>([
  "observedGeneration",
  "updatedNumberScheduled",
  "numberAvailable",
  "numberUnavailable",
  "collisionCount",
]);

/** Whether `ds` already has `status` (storeDaemonSetStatus skips the write then). */
export function daemonSetStatusUnchanged(ds: DaemonSet, status: DaemonSetStatus): boolean {
  const stored: Partial<DaemonSetStatus> = ds.status ?? {};
  return STATUS_FIELDS.every((field) => (stored[field] ?? 0) === (status[field] ?? 0));
}

/**
 * The merge patch of the status subresource that writes `status`: zero values of fields Go
 * omits are removed (null), so the stored status reads as kube-controller-manager's does.
 */
export function daemonSetStatusPatch(status: DaemonSetStatus): { status: Record<string, unknown> } {
  const body: Record<string, unknown> = {};
  for (const field of STATUS_FIELDS) {
    const value = status[field];
    body[field] = OMITTED_WHEN_ZERO.has(field) && value === 0 ? null : value;
  }
  return { status: body };
}
