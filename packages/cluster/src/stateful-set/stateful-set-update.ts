/**
 * One pass of the StatefulSet update algorithm over a set's pods
 * (`pkg/controller/statefulset/stateful_set_control.go` updateStatefulSet, processReplica,
 * processCondemned and the rolling update that follows them).
 */
import type { StatefulSet } from "kubernetes-types/apps/v1.js";
import type { Pod, PodTemplateSpec } from "kubernetes-types/core/v1.js";
import {
  SLOW_START_INITIAL_BATCH_SIZE,
  slowStartBatch,
} from "../controller-support/slow-start-batch.js";
import type { StatefulPodControl } from "./stateful-pod-control.js";
import {
  missingIdentityLabels,
  newStatefulPod,
  ordinalOf,
  podRevision,
} from "./stateful-set-identity.js";
import {
  isCreated,
  isHealthy,
  isRunningAndAvailable,
  isRunningAndReady,
  isTerminating,
} from "./stateful-set-status.js";

/** A revision the pods are made from: its name (the pods' `controller-revision-hash`) and template. */
export interface PodRevision {
  readonly name: string;
  readonly template: PodTemplateSpec | undefined;
}

/** What {@link updateStatefulSetPods} works on. */
export interface StatefulSetUpdateInput {
  readonly set: StatefulSet;
  /** The member pods the set owns, including those being deleted. */
  readonly pods: readonly Pod[];
  readonly current: PodRevision;
  readonly update: PodRevision;
  readonly control: StatefulPodControl;
  readonly nowMs: number;
}

/**
 * Runs `step` for indexes 0…count−1: one after another, stopping at the first that asks to
 * (OrderedReady), or all of them in slow-start batches (Parallel), where only an error stops
 * (`runForAll`). Resolves with whether to stop the pass.
 *
 * @throws the first error of a failed Parallel batch.
 */
async function runForAll(
  count: number,
  step: (index: number) => Promise<boolean>,
  monotonic: boolean,
): Promise<boolean> {
  if (monotonic) {
    for (let i = 0; i < count; i++) if (await step(i)) return true;
    return false;
  }
  const { error } = await slowStartBatch(count, SLOW_START_INITIAL_BATCH_SIZE, async (i) => {
    await step(i);
  });
  if (error !== undefined) throw error;
  return false;
}

/**
 * Brings the set's pods one step closer to its spec, as kube-controller-manager's sync does:
 *
 * 1. Every ordinal in `[start, start + replicas)` (`spec.ordinals.start`, default 0) gets a
 *    pod: a missing one is created (its claims first) at the current revision when its
 *    ordinal is below the RollingUpdate partition, otherwise at the update revision; a
 *    Failed or Succeeded one is deleted (and recreated on a later sync); lost identity labels
 *    are restored. With `OrderedReady` the pass stops at the first pod it created, or that is
 *    being deleted, not Running and Ready, or not yet available (`minReadySeconds`), so pod
 *    N is created only once 0…N−1 are Running and Ready. `Parallel` does them all at once.
 * 2. Pods with an ordinal outside the range are deleted from the highest ordinal down; with
 *    `OrderedReady` one at a time, each waiting for the previous to be gone, and only while
 *    every other pod is healthy.
 * 3. With the `RollingUpdate` strategy, the pod with the highest ordinal at or above the
 *    partition whose revision is not the update revision is deleted (it is recreated at the
 *    update revision by step 1 of a later sync), one at a time, each after the pods above
 *    it are Running and Ready again. `OnDelete` replaces nothing.
 *
 * A set being deleted is left alone. Resolves once the pass ended.
 *
 * @throws the first failed write.
 */
export async function updateStatefulSetPods(input: StatefulSetUpdateInput): Promise<void> {
  const { set, control, nowMs } = input;
  const spec = set.spec;
  const replicaCount = spec?.replicas ?? 1;
  const start = spec?.ordinals?.start ?? 0;
  const minReadySeconds = spec?.minReadySeconds ?? 0;
  const strategy = spec?.updateStrategy;
  const rolling = strategy?.type !== "OnDelete";
  const partition = strategy?.rollingUpdate?.partition;

  const newVersionedPod = (ordinal: number): Pod => {
    const atCurrent =
      (rolling &&
        strategy?.rollingUpdate === undefined &&
        ordinal < start + (set.status?.currentReplicas ?? 0)) ||
      (partition !== undefined && ordinal < start + partition);
    const revision = atCurrent ? input.current : input.update;
    return newStatefulPod(set, revision.template, ordinal, revision.name);
  };

  const existing: (Pod | undefined)[] = Array.from({ length: replicaCount }, () => undefined);
  const condemned: Pod[] = [];
  for (const pod of input.pods) {
    const ordinal = ordinalOf(pod);
    if (ordinal >= start && ordinal < start + replicaCount) existing[ordinal - start] = pod;
    else if (ordinal >= 0) condemned.push(pod);
  }
  const replicas = existing.map((pod, i) => pod ?? newVersionedPod(start + i));
  condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));
  const firstUnhealthy = [...replicas, ...condemned]
    .filter((pod) => !isHealthy(pod))
    .sort((a, b) => ordinalOf(a) - ordinalOf(b))[0];

  if (set.metadata?.deletionTimestamp !== undefined) return;
  const monotonic = spec?.podManagementPolicy !== "Parallel";

  const processReplica = async (i: number): Promise<boolean> => {
    const pod = replicas[i] as Pod;
    const phase = pod.status?.phase;
    if (phase === "Failed" || phase === "Succeeded") {
      if (!isTerminating(pod)) await control.deletePod(set, pod);
      return true;
    }
    if (!isCreated(pod)) {
      await control.createPod(set, pod);
      return monotonic;
    }
    if (phase === "Pending") await control.ensureClaims(set, pod);
    if (monotonic) {
      if (isTerminating(pod) || !isRunningAndReady(pod)) return true;
      if (!isRunningAndAvailable(pod, minReadySeconds, nowMs)) return true;
    }
    const labels = missingIdentityLabels(pod);
    if (Object.keys(labels).length > 0) await control.patchLabels(set, pod, labels);
    return false;
  };
  if (await runForAll(replicas.length, processReplica, monotonic)) return;

  const processCondemned = async (i: number): Promise<boolean> => {
    const pod = condemned[i] as Pod;
    if (isTerminating(pod)) return monotonic;
    if (monotonic && pod !== firstUnhealthy) {
      if (!isRunningAndReady(pod) || !isRunningAndAvailable(pod, minReadySeconds, nowMs)) {
        return true;
      }
    }
    await control.deletePod(set, pod);
    return true;
  };
  if (await runForAll(condemned.length, processCondemned, monotonic)) return;

  if (!rolling) return;
  for (let target = replicas.length - 1; target >= (partition ?? 0); target--) {
    const pod = replicas[target] as Pod;
    if (podRevision(pod) !== input.update.name && !isTerminating(pod)) {
      await control.deletePod(set, pod);
      return;
    }
    if (!isHealthy(pod)) return;
  }
}
