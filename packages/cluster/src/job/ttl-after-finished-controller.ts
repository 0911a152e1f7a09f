import type { Job } from "kubernetes-types/batch/v1.js";
import { Controller, isNotFound, splitKey, type Predicate, type ReconcileResult } from "kubekit";
import type { ClusterContext } from "../cluster-context.js";
import { finishedCondition } from "./job-conditions.js";

/**
 * When a finished Job with `spec.ttlSecondsAfterFinished` expires, in ms since the epoch: the
 * transition time of its `Complete` or `Failed` condition plus the TTL. Undefined for a Job
 * that does not need cleaning up (not finished, no TTL, being deleted) or whose finish time
 * is unknown.
 */
export function jobExpiryMs(job: Job): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined || job.metadata?.deletionTimestamp !== undefined) return undefined;
  const finishedAt = finishedCondition(job)?.lastTransitionTime;
  const finishedMs = finishedAt === undefined ? NaN : Date.parse(finishedAt);
  return Number.isFinite(finishedMs) ? finishedMs + ttl * 1000 : undefined;
}

/** Only Jobs that may need cleaning up enqueue anything (the controller's addJob/updateJob). */
const needsCleanup: Predicate<Job> = {
  create: (job) => jobExpiryMs(job) !== undefined,
  update: (_old, job) => jobExpiryMs(job) !== undefined,
  delete: () => false,
};

/**
 * kube-controller-manager's ttl-after-finished controller
 * (`pkg/controller/ttlafterfinished/ttlafterfinished_controller.go`): deletes a finished Job
 * (and, with foreground propagation, its pods) `spec.ttlSecondsAfterFinished` seconds after
 * its `Complete` or `Failed` condition turned True, on the cluster's clock. A Job not yet
 * expired is requeued for its expiry; before deleting, the Job is read fresh from the API so
 * that a TTL changed meanwhile is honoured, and the delete carries its uid as a precondition.
 */
export function ttlAfterFinishedController(ctx: ClusterContext): Controller {
  const jobs = ctx.factory.batchV1.jobs();
  const client = ctx.clientset("kube-controller-manager").batchV1;

  const reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const { namespace, name } = splitKey(key);
    let cached: Job;
    try {
      cached = jobs.lister.jobs(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const expiry = jobExpiryMs(cached);
    if (expiry === undefined) return;
    const now = ctx.clock.now();
    if (expiry > now) return { requeueAfterMs: expiry - now };
    let fresh: Job;
    try {
      fresh = await client.jobs(namespace).get(name, { signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const freshExpiry = jobExpiryMs(fresh);
    if (freshExpiry === undefined) return;
    if (freshExpiry > now) return { requeueAfterMs: freshExpiry - now };
    ctx.logger.debug("ttl-after-finished: cleaning up Job", { job: key });
    try {
      await client.jobs(namespace).delete(name, {
        propagationPolicy: "Foreground",
        preconditions: { uid: fresh.metadata?.uid },
        signal,
      });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  };

  const controller = new Controller({
    name: "ttl-after-finished",
    workers: 1,
    reconcile,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  controller.watch(jobs.informer, { predicates: [needsCleanup] });
  return controller;
}
