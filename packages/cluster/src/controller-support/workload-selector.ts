import type { LabelSelector as LabelSelectorSpec } from "kubernetes-types/meta/v1.js";
import { LabelSelector } from "kubekit";

/**
 * The parsed `spec.selector` of a workload (Deployment, ReplicaSet, StatefulSet, DaemonSet),
 * or `undefined` when it does not parse or is empty: kube's workload controllers sync
 * neither (an empty selector would select every pod of the namespace), and such a workload
 * adopts nothing.
 */
export function workloadSelector(workload: {
  readonly spec?: { readonly selector?: LabelSelectorSpec };
}): LabelSelector | undefined {
  try {
    const selector = LabelSelector.fromLabelSelector(workload.spec?.selector);
    return selector.isEmpty() ? undefined : selector;
  } catch {
    return undefined;
  }
}
