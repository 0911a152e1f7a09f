/**
 * One sync of one Deployment: what kube's `DeploymentController` methods share
 * (`pkg/controller/deployment/sync.go`, `progress.go`): the Deployment and its ReplicaSets as
 * last read or written, the writes to ReplicaSets and to the Deployment's status, and the
 * `ScalingReplicaSet` Events.
 */
import type { Deployment, DeploymentStatus, ReplicaSet } from "kubernetes-types/apps/v1.js";
import { annotationOf, deepEqual, errorMessage, nameOf, namespaceOf } from "kubekit/apimachinery";
import {
  PatchTypes,
  controllerOf,
  isAlreadyExists,
  isNotFound,
  setControllerReference,
  type Clientset,
  type Clock,
  type EventRecorder,
  type ReconcileResult,
  type SharedIndexInformer,
} from "kubekit";
import {
  byRevision,
  equalIgnoreHash,
  findNewReplicaSet,
  oldReplicaSets,
  specReplicas,
} from "./deployment-replica-sets.js";
import {
  POD_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  maxRevision,
  replicasAnnotationsNeedUpdate,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
} from "./deployment-revision.js";
import {
  DeploymentReasons,
  calculateDeploymentStatus,
  deploymentCondition,
  hasProgressDeadline,
  newDeploymentCondition,
  rolloutStatus,
  setDeploymentCondition,
  stuckRequeueMs,
} from "./deployment-status.js";
import { isNamespaceTerminating } from "../controller-support/namespace-terminating.js";
import { OwnWrites } from "../controller-support/own-writes.js";
import { maxSurge, newReplicaSetReplicas } from "./rolling-update-bounds.js";
import { templateHash } from "../controller-support/template-hash.js";
import { APPS_V1 } from "../controller-support/api-versions.js";

/** What every sync of the deployment controller uses. */
export interface DeploymentSyncDeps {
  readonly clientset: Clientset;
  readonly deployments: SharedIndexInformer<Deployment>;
  readonly replicaSets: SharedIndexInformer<ReplicaSet>;
  readonly recorder: EventRecorder;
  readonly clock: Clock;
}

/** The new ReplicaSet (if any) and every other ReplicaSet of the Deployment. */
export interface ReplicaSetsOfDeployment {
  readonly newRS: ReplicaSet | undefined;
  readonly oldRSs: ReplicaSet[];
}

/**
 * The state of one sync. Every write replaces the object it wrote in {@link deployment} or
 * {@link replicaSets} with what the server returned, so later steps of the same sync never
 * write from a stale copy, and is recorded in {@link writes} so the controller waits for its
 * caches to observe it before the next sync of the Deployment.
 */
export class DeploymentSync {
  /** The Deployment as last read or written. */
  deployment: Deployment;
  /** The ReplicaSets the Deployment controls, as last read or written. */
  replicaSets: ReplicaSet[];
  /** This sync's writes. */
  readonly writes: OwnWrites;
  readonly #deps: DeploymentSyncDeps;
  readonly #signal: AbortSignal;

  constructor(
    deps: DeploymentSyncDeps,
    deployment: Deployment,
    replicaSets: readonly ReplicaSet[],
    signal: AbortSignal,
  ) {
    this.#deps = deps;
    this.writes = new OwnWrites(deps.clock);
    this.deployment = deployment;
    this.replicaSets = [...replicaSets];
    this.#signal = signal;
  }

  /** The clock's time in ms. */
  now(): number {
    return this.#deps.clock.now();
  }

  /** `spec.replicas` of the Deployment. */
  get replicas(): number {
    return this.deployment.spec?.replicas ?? 1;
  }

  get #namespace(): string {
    return namespaceOf(this.deployment);
  }

  get #rsClient() {
    return this.#deps.clientset.appsV1.replicaSets(this.#namespace);
  }

  get #deploymentClient() {
    return this.#deps.clientset.appsV1.deployments(this.#namespace);
  }

  /** Records an Event about the Deployment as `deployment-controller`. */
  event(type: "Normal" | "Warning", reason: string, message: string): void {
    this.#deps.recorder.event(
      { ...this.deployment, apiVersion: APPS_V1, kind: "Deployment" },
      type,
      reason,
      message,
    );
  }

  /** The latest known version of `rs` (by uid), or `rs` itself when this sync has no other. */
  current(rs: ReplicaSet): ReplicaSet;
  current(rs: ReplicaSet | undefined): ReplicaSet | undefined;
  current(rs: ReplicaSet | undefined): ReplicaSet | undefined {
    if (rs === undefined) return undefined;
    return this.replicaSets.find((r) => r.metadata?.uid === rs.metadata?.uid) ?? rs;
  }

  #replace(rs: ReplicaSet): ReplicaSet {
    this.writes.record(this.#deps.replicaSets, rs);
    const index = this.replicaSets.findIndex((r) => r.metadata?.uid === rs.metadata?.uid);
    if (index === -1) this.replicaSets.push(rs);
    else this.replicaSets[index] = rs;
    return rs;
  }

  async #updateReplicaSet(rs: ReplicaSet): Promise<ReplicaSet> {
    const updated = await this.#rsClient.update(
      { ...rs, apiVersion: APPS_V1, kind: "ReplicaSet" },
      { signal: this.#signal },
    );
    return this.#replace(updated);
  }

  /** Writes the Deployment's status (conditional on its resourceVersion). */
  async updateStatus(status: DeploymentStatus): Promise<void> {
    const updated = await this.#deploymentClient.updateStatus(
      { ...this.deployment, apiVersion: APPS_V1, kind: "Deployment", status },
      { signal: this.#signal },
    );
    this.writes.record(this.#deps.deployments, updated);
    this.deployment = updated;
  }

  /**
   * Sets the Deployment's revision annotation (`SetDeploymentRevision`). kube writes it with
   * the status; the embedded API server keeps metadata out of status writes, so this is a
   * merge patch of the annotation alone (no spec change, no new generation).
   */
  async #setDeploymentRevision(revision: string): Promise<void> {
    if (annotationOf(this.deployment, REVISION_ANNOTATION) === revision) return;
    const patched = await this.#deploymentClient.patch(
      nameOf(this.deployment),
      PatchTypes.merge,
      { metadata: { annotations: { [REVISION_ANNOTATION]: revision } } },
      { signal: this.#signal },
    );
    this.writes.record(this.#deps.deployments, patched);
    this.deployment = patched;
  }

  /**
   * The new and old ReplicaSets, with the new one's annotations and revision brought up to
   * date, and the Deployment's revision copied from it; with `create`, a missing new
   * ReplicaSet is created (`getAllReplicaSetsAndSyncRevision`).
   *
   * @throws {StatusError} AlreadyExists after a hash collision (the collision count was
   *   bumped: the next sync uses another name) or when the name's holder vanished meanwhile,
   *   or what a write threw.
   */
  async replicaSetsAndSyncRevision(create: boolean): Promise<ReplicaSetsOfDeployment> {
    const existing = findNewReplicaSet(this.deployment, this.replicaSets);
    const oldRSs = oldReplicaSets(this.replicaSets, existing);
    const newRS = await this.#newReplicaSet(existing, oldRSs, create);
    return { newRS, oldRSs: oldReplicaSets(this.replicaSets, newRS) };
  }

  /** `getNewReplicaSet`: syncs or creates the new ReplicaSet. */
  async #newReplicaSet(
    existing: ReplicaSet | undefined,
    oldRSs: readonly ReplicaSet[],
    create: boolean,
  ): Promise<ReplicaSet | undefined> {
    const d = this.deployment;
    const newRevision = maxRevision(oldRSs) + 1;
    if (existing !== undefined) {
      const annotations = { ...existing.metadata?.annotations };
      const annotationsUpdated = setNewReplicaSetAnnotations(
        d,
        annotations,
        newRevision,
        true,
        maxSurge(d),
      );
      const minReadySeconds = d.spec?.minReadySeconds ?? 0;
      if (annotationsUpdated || (existing.spec?.minReadySeconds ?? 0) !== minReadySeconds) {
        return this.#updateReplicaSet({
          ...existing,
          metadata: { ...existing.metadata, annotations },
          spec: { ...existing.spec, selector: existing.spec?.selector ?? {}, minReadySeconds },
        });
      }
      const revision = annotations[REVISION_ANNOTATION];
      if (revision !== undefined) await this.#setDeploymentRevision(revision);
      if (hasProgressDeadline(d) && deploymentCondition(d.status, "Progressing") === undefined) {
        await this.#writeProgressing(
          "True",
          DeploymentReasons.foundNewReplicaSet,
          `Found new replica set "${existing.metadata?.name}"`,
        );
      }
      return existing;
    }
    if (!create) return undefined;
    return this.#createNewReplicaSet(oldRSs, newRevision);
  }

  /** Creates the ReplicaSet of the Deployment's current template, named `<deployment>-<hash>`. */
  async #createNewReplicaSet(
    oldRSs: readonly ReplicaSet[],
    newRevision: number,
  ): Promise<ReplicaSet> {
    const d = this.deployment;
    const template = structuredClone(d.spec?.template ?? {});
    const hash = templateHash(d.spec?.template, d.status?.collisionCount);
    const labels = { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash };
    const selector = d.spec?.selector ?? {};
    const name = `${d.metadata?.name}-${hash}`;
    const draft: ReplicaSet = {
      apiVersion: APPS_V1,
      kind: "ReplicaSet",
      metadata: { name, namespace: this.#namespace, labels, annotations: {} },
      spec: {
        replicas: 0,
        minReadySeconds: d.spec?.minReadySeconds ?? 0,
        selector: {
          ...selector,
          matchLabels: { ...selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash },
        },
        template: { ...template, metadata: { ...template.metadata, labels } },
      },
    };
    setControllerReference(d, draft, { apiVersion: APPS_V1, kind: "Deployment" });
    const replicas = newReplicaSetReplicas(d, [...oldRSs, draft], draft);
    const annotations: Record<string, string> = {};
    setNewReplicaSetAnnotations(d, annotations, newRevision, false, maxSurge(d));
    const newRS: ReplicaSet = {
      ...draft,
      metadata: { ...draft.metadata, annotations },
      spec: { ...draft.spec, selector: draft.spec?.selector ?? {}, replicas },
    };
    let created: ReplicaSet;
    let alreadyExisted = false;
    try {
      created = await this.#rsClient.create(newRS, { signal: this.#signal });
    } catch (err) {
      if (isAlreadyExists(err)) {
        const holder = await this.#nameHolder(name);
        if (holder === "collision") await this.#bumpCollisionCount();
        if (typeof holder === "string") throw err;
        created = holder;
        alreadyExisted = true;
      } else {
        if (!isNamespaceTerminating(err)) await this.#reportCreateFailure(name, err);
        throw err;
      }
    }
    this.#replace(created);
    if (!alreadyExisted && replicas > 0) {
      this.event(
        "Normal",
        "ScalingReplicaSet",
        `Scaled up replica set ${name} from 0 to ${replicas}`,
      );
    }
    await this.#setDeploymentRevision(String(newRevision));
    if (!alreadyExisted && hasProgressDeadline(this.deployment)) {
      await this.#writeProgressing(
        "True",
        DeploymentReasons.newReplicaSetCreated,
        `Created new replica set "${name}"`,
      );
    }
    return created;
  }

  /**
   * What holds the name `name`: this Deployment's ReplicaSet of its template (created by an
   * earlier sync), another ReplicaSet (a hash collision), or nothing any more.
   */
  async #nameHolder(name: string): Promise<ReplicaSet | "collision" | "gone"> {
    let rs: ReplicaSet;
    try {
      rs = await this.#rsClient.get(name, { signal: this.#signal });
    } catch (err) {
      if (isNotFound(err)) return "gone";
      throw err;
    }
    const owner = controllerOf(rs);
    return owner?.uid === this.deployment.metadata?.uid &&
      equalIgnoreHash(this.deployment.spec?.template, rs.spec?.template)
      ? rs
      : "collision";
  }

  /** Writes the status with the `Progressing` condition set to `status`, `reason`, `message`. */
  async #writeProgressing(
    status: "True" | "False" | "Unknown",
    reason: string,
    message: string,
  ): Promise<void> {
    const next = structuredClone(this.deployment.status ?? {});
    setDeploymentCondition(
      next,
      newDeploymentCondition("Progressing", status, reason, message, this.now()),
    );
    await this.updateStatus(next);
  }

  /** A hash collision: count it in the status so the next sync hashes differently. */
  async #bumpCollisionCount(): Promise<void> {
    const status = structuredClone(this.deployment.status ?? {});
    status.collisionCount = (status.collisionCount ?? 0) + 1;
    await this.updateStatus(status);
  }

  /** The Progressing=False condition and Warning Event of a failed ReplicaSet create. */
  async #reportCreateFailure(name: string, err: unknown): Promise<void> {
    const message = `Failed to create new replica set "${name}": ${errorMessage(err)}`;
    if (hasProgressDeadline(this.deployment)) {
      await this.#writeProgressing(
        "False",
        DeploymentReasons.failedReplicaSetCreate,
        message,
      ).catch(() => undefined);
    }
    this.event("Warning", DeploymentReasons.failedReplicaSetCreate, message);
  }

  /**
   * Scales `rs` to `newScale` and records `Scaled up|down replica set <name> from <a> to <b>`
   * (`scaleReplicaSetAndRecordEvent`); nothing when it has that size already.
   */
  async scaleAndRecord(
    rs: ReplicaSet,
    newScale: number,
  ): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    if (specReplicas(rs) === newScale) return { scaled: false, rs };
    return this.scale(rs, newScale, specReplicas(rs) < newScale ? "up" : "down");
  }

  /**
   * Sets `rs`'s size and replica annotations (`scaleReplicaSet`): writes when either
   * differs; the Event names `operation` when the size changed.
   */
  async scale(
    rs: ReplicaSet,
    newScale: number,
    operation: "up" | "down" | "",
  ): Promise<{ scaled: boolean; rs: ReplicaSet }> {
    const desired = this.replicas;
    const max = desired + maxSurge(this.deployment);
    const oldScale = specReplicas(rs);
    const sizeNeedsUpdate = oldScale !== newScale;
    if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, desired, max)) {
      return { scaled: false, rs };
    }
    const annotations = { ...rs.metadata?.annotations };
    setReplicasAnnotations(annotations, desired, max);
    const updated = await this.#updateReplicaSet({
      ...rs,
      metadata: { ...rs.metadata, annotations },
      spec: { ...rs.spec, selector: rs.spec?.selector ?? {}, replicas: newScale },
    });
    if (sizeNeedsUpdate) {
      this.event(
        "Normal",
        "ScalingReplicaSet",
        `Scaled ${operation} replica set ${rs.metadata?.name} from ${oldScale} to ${newScale}`,
      );
    }
    return { scaled: sizeNeedsUpdate, rs: updated };
  }

  /**
   * Deletes the oldest old ReplicaSets beyond `revisionHistoryLimit` that run nothing and
   * whose spec their controller has observed (`cleanupDeployment`).
   */
  async cleanup(oldRSs: readonly ReplicaSet[]): Promise<void> {
    const limit = this.deployment.spec?.revisionHistoryLimit;
    if (limit === undefined) return;
    const cleanable = oldRSs.filter((rs) => rs.metadata?.deletionTimestamp === undefined);
    const excess = cleanable.length - limit;
    if (excess <= 0) return;
    for (const rs of [...cleanable].sort(byRevision).slice(0, excess)) {
      if (
        (rs.status?.replicas ?? 0) !== 0 ||
        specReplicas(rs) !== 0 ||
        (rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0)
      ) {
        continue;
      }
      try {
        const gone = await this.#rsClient.delete(nameOf(rs), { signal: this.#signal });
        if (gone.kind === "ReplicaSet") this.writes.record(this.#deps.replicaSets, gone);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      this.replicaSets = this.replicaSets.filter((r) => r.metadata?.uid !== rs.metadata?.uid);
    }
  }

  /**
   * Writes the rollout status (`syncRolloutStatus`, see `rolloutStatus`) when it changed;
   * resolves with when to look again for the progress deadline.
   */
  async syncRolloutStatus(
    allRSs: readonly (ReplicaSet | undefined)[],
    newRS: ReplicaSet | undefined,
  ): Promise<ReconcileResult | void> {
    const nowMs = this.now();
    const status = rolloutStatus(this.deployment, allRSs, newRS, nowMs);
    if (!deepEqual(this.deployment.status ?? {}, status)) await this.updateStatus(status);
    const after = stuckRequeueMs(this.deployment, status, nowMs);
    if (after === undefined) return undefined;
    return after === 0 ? { requeue: true } : { requeueAfterMs: after };
  }

  /** Writes the plain status (`syncDeploymentStatus`: no Progressing update) when it changed. */
  async syncStatus(
    allRSs: readonly (ReplicaSet | undefined)[],
    newRS: ReplicaSet | undefined,
  ): Promise<void> {
    const status = calculateDeploymentStatus(this.deployment, allRSs, newRS, this.now());
    if (!deepEqual(this.deployment.status ?? {}, status)) await this.updateStatus(status);
  }

  /**
   * Records pausing and resuming in the Progressing condition (`checkPausedConditions`:
   * `DeploymentPaused` "Deployment is paused", `DeploymentResumed` "Deployment is resumed",
   * both Unknown), so time spent paused never counts against the progress deadline; a
   * timed-out rollout keeps its condition.
   */
  async checkPausedConditions(): Promise<void> {
    const d = this.deployment;
    if (!hasProgressDeadline(d)) return;
    const condition = deploymentCondition(d.status, "Progressing");
    if (condition?.reason === DeploymentReasons.timedOut) return;
    const pausedRecorded = condition?.reason === DeploymentReasons.paused;
    const paused = d.spec?.paused === true;
    if (paused === pausedRecorded) return;
    await (paused
      ? this.#writeProgressing("Unknown", DeploymentReasons.paused, "Deployment is paused")
      : this.#writeProgressing("Unknown", DeploymentReasons.resumed, "Deployment is resumed"));
  }
}
