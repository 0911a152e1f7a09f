import { type JsonObject, newBadRequest } from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";
import { ResourceOperations } from "../store/resource-operations.js";
import type { VerbRequest } from "../endpoints/verb-request.js";

/** The container specs of a pod: init, regular and ephemeral containers, in that order. */
export function podContainers(pod: JsonObject): JsonObject[] {
  const spec = isJsonObject(pod["spec"]) ? pod["spec"] : {};
  const list = (key: string): JsonObject[] =>
    Array.isArray(spec[key]) ? spec[key].filter((c): c is JsonObject => isJsonObject(c)) : [];
  return [...list("initContainers"), ...list("containers"), ...list("ephemeralContainers")];
}

/**
 * The container an exec or attach request addresses, validated as kube-apiserver's
 * `validateContainer` does (`pkg/registry/core/pod/strategy.go`): an empty name means the
 * only container (400 when there are none or several, naming them); a given name must be one
 * of the pod's init, regular or ephemeral containers (400 `container X is not valid for pod P`).
 */
export function validateStreamContainer(pod: JsonObject, requested: string): JsonObject {
  const name = String(metadataOf(pod)?.["name"] ?? "");
  const all = podContainers(pod);
  if (requested === "") {
    const spec = isJsonObject(pod["spec"]) ? pod["spec"] : {};
    const main = Array.isArray(spec["containers"]) ? spec["containers"].filter(isJsonObject) : [];
    if (main.length === 1) return main[0]!;
    if (main.length === 0)
      throw newBadRequest(`a container name must be specified for pod ${name}`);
    // Go's %s of a []string: `[a b c]`.
    const names = all.map((c) => String(c["name"] ?? "")).join(" ");
    throw newBadRequest(
      `a container name must be specified for pod ${name}, choose one of: [${names}]`,
    );
  }
  const found = all.find((c) => c["name"] === requested);
  if (!found) throw newBadRequest(`container ${requested} is not valid for pod ${name}`);
  return found;
}

/**
 * kube-apiserver's check that a pod is bound before anything is streamed from its node
 * (`streamLocation` and `PortForwardLocation` in `pkg/registry/core/pod/strategy.go`):
 * 400 `pod P does not have a host assigned`.
 */
export function requireHostAssigned(pod: JsonObject): void {
  const spec = isJsonObject(pod["spec"]) ? pod["spec"] : {};
  if (typeof spec["nodeName"] === "string" && spec["nodeName"] !== "") return;
  const name = String(metadataOf(pod)?.["name"] ?? "");
  throw newBadRequest(`pod ${name} does not have a host assigned`);
}

/**
 * Whether the kubelet would find `container` running: the pod is `Running` and the
 * container's status, when the pod reports one, is in state `running`. A pod made Running
 * by hand without container statuses counts as running. The kubelet's exec and attach find
 * only running containers (`findContainer` in `pkg/kubelet/kubelet_pods.go`).
 */
export function isContainerRunning(pod: JsonObject, container: string): boolean {
  const status = isJsonObject(pod["status"]) ? pod["status"] : {};
  if (status["phase"] !== "Running") return false;
  const statuses = [
    ...(Array.isArray(status["initContainerStatuses"]) ? status["initContainerStatuses"] : []),
    ...(Array.isArray(status["containerStatuses"]) ? status["containerStatuses"] : []),
    ...(Array.isArray(status["ephemeralContainerStatuses"])
      ? status["ephemeralContainerStatuses"]
      : []),
  ].filter(isJsonObject);
  const own = statuses.find((s) => s["name"] === container);
  if (!own) return true;
  return isJsonObject(own["state"]) && isJsonObject(own["state"]["running"]);
}

/**
 * `GET`/`POST pods/NAME/{exec,attach,portforward}` without an upgrade: kube-apiserver first
 * resolves the target (404 for a missing pod; for exec and attach the container; a bound
 * node), then its upgrade-aware proxy refuses the plain request with 400 `Upgrade request
 * required` (`UpgradeAwareHandler.ServeHTTP`, `staging/src/k8s.io/apimachinery/pkg/util/proxy`).
 */
export function handleUpgradeRequired(request: VerbRequest): void {
  const { ctx, entry, namespace, name, query, subresource } = request;
  const pod = new ResourceOperations(ctx).getExisting(entry, namespace, name);
  if (subresource !== "portforward") validateStreamContainer(pod, query.get("container") ?? "");
  requireHostAssigned(pod);
  throw newBadRequest("Upgrade request required");
}
