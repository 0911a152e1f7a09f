import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import { nameOf } from "kubekit/apimachinery";
import type { Pod, PodTemplateSpec } from "kubernetes-types/core/v1.js";
import { setControllerReference, type ObjectWithMetadata } from "kubekit";

/** The owner of pods made from a template: a workload with its API version and kind. */
export interface PodOwner {
  readonly apiVersion: string;
  readonly kind: string;
  readonly object: ObjectWithMetadata;
}

/** Options of {@link podFromTemplate}. */
export interface PodFromTemplateOptions {
  /** The pod's name (a StatefulSet's ordinal pod); default a `generateName` of `<owner>-`. */
  readonly name?: string;
  /** The `generateName` prefix when there is no `name` (default `<owner name>-`). */
  readonly generateName?: string;
  /** Labels added to the template's (e.g. `pod-template-hash`). */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * A pod for a workload from its template, as kube's controllers make them
 * (`pkg/controller/controller_utils.go` GetPodFromTemplate): the template's labels,
 * annotations, finalizers and spec, the owner's namespace, and a controller owner reference
 * (`controller: true`, `blockOwnerDeletion: true`) to the owner, so the garbage collector
 * deletes the pod with its owner.
 */
export function podFromTemplate(
  template: PodTemplateSpec | undefined,
  owner: PodOwner,
  options: PodFromTemplateOptions = {},
): Pod {
  const source = template?.metadata ?? {};
  const ownerName = nameOf(owner.object);
  const metadata: ObjectMeta = {
    ...(options.name !== undefined
      ? { name: options.name }
      : { generateName: options.generateName ?? `${ownerName}-` }),
    namespace: owner.object.metadata?.namespace ?? "default",
    labels: { ...(source.labels ?? {}), ...(options.labels ?? {}) },
    ...(source.annotations ? { annotations: { ...source.annotations } } : {}),
    ...(source.finalizers ? { finalizers: [...source.finalizers] } : {}),
  };
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata,
    spec: structuredClone(template?.spec ?? { containers: [] }),
  };
  return setControllerReference(owner.object, pod, {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
  });
}
