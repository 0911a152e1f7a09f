/**
 * core/v1 Pods (`pkg/registry/core/pod/strategy.go`), defaulted by SetDefaults_Pod and
 * SetDefaults_PodSpec (`pkg/apis/core/v1/defaults.go`; the PodSpec part in `pod-spec.ts`) and
 * validated by ValidatePodCreate / ValidatePodUpdate (`pkg/apis/core/validation/validation.go`),
 * whose update rule leaves only a few spec fields mutable; served with the log, eviction and
 * binding subresources.
 *
 * @kind Pod
 * @defaults restartPolicy Always, dnsPolicy ClusterFirst, terminationGracePeriodSeconds 30,
 * schedulerName default-scheduler, securityContext {}, enableServiceLinks true; containers:
 * imagePullPolicy by tag (Always for `:latest` or no tag, else IfNotPresent),
 * terminationMessagePath /dev/termination-log, terminationMessagePolicy File, port protocol TCP;
 * status Pending with qosClass BestEffort on create
 * @validation containers required; names (of init containers too) required, DNS-1123 label,
 * unique; image required, without leading or trailing whitespace; supported imagePullPolicy,
 * restartPolicy, dnsPolicy; containerPort required and 1–65535, hostPort range, protocol SCTP, TCP
 * or UDP, unique IANA port names
 * @update spec immutable except images, activeDeadlineSeconds, added tolerations, and a negative
 * terminationGracePeriodSeconds set to 1; binding sets nodeName
 * @delete graceful: kept with deletionTimestamp now + the grace period (DeleteOptions'
 * gracePeriodSeconds, else terminationGracePeriodSeconds) for the kubelet to remove; removed at
 * once when not bound to a node, bound to a Node that does not exist, or Succeeded / Failed; a
 * later delete may only shorten a pending period
 */
import type { FieldError, JsonObject } from "kubekit";
import { fieldForbidden, deepEqual, formatTime } from "kubekit/apimachinery";
import { podPrinter } from "../table/builtin-table-printers.js";
import { selectableFields, valueAt } from "../registry/resource-policy.js";
import type { DeleteContext, DeleteDecision, KindStrategy } from "./kind-strategy.js";
import { NODE_STORAGE_ID } from "./node.js";
import { defaultPodSpec, objectAt, validatePodSpec } from "./pod-spec.js";
import {
  ephemeralContainersRules,
  validateNoEphemeralContainersOnCreate,
} from "./pod-ephemeral-containers.js";

/** The storage id of core/v1 Pods. */
export const POD_STORAGE_ID = "/pods";

/** ValidatePodUpdate's text naming the spec fields an update may change. */
const POD_UPDATE_FORBIDDEN =
  "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/** A spec with the fields an update may change replaced by the old spec's. */
function withoutMutableFields(spec: JsonObject, old: JsonObject): JsonObject {
  const out: JsonObject = { ...spec };
  for (const key of ["containers", "initContainers"]) {
    const list = out[key];
    const before = old[key];
    if (!Array.isArray(list) || !Array.isArray(before)) continue;
    out[key] = list.map((c, i) => {
      const prev = before[i];
      if (typeof c !== "object" || c === null || Array.isArray(c)) return c;
      if (typeof prev !== "object" || prev === null || Array.isArray(prev)) return c;
      return { ...c, image: prev["image"] ?? null };
    });
  }
  if (out["activeDeadlineSeconds"] !== undefined || old["activeDeadlineSeconds"] !== undefined) {
    if (old["activeDeadlineSeconds"] === undefined) delete out["activeDeadlineSeconds"];
    else out["activeDeadlineSeconds"] = old["activeDeadlineSeconds"];
  }
  // Tolerations may only be added to: the old ones must all still be there.
  const tolerations = Array.isArray(out["tolerations"]) ? out["tolerations"] : [];
  const oldTolerations = Array.isArray(old["tolerations"]) ? old["tolerations"] : [];
  if (oldTolerations.every((t) => tolerations.some((n) => deepEqual(n, t)))) {
    if (old["tolerations"] === undefined) delete out["tolerations"];
    else out["tolerations"] = old["tolerations"];
  }
  // The grace period may only go from a negative value to 1.
  const grace = old["terminationGracePeriodSeconds"];
  if (typeof grace === "number" && grace < 0 && out["terminationGracePeriodSeconds"] === 1) {
    out["terminationGracePeriodSeconds"] = grace;
  }
  return out;
}

/**
 * ValidatePodUpdate's spec rule: only container and init container images,
 * activeDeadlineSeconds, tolerations and terminationGracePeriodSeconds may change (kube
 * appends a Go diff of the specs to the message, which is left out here). Tolerations may
 * only be added to; a negative grace period may only become 1.
 */
function validatePodSpecUpdate(next: JsonObject, old: JsonObject): FieldError[] {
  const spec = objectAt(next, "spec");
  const oldSpec = objectAt(old, "spec");
  if (deepEqual(withoutMutableFields(spec, oldSpec), oldSpec)) return [];
  return [fieldForbidden("spec", POD_UPDATE_FORBIDDEN)];
}

function defaultPod(obj: JsonObject): JsonObject {
  const spec = defaultPodSpec(objectAt(obj, "spec"));
  if (spec["enableServiceLinks"] === undefined || spec["enableServiceLinks"] === null)
    spec["enableServiceLinks"] = true;
  return { ...obj, spec };
}

/** The field selectors of Pods (`pkg/registry/core/pod/strategy.go` PodToSelectableFields). */
const POD_FIELDS: Record<string, (obj: JsonObject) => string> = {
  ...selectableFields(
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  ),
  "spec.host": (o) => String(valueAt(o, "spec.nodeName") ?? ""),
  "spec.hostNetwork": (o) => (valueAt(o, "spec.hostNetwork") === true ? "true" : "false"),
  "status.podIPs": (o) => {
    const ips = valueAt(o, "status.podIPs");
    return Array.isArray(ips)
      ? ips.map((ip) => String((ip as JsonObject)["ip"] ?? "")).join(",")
      : "";
  },
};

/**
 * Graceful deletion (`pkg/registry/core/pod/strategy.go` CheckGracefulDelete, and
 * `staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go` BeforeDelete): the period is
 * DeleteOptions' gracePeriodSeconds, else the pod's terminationGracePeriodSeconds (30); it is 0
 * for a pod not bound to a node or already terminated; and for a pod bound to a Node that does
 * not exist, which no kubelet will ever stop (kube's pod garbage collector,
 * `pkg/controller/podgc`, force-deletes such pods). A positive period keeps the pod with
 * `deletionTimestamp` = now + period and `deletionGracePeriodSeconds` = period, for the kubelet
 * to stop its containers and remove it; a later delete may only shorten a pending period.
 */
function gracefulDelete(existing: JsonObject, context: DeleteContext): DeleteDecision {
  const spec = objectAt(existing, "spec");
  const phase = objectAt(existing, "status")["phase"];
  const podGrace = spec["terminationGracePeriodSeconds"];
  let period = context.gracePeriodSeconds ?? (typeof podGrace === "number" ? podGrace : 30);
  const node = spec["nodeName"];
  if (typeof node !== "string" || node === "") period = 0;
  else if (context.storage.get(NODE_STORAGE_ID, node) === undefined) period = 0;
  if (phase === "Succeeded" || phase === "Failed") period = 0;
  if (period <= 0) return {};
  const meta = objectAt(existing, "metadata");
  const pending = meta["deletionGracePeriodSeconds"];
  if (meta["deletionTimestamp"] !== undefined && typeof pending === "number" && pending <= period) {
    return { terminate: existing };
  }
  return {
    terminate: {
      ...existing,
      metadata: {
        ...meta,
        deletionTimestamp: formatTime(context.nowMs + period * 1000),
        deletionGracePeriodSeconds: period,
      },
    },
  };
}

/** The Pod strategy. */
export const podStrategy: KindStrategy = {
  policy: { tracksGeneration: true, deleteReturnsObject: true, selectableFields: POD_FIELDS },
  prepareForCreate: (obj) => ({ ...obj, status: { phase: "Pending", qosClass: "BestEffort" } }),
  applyDefaults: defaultPod,
  validateCreate: (obj) => [
    ...validatePodSpec(objectAt(obj, "spec"), "spec"),
    ...validateNoEphemeralContainersOnCreate(objectAt(obj, "spec")),
  ],
  validateUpdate: (next, old) => [
    ...validatePodSpec(objectAt(next, "spec"), "spec"),
    ...validatePodSpecUpdate(next, old),
  ],
  specSubresources: {
    ephemeralcontainers: ephemeralContainersRules((spec) => validatePodSpec(spec, "spec")),
  },
  printer: podPrinter,
  beforeDelete: gracefulDelete,
};
