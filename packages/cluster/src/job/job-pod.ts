/**
 * The pods a Job creates (`pkg/controller/job/job_controller.go` manageJob,
 * `indexed_job_utils.go`): the Job's template with the tracking finalizer and a controller
 * reference to the Job; for an Indexed Job also the completion index annotation, label and
 * environment variable, and a hostname and name prefix naming the index.
 */
import type { Job } from "kubernetes-types/batch/v1.js";
import { nameOf } from "kubekit/apimachinery";
import type { Container, Pod, PodTemplateSpec } from "kubernetes-types/core/v1.js";
import { JOB_COMPLETION_INDEX, JOB_COMPLETION_INDEX_ENV } from "./completion-indexes.js";
import { podFromTemplate } from "../controller-support/pod-template.js";
import { BATCH_V1 } from "../controller-support/api-versions.js";

/**
 * The finalizer the Job controller puts on its pods so that a terminated pod is counted in the
 * Job's status before it can be removed (`batch.JobTrackingFinalizer`).
 */
export const JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";

/** Whether the pod carries {@link JOB_TRACKING_FINALIZER}. */
export function hasJobTrackingFinalizer(pod: Pod): boolean {
  return pod.metadata?.finalizers?.includes(JOB_TRACKING_FINALIZER) ?? false;
}

/** The strategic merge patch that removes {@link JOB_TRACKING_FINALIZER} (removeTrackingFinalizerPatch). */
export const REMOVE_JOB_TRACKING_FINALIZER_PATCH = Object.freeze({
  metadata: { [`$deleteFromPrimitiveList/finalizers`]: [JOB_TRACKING_FINALIZER] },
});

/** Adds `JOB_COMPLETION_INDEX` from the index annotation, unless the container defines it. */
function withIndexEnv(container: Container): Container {
  if (container.env?.some((e) => e.name === JOB_COMPLETION_INDEX_ENV)) return container;
  return {
    ...container,
    env: [
      ...(container.env ?? []),
      {
        name: JOB_COMPLETION_INDEX_ENV,
        valueFrom: {
          fieldRef: { fieldPath: `metadata.annotations['${JOB_COMPLETION_INDEX}']` },
        },
      },
    ],
  };
}

/** Options of {@link jobPod}. */
export interface JobPodOptions {
  /** The completion index of an Indexed Job's pod. */
  readonly index?: number;
  /** Whether the index is also a label (kube 1.28+, the PodIndexLabel feature). */
  readonly indexLabel: boolean;
}

/**
 * A pod for `job` (a copy: the Job is not modified). Its template gets
 * {@link JOB_TRACKING_FINALIZER}; with `index`, the pod is named `<job>-<index>-<random>`, has
 * hostname `<job>-<index>`, the index annotation (and label), and every container and init
 * container reads it from `JOB_COMPLETION_INDEX`.
 */
export function jobPod(job: Job, options: JobPodOptions): Pod {
  const name = nameOf(job);
  const source: PodTemplateSpec = job.spec?.template ?? {};
  const finalizers = source.metadata?.finalizers ?? [];
  const template: PodTemplateSpec = {
    ...source,
    metadata: {
      ...source.metadata,
      finalizers: finalizers.includes(JOB_TRACKING_FINALIZER)
        ? finalizers
        : [...finalizers, JOB_TRACKING_FINALIZER],
    },
  };
  const { index } = options;
  if (index !== undefined && template.spec !== undefined) {
    template.spec = {
      ...template.spec,
      hostname: `${name}-${index}`,
      containers: template.spec.containers.map(withIndexEnv),
      ...(template.spec.initContainers !== undefined
        ? { initContainers: template.spec.initContainers.map(withIndexEnv) }
        : {}),
    };
    template.metadata = {
      ...template.metadata,
      annotations: { ...template.metadata?.annotations, [JOB_COMPLETION_INDEX]: String(index) },
    };
  }
  return podFromTemplate(
    template,
    { apiVersion: BATCH_V1, kind: "Job", object: job },
    {
      ...(index !== undefined ? { generateName: `${name}-${index}-` } : {}),
      ...(index !== undefined && options.indexLabel
        ? { labels: { [JOB_COMPLETION_INDEX]: String(index) } }
        : {}),
    },
  );
}
