import type { Job } from "kubernetes-types/batch/v1.js";
import { nameOf, namespaceOf } from "kubekit/apimachinery";
import type { Pod } from "kubernetes-types/core/v1.js";
import {
  Controller,
  PatchTypes,
  controllerOf,
  isNotFound,
  keyOf,
  splitKey,
  type ReconcileResult,
} from "kubekit";
import type { ClusterContext } from "../cluster-context.js";
import {
  controlledBy,
  ensureControllerRefIndexes,
} from "../controller-support/controller-ref-index.js";
import { isJobFinished } from "./job-conditions.js";
import { REMOVE_JOB_TRACKING_FINALIZER_PATCH, hasJobTrackingFinalizer } from "./job-pod.js";
import { JOB_CONTROLLER_MANAGER } from "./job-sync.js";
import { BATCH_V1 } from "../controller-support/api-versions.js";

/**
 * The live Job a pod's controller reference names (same name and uid), if the pod has one of
 * kind batch/v1 Job; `"other"` when the pod is controlled by something else.
 */
function owningJob(
  pod: Pod,
  getJob: (namespace: string, name: string) => Job | undefined,
): Job | undefined | "other" {
  const ref = controllerOf(pod);
  if (ref === undefined) return undefined;
  if (ref.kind !== "Job" || ref.apiVersion !== BATCH_V1) return "other";
  const job = getJob(namespaceOf(pod), ref.name);
  return job?.metadata?.uid === ref.uid ? job : undefined;
}

/**
 * The Job controller's second queue (`pkg/controller/job/job_controller.go` orphanQueue,
 * syncOrphanPod, cleanupPodFinalizers): removes the `batch.kubernetes.io/job-tracking`
 * finalizer from pods that no running Job will count any more, so they can be deleted: pods
 * whose Job is gone or finished, and orphans. Pods of a Job managed by another controller
 * (`spec.managedBy`) and pods controlled by anything but a Job are left alone.
 */
export function jobOrphanPodController(ctx: ClusterContext): Controller {
  const jobs = ctx.factory.batchV1.jobs();
  const pods = ctx.factory.coreV1.pods();
  ensureControllerRefIndexes(pods.informer);
  const client = ctx.clientset("kube-controller-manager").coreV1;
  const getJob = (namespace: string, name: string): Job | undefined => {
    try {
      return jobs.lister.jobs(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  /** Whether the pod's tracking finalizer may go (syncOrphanPod's checks). */
  const releasable = (pod: Pod): boolean => {
    if (!hasJobTrackingFinalizer(pod)) return false;
    const job = owningJob(pod, getJob);
    if (job === "other") return false;
    if (job === undefined) return true;
    const managedBy = job.spec?.managedBy;
    if (managedBy !== undefined && managedBy !== JOB_CONTROLLER_MANAGER) return false;
    return isJobFinished(job);
  };

  const reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const { namespace, name } = splitKey(key);
    let pod: Pod;
    try {
      pod = pods.lister.pods(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!releasable(pod)) return;
    try {
      await client
        .pods(namespace)
        .patch(name, PatchTypes.strategicMerge, REMOVE_JOB_TRACKING_FINALIZER_PATCH, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  };

  const controller = new Controller({
    name: "job-orphan-pod",
    workers: 1,
    reconcile,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  controller.watch(pods.informer, {
    map: (pod) => (releasable(pod) ? [keyOf(pod)] : []),
  });
  // A Job that finished or went away releases the pods it still tracks.
  controller.watch(jobs.informer, {
    map: (job) => {
      const live = getJob(namespaceOf(job), nameOf(job));
      if (live?.metadata?.uid === job.metadata?.uid && live !== undefined && !isJobFinished(live)) {
        return [];
      }
      return controlledBy(pods.informer, job.metadata?.uid ?? "")
        .filter(hasJobTrackingFinalizer)
        .map((pod) => keyOf(pod));
    },
  });
  return controller;
}
