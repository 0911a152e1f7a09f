/**
 * The stable identity of a StatefulSet's pods (`pkg/controller/statefulset/stateful_set_utils.go`):
 * pod `<set>-<ordinal>` with hostname and subdomain (the governing Service), the pod-name and
 * pod-index labels, the revision label, and one PersistentVolumeClaim
 * `<claim>-<set>-<ordinal>` per volumeClaimTemplate mounted as the template's volume.
 */
import type { StatefulSet } from "kubernetes-types/apps/v1.js";
import { nameOf } from "kubekit/apimachinery";
import type {
  PersistentVolumeClaim,
  Pod,
  PodTemplateSpec,
  Volume,
} from "kubernetes-types/core/v1.js";
import { CONTROLLER_REVISION_HASH_LABEL } from "../controller-support/controller-revisions.js";
import { podFromTemplate } from "../controller-support/pod-template.js";
import { APPS_V1 } from "../controller-support/api-versions.js";

/** The label holding a StatefulSet pod's own name (`apps/v1` StatefulSetPodNameLabel). */
export const STATEFUL_SET_POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";

/** The label holding a pod's ordinal (`apps/v1` PodIndexLabel, on by default since 1.28). */
export const POD_INDEX_LABEL = "apps.kubernetes.io/pod-index";

const STATEFUL_POD_NAME = /^(.*)-([0-9]+)$/;

/** Go's int32 bound: kube's ParseInt(…, 10, 32) rejects larger ordinals. */
const MAX_ORDINAL = 2 ** 31 - 1;

/**
 * The ordinal in a pod's name `<parent>-<ordinal>`, or -1 when the name has none
 * (`getParentNameAndOrdinal`).
 */
export function ordinalOf(pod: Pod): number {
  const match = STATEFUL_POD_NAME.exec(nameOf(pod));
  if (match === null) return -1;
  const ordinal = Number(match[2]);
  return ordinal <= MAX_ORDINAL ? ordinal : -1;
}

/** Whether the pod's name makes it a member of `set`: `<set name>-<ordinal>` (`isMemberOf`). */
export function isMemberOf(set: StatefulSet, pod: Pod): boolean {
  const match = STATEFUL_POD_NAME.exec(nameOf(pod));
  return match !== null && match[1] === set.metadata?.name;
}

/** The name of the set's pod with `ordinal`. */
export function statefulPodName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata?.name}-${ordinal}`;
}

/** The name of the claim of `claimTemplate` for the pod with `ordinal`: `<claim>-<set>-<ordinal>`. */
export function claimName(set: StatefulSet, claimTemplate: string, ordinal: number): string {
  return `${claimTemplate}-${set.metadata?.name}-${ordinal}`;
}

/**
 * The PersistentVolumeClaims of the pod with `ordinal` (`getPersistentVolumeClaims`): each
 * volumeClaimTemplate named for the pod, in the set's namespace, with the template's labels
 * and the set selector's `matchLabels`. Status is left to the API server.
 */
export function claimsFor(set: StatefulSet, ordinal: number): PersistentVolumeClaim[] {
  const selectorLabels = set.spec?.selector?.matchLabels ?? {};
  return (set.spec?.volumeClaimTemplates ?? []).map((template) => {
    const { status: _status, ...claim } = structuredClone(template);
    return {
      ...claim,
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: {
        ...(claim.metadata ?? {}),
        name: claimName(set, nameOf(template), ordinal),
        namespace: set.metadata?.namespace ?? "default",
        labels: { ...(claim.metadata?.labels ?? {}), ...selectorLabels },
      },
    };
  });
}

/**
 * A new pod of `set` with `ordinal`, made from `template` (the template of the revision the
 * pod belongs to: `newVersionedStatefulSetPod`): controlled by the set, named
 * `<set>-<ordinal>`, with hostname = its name and subdomain = `spec.serviceName`, the labels
 * `controller-revision-hash` (the revision's name), pod-name and pod-index, and one volume per
 * claim template referencing the pod's claim, before the template's other volumes.
 */
export function newStatefulPod(
  set: StatefulSet,
  template: PodTemplateSpec | undefined,
  ordinal: number,
  revisionName: string,
): Pod {
  const name = statefulPodName(set, ordinal);
  const pod = podFromTemplate(
    template,
    { apiVersion: APPS_V1, kind: "StatefulSet", object: set },
    {
      name,
      labels: {
        [CONTROLLER_REVISION_HASH_LABEL]: revisionName,
        [STATEFUL_SET_POD_NAME_LABEL]: name,
        [POD_INDEX_LABEL]: String(ordinal),
      },
    },
  );
  const spec = pod.spec ?? { containers: [] };
  const claimVolumes: Volume[] = (set.spec?.volumeClaimTemplates ?? []).map((claim) => ({
    name: nameOf(claim),
    persistentVolumeClaim: { claimName: claimName(set, nameOf(claim), ordinal) },
  }));
  const claimed = new Set(claimVolumes.map((v) => v.name));
  const volumes = [...claimVolumes, ...(spec.volumes ?? []).filter((v) => !claimed.has(v.name))];
  pod.spec = {
    ...spec,
    hostname: name,
    ...(set.spec?.serviceName ? { subdomain: set.spec.serviceName } : {}),
    ...(volumes.length > 0 ? { volumes } : {}),
  };
  return pod;
}

/**
 * The labels a member pod lacks or has wrong for its identity (`identityMatches` /
 * `updateIdentity`: pod-name and pod-index); empty when its identity is intact. Hostname and
 * subdomain are fixed at creation (a pod's spec is immutable), so only labels are repaired.
 */
export function missingIdentityLabels(pod: Pod): Record<string, string> {
  const name = nameOf(pod);
  const wanted = { [STATEFUL_SET_POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinalOf(pod)) };
  const labels = pod.metadata?.labels ?? {};
  return Object.fromEntries(Object.entries(wanted).filter(([key, value]) => labels[key] !== value));
}

/** The revision a member pod belongs to: its `controller-revision-hash` label (a revision name). */
export function podRevision(pod: Pod): string {
  return pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? "";
}
