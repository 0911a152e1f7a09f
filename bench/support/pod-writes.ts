import type { WriteRequest } from "./http-load.js";
import { makePod, podForCreate, podStatusPatch } from "./pods.js";

/** The User-Agent of pod creates (kube-apiserver derives the field manager from it). */
export const CREATE_AGENT = "kube-controller-manager/v1.32.0 (linux/amd64) kubernetes/bench";
/** The User-Agent of pod status writes. */
export const STATUS_AGENT = "kubelet/v1.32.0 (linux/amd64) kubernetes/bench";
/** The User-Agent of every other benchmark write. */
export const BENCH_AGENT = "kubekit-bench/0.1";

/** The POST creating namespace `name` (expects 201). */
export function namespaceCreateRequest(name: string): WriteRequest {
  return {
    method: "POST",
    path: "/api/v1/namespaces",
    body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name } }),
    contentType: "application/json",
    expectStatus: 201,
    userAgent: BENCH_AGENT,
  };
}

/** The POST creating pod `index` of {@link makePod} over `namespaces`, as a ReplicaSet controller would (expects 201). */
export function podCreateRequest(index: number, namespaces: readonly string[]): WriteRequest {
  const pod = makePod(index, { namespaces });
  return {
    method: "POST",
    path: `/api/v1/namespaces/${pod.metadata?.namespace ?? ""}/pods`,
    body: JSON.stringify(podForCreate(pod)),
    contentType: "application/json",
    expectStatus: 201,
    userAgent: CREATE_AGENT,
  };
}

/** The strategic-merge PATCH of pods/status a kubelet would send for pod `index` (expects 200). */
export function podStatusRequest(index: number, namespaces: readonly string[]): WriteRequest {
  const pod = makePod(index, { namespaces });
  return {
    method: "PATCH",
    path: `/api/v1/namespaces/${pod.metadata?.namespace ?? ""}/pods/${pod.metadata?.name ?? ""}/status`,
    body: JSON.stringify(podStatusPatch(pod)),
    contentType: "application/strategic-merge-patch+json",
    expectStatus: 200,
    userAgent: STATUS_AGENT,
  };
}
