/**
 * kube-controller-manager's Deployment controller (`pkg/controller/deployment/deployment_controller.go`),
 * written with kubekit's Controller toolkit: it rolls each Deployment out through ReplicaSets
 * named after the pod template's hash, keeps their revisions, and reports the rollout in the
 * Deployment's status so `kubectl rollout status|history|undo|restart|pause|resume` work.
 */
import type { Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { Pod } from "kubernetes-types/core/v1.js";
import {
  type AppsV1DeploymentLister,
  type AppsV1ReplicaSetLister,
  type LabelSelector,
  controllerOf,
  isAlreadyExists,
  splitKey,
  type ReconcileResult,
  type Runnable,
  type SharedIndexInformer,
} from "kubekit";
import { labelsOf, nameOf, namespaceOf } from "kubekit/apimachinery";
import { cachedObject } from "../controller-support/cached-object.js";
import type { ClusterContext } from "../cluster-context.js";
import {
  claimCached,
  recheckDeletionTimestamp,
} from "../controller-support/controller-ref-manager.js";
import {
  controlledBy,
  ensureControllerRefIndexes,
} from "../controller-support/controller-ref-index.js";
import { rolloutRecreate, rolloutRolling } from "./deployment-rollout.js";
import { isScalingEvent, syncScaling } from "./deployment-scaling.js";
import { DeploymentSync, type DeploymentSyncDeps } from "./deployment-sync.js";
import { orphanAdopterKeys } from "../controller-support/orphan-adopters.js";
import { ownerController } from "../controller-support/owner-controller.js";
import { requeueOnConflict } from "../controller-support/requeue-on-conflict.js";
import { workloadSelector } from "../controller-support/workload-selector.js";
import { APPS_V1 } from "../controller-support/api-versions.js";

/** kube-controller-manager's `--concurrent-deployment-syncs` default. */
const WORKERS = 5;

/**
 * The simulated Deployment controller. Per Deployment, level-triggered from the listers:
 *
 * - claims ReplicaSets (adopts matching orphans, releases those it no longer selects);
 * - names the ReplicaSet of the current template `<deployment>-<pod-template-hash>` (the
 *   hash of the template and `status.collisionCount`), with the hash in its labels, selector
 *   and pod template; recognizes an existing one by template equality ignoring the hash
 *   (so `kubectl rollout undo` reuses the old ReplicaSet and gives it the next revision);
 * - keeps `deployment.kubernetes.io/revision` (and `revision-history` on reuse),
 *   `desired-replicas` and `max-replicas` on the ReplicaSets, copies the Deployment's other
 *   annotations (`kubernetes.io/change-cause`) to the new one and the revision to the
 *   Deployment;
 * - rolls out with RollingUpdate (maxSurge rounded up, maxUnavailable down) or Recreate
 *   (old pods gone before new ones start), records `ScalingReplicaSet` Events as
 *   `deployment-controller`, scales paused or resized Deployments proportionally, deletes
 *   old ReplicaSets at 0 beyond `revisionHistoryLimit`;
 * - writes status: replica counts, observedGeneration, collisionCount, `Available`
 *   (MinimumReplicasAvailable/Unavailable) and `Progressing` (NewReplicaSetCreated,
 *   FoundNewReplicaSet, ReplicaSetUpdated, NewReplicaSetAvailable, DeploymentPaused,
 *   DeploymentResumed, ProgressDeadlineExceeded after `progressDeadlineSeconds` on the
 *   cluster's clock, ReplicaSetCreateError), and mirrors a ReplicaSet's ReplicaFailure;
 * - waits until its caches have observed its own writes before the next sync of the key.
 *
 * ReplicaSets and pods of a Deployment are found through the controller-uid and orphan
 * indices, so a sync costs O(its ReplicaSets and pods). Conflicts requeue quietly. Not
 * simulated: the deprecated `spec.rollbackTo` (extensions/v1beta1; apps/v1 has none) and the
 * warning for an empty selector (the API server rejects one).
 */
export function deploymentController(ctx: ClusterContext): Runnable {
  const clientset = ctx.clientset("kube-controller-manager");
  const deployments = ctx.factory.appsV1.deployments();
  const replicaSets = ctx.factory.appsV1.replicaSets();
  const pods = ctx.factory.coreV1.pods();
  ensureControllerRefIndexes(replicaSets.informer);
  ensureControllerRefIndexes(pods.informer);
  const logger = ctx.logger;
  const deps: DeploymentSyncDeps = {
    clientset,
    deployments: deployments.informer,
    replicaSets: replicaSets.informer,
    recorder: ctx.recorder("deployment-controller", "kube-controller-manager"),
    clock: ctx.clock,
  };

  const reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const { namespace, name } = splitKey(key);
    const deployment = cachedObject(deployments.lister.deployments(namespace), name);
    if (deployment === undefined) return; // deleted: the garbage collector removes its ReplicaSets
    const selector = workloadSelector(deployment);
    if (selector === undefined) {
      logger.warn("deployment: invalid or empty selector; not synced", { key });
      return;
    }
    const sync = new DeploymentSync(deps, structuredClone(deployment), [], signal);
    const { writes } = sync;
    // A conflict (a stale cache) or a hash collision (collisionCount bumped): try again.
    const conflictRequeue = {
      controller: "deployment",
      key,
      writes,
      signal,
      logger,
      alsoRetry: isAlreadyExists,
    };
    return requeueOnConflict(conflictRequeue, async () => {
      const result = await syncDeployment(deps, pods.informer, {
        deployment,
        selector,
        sync,
        signal,
      });
      return (await writes.observed(signal)) ? result : { requeue: true };
    });
  };

  const controller = ownerController(ctx, {
    name: "deployment",
    workers: WORKERS,
    reconcile,
    owners: deployments.informer,
    ownerKind: { group: "apps", kind: "Deployment" },
    owned: [replicaSets.informer],
  });
  // An orphan ReplicaSet wakes every Deployment of its namespace that selects it
  // (getDeploymentsForReplicaSet), so one of them adopts it.
  controller.watch(replicaSets.informer, {
    map: (rs: ReplicaSet) =>
      orphanAdopterKeys(
        rs,
        (namespace: string) => deployments.lister.deployments(namespace).list(),
        workloadSelector,
      ),
  });
  // A Recreate rollout waits for the old pods to be gone: each pod deletion wakes the
  // Deployment of its ReplicaSet (deletePod).
  controller.watch(pods.informer, {
    predicates: [{ create: () => false, update: () => false }],
    map: (pod: Pod) => recreateDeploymentKeys(pod, replicaSets.lister, deployments.lister),
  });
  return controller;
}

/**
 * One sync of a Deployment (`pkg/controller/deployment/deployment_controller.go`
 * syncDeployment): claim its ReplicaSets, then, by the Deployment's state, sync the status
 * of one being deleted, scale a paused or resized one, or roll it out by its strategy.
 */
async function syncDeployment(
  deps: DeploymentSyncDeps,
  pods: SharedIndexInformer<Pod>,
  request: {
    readonly deployment: Deployment;
    readonly selector: LabelSelector;
    readonly sync: DeploymentSync;
    readonly signal: AbortSignal;
  },
): Promise<ReconcileResult | void> {
  const { deployment, selector, sync, signal } = request;
  const namespace = namespaceOf(deployment);
  const { clientset } = deps;
  sync.replicaSets = await claimCached({
    owner: deployment,
    ownerType: { apiVersion: APPS_V1, kind: "Deployment" },
    selector,
    informer: deps.replicaSets,
    client: clientset.appsV1.replicaSets(namespace),
    canAdopt: recheckDeletionTimestamp(deployment, () =>
      clientset.appsV1.deployments(namespace).get(nameOf(deployment), { signal }),
    ),
    writes: sync.writes,
    signal,
  });
  if (deployment.metadata?.deletionTimestamp !== undefined) {
    const { newRS } = await sync.replicaSetsAndSyncRevision(false);
    await sync.syncStatus(sync.replicaSets, sync.current(newRS));
    return;
  }
  await sync.checkPausedConditions();
  if (deployment.spec?.paused === true || (await isScalingEvent(sync))) {
    await syncScaling(sync);
    return;
  }
  if (deployment.spec?.strategy?.type === "Recreate") {
    return rolloutRecreate(sync, podsByReplicaSet(pods, selector, sync.replicaSets));
  }
  return rolloutRolling(sync);
}

/** The Deployment's pods by the uid of their ReplicaSet (`getPodMapForDeployment`). */
function podsByReplicaSet(
  pods: SharedIndexInformer<Pod>,
  selector: LabelSelector,
  rsList: readonly ReplicaSet[],
): Map<string, Pod[]> {
  return new Map(
    rsList.map((rs) => {
      const uid = rs.metadata?.uid ?? "";
      const owned = controlledBy(pods, uid).filter((pod) => selector.matches(labelsOf(pod)));
      return [uid, owned];
    }),
  );
}

/**
 * The key of the Recreate Deployment that controls the ReplicaSet controlling `pod`, if any
 * (`pkg/controller/deployment/deployment_controller.go` deletePod).
 */
function recreateDeploymentKeys(
  pod: Pod,
  replicaSets: AppsV1ReplicaSetLister,
  deployments: AppsV1DeploymentLister,
): string[] {
  const rsRef = controllerOf(pod);
  if (rsRef?.kind !== "ReplicaSet") return [];
  const namespace = namespaceOf(pod);
  try {
    const rs = replicaSets.replicaSets(namespace).get(rsRef.name);
    const owner = controllerOf(rs);
    if (owner?.kind !== "Deployment") return [];
    const deployment = deployments.deployments(namespace).get(owner.name);
    return deployment.metadata?.uid === owner.uid && deployment.spec?.strategy?.type === "Recreate"
      ? [`${namespace}/${owner.name}`]
      : [];
  } catch {
    return []; // the ReplicaSet or Deployment is gone from the cache
  }
}
