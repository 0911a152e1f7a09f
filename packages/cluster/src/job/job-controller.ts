/**
 * kube-controller-manager's `job` controller (`pkg/controller/job/job_controller.go`) and the
 * `ttl-after-finished` controller that deletes finished Jobs
 * (`pkg/controller/ttlafterfinished`), written with kubekit's Controller toolkit.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { LabelSelector, type ReconcileResult, type Runnable } from "kubekit";
import type { ClusterContext } from "../cluster-context.js";
import { ensureControllerRefIndexes } from "../controller-support/controller-ref-index.js";
import { jobOrphanPodController } from "./job-orphan-pod-controller.js";
import { PodFailureBackoffStore } from "./job-pod-failure-backoff.js";
import { JobSync, jobBehaviourOf } from "./job-sync.js";
import { orphanAdopterKeys } from "../controller-support/orphan-adopters.js";
import { ownerController } from "../controller-support/owner-controller.js";
import { OwnWrites } from "../controller-support/own-writes.js";
import { requeueOnConflict } from "../controller-support/requeue-on-conflict.js";
import { ttlAfterFinishedController } from "./ttl-after-finished-controller.js";

/** kube-controller-manager's `--concurrent-job-syncs` default. */
const JOB_WORKERS = 5;

/**
 * The simulated cluster's Job controllers: `job` (pods from the template until `completions`
 * pods succeeded, `parallelism` at a time; failed pods replaced after the pod-failure back-off
 * until `backoffLimit`; `activeDeadlineSeconds`, `suspend`, Indexed completion; terminated
 * pods counted through the `batch.kubernetes.io/job-tracking` finalizer and
 * `status.uncountedTerminatedPods`; the Job's conditions and Events as
 * kube-controller-manager of the server's minor version writes them), the finalizer clean-up
 * of pods whose Job is gone or finished, and `ttl-after-finished`. Every delay runs on the
 * cluster's clock.
 *
 * Level-triggered: each sync reads the Job and its pods from the shared informers and, after
 * writing, waits until those caches have observed its writes (instead of kube's
 * expectations); status writes carry the resourceVersion read, so a sync from a stale cache
 * fails with a Conflict and is retried rather than counting a pod twice.
 *
 * Caveats (what kube's Job controller does that this one does not): `podFailurePolicy` rules
 * are not evaluated (failed pods count against `backoffLimit`), nor are `successPolicy`,
 * `backoffLimitPerIndex` and `maxFailedIndexes` (`status.failedIndexes` is never written);
 * pod events are not coalesced (kube waits 1 s). While replacements wait out the back-off,
 * `status.active` keeps counting the Job's running pods (kube writes 0 then).
 */
export function jobController(ctx: ClusterContext): Runnable {
  const jobs = ctx.factory.batchV1.jobs();
  const pods = ctx.factory.coreV1.pods();
  ensureControllerRefIndexes(pods.informer);
  const sync = new JobSync({
    client: ctx.clientset("kube-controller-manager"),
    jobs,
    pods,
    recorder: ctx.recorder("job-controller", "kube-controller-manager"),
    logger: ctx.logger,
    now: () => ctx.clock.now(),
    backoff: new PodFailureBackoffStore(),
    behaviour: jobBehaviourOf(Number(ctx.settings.kubernetesMinor)),
  });

  const reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const writes = new OwnWrites();
    const conflictRequeue = { controller: "job", key, writes, signal, logger: ctx.logger };
    return requeueOnConflict(conflictRequeue, async () => {
      const result = await sync.sync(key, writes, signal);
      return (await writes.observed(signal)) ? result : { requeue: true };
    });
  };

  /** The Jobs in the orphan pod's namespace whose selector matches it (getPodJobs): they may adopt it. */
  const adoptersOf = (pod: Pod): string[] =>
    orphanAdopterKeys(
      pod,
      (namespace: string) => jobs.lister.jobs(namespace).list(),
      (job) => LabelSelector.fromLabelSelector(job.spec?.selector ?? {}),
    );

  const controller = ownerController(ctx, {
    name: "job",
    workers: JOB_WORKERS,
    reconcile,
    owners: jobs.informer,
    ownerKind: { group: "batch", kind: "Job" },
    owned: [pods.informer],
  });
  controller.watch(pods.informer, { map: adoptersOf });

  const components = [controller, jobOrphanPodController(ctx), ttlAfterFinishedController(ctx)];
  return {
    run: async (signal) => {
      await Promise.all(components.map((c) => c.run(signal)));
    },
  };
}
