/**
 * What each resource serves beyond the generic verbs, wired per resource as kube-apiserver's
 * REST storages are (`pkg/registry/core/pod/storage/storage.go` PodStorage{Pod, Binding,
 * Eviction, Status, Log, Exec, Attach, PortForward}; `pkg/registry/core/rest/storage_core.go`):
 * the subresources a resource answers with its own handlers (status and scale are the generic
 * store's), the virtual create of a create-only resource that stores nothing, and the clean-up
 * after one of its objects is removed from storage. The pure rules on objects are the kinds'
 * strategies (`kinds/`), never this table.
 */
import { POD_STORAGE_ID } from "../kinds/pod.js";
import { SERVICE_ACCOUNT_STORAGE_ID } from "../kinds/service-account.js";
import type { JsonObject } from "kubekit";
import { namespaceOf, nameOf } from "kubekit/apimachinery";
import type { ServerContext } from "../server/server-context.js";
import { handleUpgradeRequired } from "../streaming/pod-stream-target.js";
import {
  createAccessReview,
  createSelfSubjectReview,
  createSelfSubjectRulesReview,
} from "./access-reviews.js";
import { handleEviction } from "./pod-eviction.js";
import { handleBinding, handlePodLog } from "./pod-subresources.js";
import { handleTokenRequest } from "./token-request.js";
import { createTokenReview } from "./token-review.js";
import { handleMetricsGet, handleMetricsList } from "../metrics-api/metrics-endpoints.js";
import type { VerbRequest } from "./verb-request.js";

/** The handlers of one subresource a resource serves beyond status and scale, by verb. */
export interface SubresourceHandlers {
  readonly get?: (request: VerbRequest) => void | Promise<void>;
  readonly create?: (request: VerbRequest) => void | Promise<void>;
}

/** One resource's wiring beyond the generic verbs; every part is optional. */
export interface ResourceEndpoints {
  /** Subresources served by the resource's own handlers (pods/log, serviceaccounts/token, …). */
  readonly subresources?: Readonly<Record<string, SubresourceHandlers>>;
  /**
   * Answers POST on the collection of a create-only virtual resource (the access reviews,
   * SelfSubjectReview) in place of the storage path: nothing is stored, listed or watched, and
   * none of the generic write rules (names, generateName, namespace admission) apply unless
   * the handler applies them, as kube-apiserver's own `rest.Creater`s for those resources do.
   */
  readonly virtualCreate?: (request: VerbRequest) => Promise<void>;
  /**
   * Answers GET of one object and of the collection of a read-only resource computed at each
   * read (the metrics API) in place of the storage path.
   */
  readonly virtualRead?: {
    readonly get: (request: VerbRequest) => void;
    readonly list: (request: VerbRequest) => void;
  };
  /** Runs after an object of the resource is removed from storage (pods forget their logs). */
  readonly afterRemoved?: (obj: JsonObject, ctx: ServerContext) => void;
}

/** Streaming subresources answer plain requests here; upgrades go to `streaming/upgrade-handler.ts`. */
const STREAMING: SubresourceHandlers = {
  get: handleUpgradeRequired,
  create: handleUpgradeRequired,
};

/** Pods: log, eviction, binding and the streaming subresources; logs forgotten on removal. */
const POD_ENDPOINTS: ResourceEndpoints = {
  subresources: {
    log: { get: handlePodLog },
    eviction: { create: handleEviction },
    binding: { create: handleBinding },
    exec: STREAMING,
    attach: STREAMING,
    portforward: STREAMING,
  },
  afterRemoved: (obj, ctx) => ctx.podLogs.forget(namespaceOf(obj), nameOf(obj)),
};

const NO_ENDPOINTS: ResourceEndpoints = {};

/** metrics.k8s.io NodeMetrics and PodMetrics: computed at each read. */
const METRICS_ENDPOINTS: ResourceEndpoints = {
  virtualRead: { get: handleMetricsGet, list: handleMetricsList },
};

/** By `group/plural`; every other resource, custom resources included, has {@link NO_ENDPOINTS}. */
const BY_RESOURCE: ReadonlyMap<string, ResourceEndpoints> = new Map([
  [POD_STORAGE_ID, POD_ENDPOINTS],
  [SERVICE_ACCOUNT_STORAGE_ID, { subresources: { token: { create: handleTokenRequest } } }],
  ["authorization.k8s.io/selfsubjectaccessreviews", { virtualCreate: createAccessReview }],
  ["authorization.k8s.io/subjectaccessreviews", { virtualCreate: createAccessReview }],
  ["authorization.k8s.io/localsubjectaccessreviews", { virtualCreate: createAccessReview }],
  ["authorization.k8s.io/selfsubjectrulesreviews", { virtualCreate: createSelfSubjectRulesReview }],
  ["authentication.k8s.io/selfsubjectreviews", { virtualCreate: createSelfSubjectReview }],
  ["authentication.k8s.io/tokenreviews", { virtualCreate: createTokenReview }],
  ["metrics.k8s.io/nodes", METRICS_ENDPOINTS],
  ["metrics.k8s.io/pods", METRICS_ENDPOINTS],
]);

/**
 * The wiring of the resource `group/plural` (any served version); custom resources
 * (`custom` set) have none, even when they reuse a built-in name.
 */
export function endpointsFor(resource: {
  readonly group: string;
  readonly plural: string;
  readonly custom?: unknown;
}): ResourceEndpoints {
  if (resource.custom) return NO_ENDPOINTS;
  return BY_RESOURCE.get(`${resource.group}/${resource.plural}`) ?? NO_ENDPOINTS;
}
