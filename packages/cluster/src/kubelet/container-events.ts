import type { ObjectReference, Pod } from "kubernetes-types/core/v1.js";
import { nameOf, namespaceOf } from "kubekit/apimachinery";
import type { EventRecorder } from "kubekit";
import type { PodRuntimeHooks, SimulatedContainer } from "./kubelet-pod-runtime.js";

/**
 * The Events the kubelet records as `pod`'s containers go, through `recorder`, with kube's
 * field path (`spec.containers{name}`, `spec.initContainers{name}`, `spec.ephemeralContainers{name}`).
 */
export function containerEventHooks(pod: Pod, recorder: EventRecorder): PodRuntimeHooks {
  const namespace = namespaceOf(pod);
  const name = nameOf(pod);
  const reference = (c: SimulatedContainer): ObjectReference => ({
    apiVersion: "v1",
    kind: "Pod",
    namespace,
    name,
    ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
    fieldPath: `spec.${c.ephemeral ? "ephemeralContainers" : c.init ? "initContainers" : "containers"}{${c.spec.name}}`,
  });
  return {
    // `pkg/kubelet/images/image_manager.go` and `pkg/kubelet/kuberuntime/kuberuntime_container.go` startContainer.
    started: (c) => {
      const ref = reference(c);
      recorder.event(
        ref,
        "Normal",
        "Pulled",
        `Container image "${c.spec.image ?? ""}" already present on machine`,
      );
      recorder.event(ref, "Normal", "Created", `Created container: ${c.spec.name}`);
      recorder.event(ref, "Normal", "Started", `Started container ${c.spec.name}`);
    },
    // `pkg/kubelet/kuberuntime/kuberuntime_manager.go` doBackOff.
    backOff: (c) =>
      recorder.event(
        reference(c),
        "Warning",
        "BackOff",
        `Back-off restarting failed container ${c.spec.name} in pod ${name}_${namespace}(${pod.metadata?.uid ?? ""})`,
      ),
    // `pkg/kubelet/kuberuntime/kuberuntime_container.go` killContainer.
    killing: (c) =>
      recorder.event(reference(c), "Normal", "Killing", `Stopping container ${c.spec.name}`),
  };
}
