/**
 * `POST pods/NAME/eviction` as kube-apiserver's EvictionREST
 * (`pkg/registry/core/pod/storage/eviction.go`) answers it: a pod that is terminal, pending or
 * already being deleted is deleted at once; otherwise the one PodDisruptionBudget whose
 * selector matches the pod must allow a disruption, which the eviction consumes
 * (`status.disruptionsAllowed` decremented and the pod recorded in `status.disruptedPods`)
 * before the pod is deleted.
 */
import {
  type JsonObject,
  newBadRequest,
  newForbidden,
  newStatusError,
  newTooManyRequests,
  LabelSelector,
  type LabelSelectorSpec,
  type StatusError,
} from "kubekit";
import { formatTime, isJsonObject, metadataOf } from "kubekit/apimachinery";
import { decodeObjectBody, readBody } from "../encoding/request-body.js";
import type { ResourceEntry } from "../registry/registry.js";
import type { ServerContext } from "../server/server-context.js";
import { ResourceOperations, type DeleteRequestOptions } from "../store/resource-operations.js";
import { sendJson } from "./responses.js";
import type { VerbRequest } from "./verb-request.js";
import { parseDeleteOptions } from "./write-options.js";

/** The PodDisruptionBudgets' storage. */
const PDB_STORAGE_ID = "policy/poddisruptionbudgets";
/** kube's MaxDisruptedPodSize: past it, evictions wait for the disruption controller. */
const MAX_DISRUPTED_POD_SIZE = 2000;
/** The message of every eviction a budget refuses (`eviction.go`). */
export const EVICTION_REFUSED_MESSAGE =
  "Cannot evict pod as it would violate the pod's disruption budget.";
/** The 500 answer for a pod covered by several budgets (`eviction.go`). */
export const MULTIPLE_BUDGETS_MESSAGE =
  "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.";

function objectAt(obj: JsonObject, key: string): JsonObject {
  const value = obj[key];
  return isJsonObject(value) ? value : {};
}

function numberAt(obj: JsonObject, key: string): number {
  const value = obj[key];
  return typeof value === "number" ? value : 0;
}

/** `IsPodReady`: the pod's Ready condition is True. */
function isPodReady(pod: JsonObject): boolean {
  const conditions = objectAt(pod, "status")["conditions"];
  return (
    Array.isArray(conditions) &&
    conditions.some((c) => isJsonObject(c) && c["type"] === "Ready" && c["status"] === "True")
  );
}

/** `canIgnorePDB`: terminal and pending pods, and pods being deleted, are deleted directly. */
function canIgnoreBudget(pod: JsonObject): boolean {
  const phase = objectAt(pod, "status")["phase"];
  return (
    phase === "Succeeded" ||
    phase === "Failed" ||
    phase === "Pending" ||
    metadataOf(pod)?.["deletionTimestamp"] !== undefined
  );
}

/** `getPodDisruptionBudgets`: the budgets of the pod's namespace whose selector matches it (policy/v1: `{}` matches all). */
function budgetsOf(ctx: ServerContext, pod: JsonObject, namespace: string): JsonObject[] {
  const labels = (metadataOf(pod)?.["labels"] ?? {}) as Record<string, string>;
  const out: JsonObject[] = [];
  for (const [, pdb] of ctx.storage.withPrefix(PDB_STORAGE_ID, `${namespace}/`)) {
    let selector: LabelSelector;
    try {
      selector = LabelSelector.fromLabelSelector(
        objectAt(pdb, "spec")["selector"] as LabelSelectorSpec | null | undefined,
      );
    } catch {
      continue;
    }
    if (selector.matches(labels)) out.push(pdb);
  }
  return out;
}

/** A 429 refusal with the `DisruptionBudget` cause. */
function refused(retryAfterSeconds: number, causeMessage: string): StatusError {
  const err = newTooManyRequests(EVICTION_REFUSED_MESSAGE, retryAfterSeconds);
  err.status.details = {
    ...err.status.details,
    causes: [{ reason: "DisruptionBudget", message: causeMessage }],
  };
  return err;
}

/**
 * `checkAndDecrement`: refuses the eviction while the budget's status is stale or allows no
 * disruption, otherwise decrements `disruptionsAllowed` and records the pod in
 * `disruptedPods` (skipped on dry run), through the PodDisruptionBudget's status.
 */
function checkAndDecrement(
  ctx: ServerContext,
  pdb: JsonObject,
  podName: string,
  dryRun: boolean,
): void {
  const meta = metadataOf(pdb) ?? {};
  const name = String(meta["name"] ?? "");
  const status = objectAt(pdb, "status");
  const gr = { group: "policy", resource: "poddisruptionbudget" };
  if (numberAt(status, "observedGeneration") < numberAt(meta, "generation")) {
    throw refused(10, `The disruption budget ${name} is still being processed by the server.`);
  }
  const allowed = numberAt(status, "disruptionsAllowed");
  if (allowed < 0) throw newForbidden(gr, name, "pdb disruptions allowed is negative");
  const disrupted = objectAt(status, "disruptedPods");
  if (Object.keys(disrupted).length > MAX_DISRUPTED_POD_SIZE) {
    throw newForbidden(
      gr,
      name,
      "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
    );
  }
  if (allowed === 0) {
    throw refused(
      0,
      `The disruption budget ${name} needs ${numberAt(status, "desiredHealthy")} healthy pods and has ${numberAt(status, "currentHealthy")} currently`,
    );
  }
  if (dryRun) return;
  const now = formatTime(ctx.clock.now());
  let conditions = Array.isArray(status["conditions"]) ? status["conditions"] : [];
  if (allowed - 1 === 0) {
    // pdbhelper.UpdateDisruptionAllowedCondition: the budget now allows no disruption.
    conditions = conditions.map((c) =>
      isJsonObject(c) && c["type"] === "DisruptionAllowed" && c["status"] !== "False"
        ? { ...c, status: "False", reason: "InsufficientPods", lastTransitionTime: now }
        : c,
    );
  }
  const entry = ctx.registry.lookup("policy", "v1", "poddisruptionbudgets") as ResourceEntry;
  // The read and this write happen in one synchronous step: no conflict can come between them.
  new ResourceOperations(ctx).update(
    entry,
    String(meta["namespace"] ?? ""),
    name,
    {
      ...pdb,
      status: {
        ...status,
        disruptionsAllowed: allowed - 1,
        disruptedPods: { ...disrupted, [podName]: now },
        conditions,
      },
    },
    {
      dryRun: false,
      fieldManager: "kube-apiserver",
      fieldValidation: "Ignore",
      warnings: [],
      subresource: "status",
      isPatch: true,
    },
  );
}

/**
 * `addConditionAndDeletePod`: marks the pod `DisruptionTarget` (reason
 * `EvictionByEvictionAPI`), as kube does since PodDisruptionConditions, then deletes it.
 */
function markAndDelete(
  ctx: ServerContext,
  entry: ResourceEntry,
  pod: JsonObject,
  namespace: string,
  name: string,
  options: DeleteRequestOptions,
): void {
  const ops = new ResourceOperations(ctx);
  if (!options.dryRun) {
    const status = objectAt(pod, "status");
    const conditions = (Array.isArray(status["conditions"]) ? status["conditions"] : []).filter(
      (c) => !isJsonObject(c) || c["type"] !== "DisruptionTarget",
    );
    ops.update(
      entry,
      namespace,
      name,
      {
        ...pod,
        status: {
          ...status,
          conditions: [
            ...conditions,
            {
              type: "DisruptionTarget",
              status: "True",
              lastProbeTime: null,
              lastTransitionTime: formatTime(ctx.clock.now()),
              reason: "EvictionByEvictionAPI",
              message: "Eviction API: evicting",
            },
          ],
        },
      },
      {
        dryRun: false,
        fieldManager: "kube-apiserver",
        fieldValidation: "Ignore",
        warnings: [],
        subresource: "status",
        isPatch: true,
      },
    );
  }
  ops.delete(entry, namespace, name, options);
}

/**
 * `POST pods/NAME/eviction`: answers 201 with a Success Status once the pod is deleted; 429
 * TooManyRequests (cause `DisruptionBudget`) when its budget allows no disruption now, 500
 * when several budgets cover the pod. An unready pod is evicted without consuming a
 * disruption when its budget's `unhealthyPodEvictionPolicy` is `AlwaysAllow`, or (the default
 * `IfHealthyBudget`) when the budget is healthy (`currentHealthy >= desiredHealthy > 0`).
 */
export async function handleEviction(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, name, req, res } = request;
  const body = decodeObjectBody(req.headers["content-type"], await readBody(req, ctx));
  const eviction = isJsonObject(body) ? body : {};
  const evictedName = metadataOf(eviction)?.["name"];
  if (typeof evictedName === "string" && evictedName !== "" && evictedName !== name) {
    throw newBadRequest(`name in URL does not match name in Eviction object`);
  }
  const options = parseDeleteOptions(
    new URLSearchParams(),
    Buffer.from(JSON.stringify(objectAt(eviction, "deleteOptions"))),
  );
  const pod = new ResourceOperations(ctx).getExisting(entry, namespace, name);
  const success = (): void =>
    sendJson(res, 201, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      code: 201,
    });
  if (canIgnoreBudget(pod)) {
    markAndDelete(ctx, entry, pod, namespace, name, options);
    return success();
  }
  const budgets = budgetsOf(ctx, pod, namespace);
  if (budgets.length > 1) throw newStatusError(500, "", MULTIPLE_BUDGETS_MESSAGE);
  const [pdb] = budgets;
  if (pdb !== undefined) {
    const spec = objectAt(pdb, "spec");
    const status = objectAt(pdb, "status");
    const ready = isPodReady(pod);
    const healthyBudget =
      numberAt(status, "currentHealthy") >= numberAt(status, "desiredHealthy") &&
      numberAt(status, "desiredHealthy") > 0;
    const unhealthyMayGo =
      !ready && (spec["unhealthyPodEvictionPolicy"] === "AlwaysAllow" || healthyBudget);
    if (!unhealthyMayGo) checkAndDecrement(ctx, pdb, name, options.dryRun);
  }
  markAndDelete(ctx, entry, pod, namespace, name, options);
  success();
}
