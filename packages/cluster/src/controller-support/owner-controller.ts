import {
  Controller,
  type ObjectWithMetadata,
  type OwnerKind,
  type Reconciler,
  type WatchedInformer,
} from "kubekit";
import type { ClusterContext } from "../cluster-context.js";

/** Settings of {@link ownerController}. */
export interface OwnerControllerOptions<O extends ObjectWithMetadata> {
  /** The controller's name in logs and metrics, e.g. `"replicaset"`. */
  readonly name: string;
  /** How many keys are reconciled at once (kube-controller-manager's `--concurrent-*-syncs`). */
  readonly workers: number;
  /** Called with each owner's key. */
  readonly reconcile: Reconciler;
  /** The owners' informer: an owner's own events reconcile it. */
  readonly owners: WatchedInformer<O>;
  /** The owners' kind, as the controller references of the objects they own name it. */
  readonly ownerKind: OwnerKind;
  /** Informers of the objects the owners control: their events reconcile their controller. */
  readonly owned: readonly WatchedInformer<ObjectWithMetadata>[];
}

/**
 * A {@link Controller} of the simulated kube-controller-manager for one owner kind (a
 * workload such as ReplicaSet or CronJob), on the cluster's clock and logger, watching the
 * owners by their own keys and each informer of `owned` by controller owner reference
 * (controller-runtime's `For` and `Owns`). The caller adds any further watch, e.g. the one
 * that lets an orphan wake the owners that may adopt it.
 */
export function ownerController<O extends ObjectWithMetadata>(
  ctx: ClusterContext,
  options: OwnerControllerOptions<O>,
): Controller {
  const controller = new Controller({
    name: options.name,
    workers: options.workers,
    reconcile: options.reconcile,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  controller.watch(options.owners);
  for (const informer of options.owned) controller.watchOwned(informer, options.ownerKind);
  return controller;
}
