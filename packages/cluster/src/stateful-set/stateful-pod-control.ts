/**
 * The writes of the StatefulSet controller to its pods and their claims, with the Events kube
 * records for them (`pkg/controller/statefulset/stateful_pod_control.go`
 * StatefulPodControl: CreateStatefulPod, DeleteStatefulPod, createPersistentVolumeClaims,
 * recordPodEvent and recordClaimEvent).
 */
import type { StatefulSet } from "kubernetes-types/apps/v1.js";
import type { PersistentVolumeClaim, Pod } from "kubernetes-types/core/v1.js";
import {
  isAlreadyExists,
  isNotFound,
  PatchTypes,
  type Clientset,
  type EventRecorder,
  type SharedIndexInformer,
} from "kubekit";
import { errorMessage, nameOf } from "kubekit/apimachinery";
import { isNamespaceTerminating } from "../controller-support/namespace-terminating.js";
import type { OwnWrites } from "../controller-support/own-writes.js";
import { claimsFor, ordinalOf } from "./stateful-set-identity.js";
import { APPS_V1 } from "../controller-support/api-versions.js";

/** What a {@link StatefulPodControl} writes with, for one sync of one set. */
export interface StatefulPodControlOptions {
  readonly clientset: Clientset;
  readonly recorder: EventRecorder;
  /** The pod informer: pod writes are recorded against it. */
  readonly pods: SharedIndexInformer<Pod>;
  /** The claim informer: its cache tells which claims exist; claim writes are recorded against it. */
  readonly claims: SharedIndexInformer<PersistentVolumeClaim>;
  /** Collects the sync's writes, so the next sync waits until the caches have them. */
  readonly writes: OwnWrites;
  readonly signal: AbortSignal;
}

/**
 * Creates, deletes and repairs the pods of one StatefulSet, and creates their claims, as
 * `statefulset-controller` (Events `SuccessfulCreate`, `FailedCreate`, `SuccessfulDelete`,
 * `FailedDelete` with kube's messages). Every write is recorded in the sync's
 * {@link OwnWrites}.
 */
export class StatefulPodControl {
  readonly #options: StatefulPodControlOptions;

  constructor(options: StatefulPodControlOptions) {
    this.#options = options;
  }

  /** The set as an Event subject (cached objects carry no apiVersion/kind). */
  #subject(set: StatefulSet): StatefulSet {
    return { ...set, apiVersion: APPS_V1, kind: "StatefulSet" };
  }

  /**
   * Creates the claims the pod mounts that do not exist yet (`createPersistentVolumeClaims`):
   * one per volumeClaimTemplate, named `<claim>-<set>-<ordinal>`. A claim that appeared
   * meanwhile counts as created.
   *
   * @throws the first failed create, after a `FailedCreate` Event.
   */
  async ensureClaims(set: StatefulSet, pod: Pod): Promise<void> {
    const { clientset, recorder, claims, writes, signal } = this.#options;
    const namespace = set.metadata?.namespace ?? "default";
    const podName = nameOf(pod);
    for (const claim of claimsFor(set, ordinalOf(pod))) {
      const name = nameOf(claim);
      if (claims.indexer.getByKey(`${namespace}/${name}`) !== undefined) continue;
      try {
        const created = await clientset.coreV1
          .persistentVolumeClaims(namespace)
          .create(claim, { signal });
        writes.record(claims, created);
        recorder.event(
          this.#subject(set),
          "Normal",
          "SuccessfulCreate",
          `create Claim ${name} Pod ${podName} in StatefulSet ${set.metadata?.name} success`,
        );
      } catch (err) {
        if (isAlreadyExists(err)) continue;
        if (!signal.aborted && !isNamespaceTerminating(err)) {
          recorder.event(
            this.#subject(set),
            "Warning",
            "FailedCreate",
            `create Claim ${name} for Pod ${podName} in StatefulSet ${set.metadata?.name} failed error: ${errorMessage(err)}`,
          );
        }
        throw err;
      }
    }
  }

  /**
   * Creates the pod's claims, then the pod (`CreateStatefulPod`).
   *
   * @throws a failed create (a pod that exists already included: it is not the set's, or
   *   is still being deleted), after a `FailedCreate` Event unless the name was taken.
   */
  async createPod(set: StatefulSet, pod: Pod): Promise<void> {
    const { clientset, recorder, pods, writes, signal } = this.#options;
    const name = nameOf(pod);
    const message = (outcome: string): string =>
      `create Pod ${name} in StatefulSet ${set.metadata?.name} ${outcome}`;
    try {
      await this.ensureClaims(set, pod);
      const created = await clientset.coreV1
        .pods(set.metadata?.namespace ?? "default")
        .create(pod, { signal });
      writes.record(pods, created);
    } catch (err) {
      if (!isAlreadyExists(err) && !signal.aborted && !isNamespaceTerminating(err)) {
        recorder.event(
          this.#subject(set),
          "Warning",
          "FailedCreate",
          message(`failed error: ${errorMessage(err)}`),
        );
      }
      throw err;
    }
    recorder.event(this.#subject(set), "Normal", "SuccessfulCreate", message("successful"));
  }

  /**
   * Deletes the pod (`DeleteStatefulPod`, graceful: the kubelet removes it once its
   * containers stopped). A pod already gone counts as deleted, without an Event.
   *
   * @throws a failed delete, after a `FailedDelete` Event.
   */
  async deletePod(set: StatefulSet, pod: Pod): Promise<void> {
    const { clientset, recorder, pods, writes, signal } = this.#options;
    const name = nameOf(pod);
    const message = (outcome: string): string =>
      `delete Pod ${name} in StatefulSet ${set.metadata?.name} ${outcome}`;
    try {
      const gone = await clientset.coreV1
        .pods(set.metadata?.namespace ?? "default")
        .delete(name, { preconditions: { uid: pod.metadata?.uid }, signal });
      if (gone.kind === "Pod") writes.record(pods, gone as Pod);
    } catch (err) {
      if (isNotFound(err)) return;
      if (!signal.aborted) {
        recorder.event(
          this.#subject(set),
          "Warning",
          "FailedDelete",
          message(`failed error: ${errorMessage(err)}`),
        );
      }
      throw err;
    }
    recorder.event(this.#subject(set), "Normal", "SuccessfulDelete", message("successful"));
  }

  /**
   * Restores identity labels a member pod lost (`UpdateStatefulPod` with `updateIdentity`),
   * conditional on the pod's resourceVersion.
   */
  async patchLabels(set: StatefulSet, pod: Pod, labels: Record<string, string>): Promise<void> {
    const { clientset, pods, writes, signal } = this.#options;
    const patched = await clientset.coreV1
      .pods(set.metadata?.namespace ?? "default")
      .patch(
        nameOf(pod),
        PatchTypes.merge,
        { metadata: { labels, resourceVersion: pod.metadata?.resourceVersion } },
        { signal },
      );
    writes.record(pods, patched);
  }
}
