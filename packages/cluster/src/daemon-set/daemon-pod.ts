/**
 * The pods of a DaemonSet (`pkg/controller/daemon/util/daemonset_util.go`): made from the
 * template with the tolerations kube adds to every daemon pod, pinned to their node by a
 * required node affinity on `metadata.name`, labelled with the template's revision hash and
 * generation.
 */
import type { DaemonSet } from "kubernetes-types/apps/v1.js";
import type { Affinity, Pod, PodSpec, Toleration } from "kubernetes-types/core/v1.js";
import { annotationOf, deepEqual, nameOf } from "kubekit/apimachinery";
import { CONTROLLER_REVISION_HASH_LABEL } from "../controller-support/controller-revisions.js";
import { podFromTemplate } from "../controller-support/pod-template.js";
import { APPS_V1 } from "../controller-support/api-versions.js";

/** The DaemonSet annotation kube-apiserver keeps the template generation in (apps/v1 `DeprecatedTemplateGeneration`). */
export const TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation";

/** The pod label holding the DaemonSet's template generation (`DaemonSetTemplateGenerationKey`). */
export const POD_TEMPLATE_GENERATION_LABEL = "pod-template-generation";

/** The field a node selector term names a node by. */
const NODE_NAME_FIELD = "metadata.name";

/** The DaemonSet's template generation, from its annotation (`GetTemplateGeneration`); undefined without one. */
export function templateGeneration(ds: DaemonSet): string | undefined {
  const value = annotationOf(ds, TEMPLATE_GENERATION_ANNOTATION);
  return value !== undefined && /^-?\d+$/.test(value) ? value : undefined;
}

/**
 * The tolerations kube adds to every daemon pod (`AddOrUpdateDaemonPodTolerations`), in its
 * order: a daemon keeps running on a node that is not ready or unreachable, and is placed
 * on nodes under disk, memory or PID pressure and on cordoned nodes; a host-network daemon
 * also on nodes whose network is unavailable.
 */
function daemonTolerations(spec: PodSpec): Toleration[] {
  const exists = (key: string, effect: string): Toleration => ({
    key: `node.kubernetes.io/${key}`,
    operator: "Exists",
    effect,
  });
  return [
    exists("not-ready", "NoExecute"),
    exists("unreachable", "NoExecute"),
    exists("disk-pressure", "NoSchedule"),
    exists("memory-pressure", "NoSchedule"),
    exists("pid-pressure", "NoSchedule"),
    exists("unschedulable", "NoSchedule"),
    ...(spec.hostNetwork === true ? [exists("network-unavailable", "NoSchedule")] : []),
  ];
}

/**
 * `spec` with the daemon tolerations added (`AddOrUpdateTolerationInPodSpec`): one the spec
 * already has with the same key, operator, value and effect is kept as it is; one that matches
 * on those but differs otherwise (tolerationSeconds) is replaced; the others are appended.
 */
export function withDaemonTolerations(spec: PodSpec): PodSpec {
  const tolerations = [...(spec.tolerations ?? [])];
  for (const wanted of daemonTolerations(spec)) {
    const same = (t: Toleration): boolean =>
      (t.key ?? "") === wanted.key &&
      (t.operator ?? "Equal") === wanted.operator &&
      (t.value ?? "") === "" &&
      (t.effect ?? "") === wanted.effect;
    const at = tolerations.findIndex(same);
    if (at < 0) tolerations.push(wanted);
    else if (!deepEqual(tolerations[at], wanted)) tolerations[at] = wanted;
  }
  return { ...spec, tolerations };
}

/**
 * `affinity` whose required node affinity selects exactly `nodeName`
 * (`ReplaceDaemonSetPodNodeNameNodeAffinity`): its node selector terms are replaced by one
 * term `matchFields: metadata.name In [nodeName]`; preferred terms and pod (anti-)affinity
 * are kept.
 */
function pinnedAffinity(affinity: Affinity | undefined, nodeName: string): Affinity {
  return {
    ...affinity,
    nodeAffinity: {
      ...affinity?.nodeAffinity,
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchFields: [{ key: NODE_NAME_FIELD, operator: "In", values: [nodeName] }] },
        ],
      },
    },
  };
}

/**
 * A new daemon pod of `ds` for `nodeName` (`CreatePodTemplate` and the DaemonSet controller's
 * syncNodes): the template with the daemon tolerations and node affinity pinning it to the
 * node (the scheduler binds it there), labels `controller-revision-hash` (= `hash`) and
 * `pod-template-generation` (when the DaemonSet has a template generation), named
 * `<ds>-<random>`, controlled by the DaemonSet.
 */
export function newDaemonPod(ds: DaemonSet, nodeName: string, hash: string): Pod {
  const generation = templateGeneration(ds);
  const pod = podFromTemplate(
    ds.spec?.template,
    { apiVersion: APPS_V1, kind: "DaemonSet", object: ds },
    {
      labels: {
        ...(generation !== undefined ? { [POD_TEMPLATE_GENERATION_LABEL]: generation } : {}),
        [CONTROLLER_REVISION_HASH_LABEL]: hash,
      },
    },
  );
  const spec = withDaemonTolerations(pod.spec ?? { containers: [] });
  pod.spec = { ...spec, affinity: pinnedAffinity(spec.affinity, nodeName) };
  return pod;
}

/**
 * The node a daemon pod is for (`GetTargetNodeName`): its `spec.nodeName` once bound, else
 * the node its required affinity names with `metadata.name In [node]`; undefined when it
 * names none.
 */
export function targetNodeOf(pod: Pod): string | undefined {
  const bound = pod.spec?.nodeName ?? "";
  if (bound !== "") return bound;
  const terms =
    pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
      ?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const field of term.matchFields ?? []) {
      if (field.key === NODE_NAME_FIELD && field.operator === "In") {
        return field.values?.length === 1 ? field.values[0] : undefined;
      }
    }
  }
  return undefined;
}

/**
 * Whether the pod runs the DaemonSet's current template (`IsPodUpdated`): its
 * `controller-revision-hash` is `hash`, or its `pod-template-generation` is the DaemonSet's
 * template generation.
 */
export function isDaemonPodUpdated(pod: Pod, ds: DaemonSet, hash: string): boolean {
  const labels = pod.metadata?.labels ?? {};
  const generation = templateGeneration(ds);
  return (
    (hash !== "" && labels[CONTROLLER_REVISION_HASH_LABEL] === hash) ||
    (generation !== undefined && labels[POD_TEMPLATE_GENERATION_LABEL] === generation)
  );
}

/**
 * Oldest first, bound pods before unbound ones (`podByCreationTimestampAndPhase`), then by
 * name. Returns a new array.
 */
export function oldestDaemonPodsFirst(pods: readonly Pod[]): Pod[] {
  const bound = (pod: Pod): number => ((pod.spec?.nodeName ?? "") !== "" ? 0 : 1);
  return [...pods].sort(
    (a, b) =>
      bound(a) - bound(b) ||
      (a.metadata?.creationTimestamp ?? "").localeCompare(b.metadata?.creationTimestamp ?? "") ||
      nameOf(a).localeCompare(nameOf(b)),
  );
}
