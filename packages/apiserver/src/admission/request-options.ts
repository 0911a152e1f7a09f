/**
 * The options of a write as kube sends them to webhooks in `AdmissionRequest.options`
 * (`metav1.CreateOptions`, `UpdateOptions`, `DeleteOptions` with their type meta): a PUT or
 * server-side apply that creates sends CreateOptions, a patch UpdateOptions (kube's
 * `patchToUpdateOptions` / `patchToCreateOptions` / `updateToCreateOptions`).
 */
import type { JsonObject } from "kubekit";
import type { DeleteRequestOptions } from "../store/resource-operations.js";
import type { AdmissionOperation } from "./admission-attributes.js";

function typeMeta(kind: string): JsonObject {
  return { kind, apiVersion: "meta.k8s.io/v1" };
}

/**
 * Create/Update options from the request's query: `dryRun`, `fieldManager` and
 * `fieldValidation` as given (CreateOptions for a CREATE, UpdateOptions otherwise).
 */
export function writeOptionsFor(
  query: URLSearchParams,
): (operation: AdmissionOperation) => JsonObject {
  const dryRun = query.getAll("dryRun");
  const fieldManager = query.get("fieldManager");
  const fieldValidation = query.get("fieldValidation");
  return (operation) => ({
    ...typeMeta(operation === "CREATE" ? "CreateOptions" : "UpdateOptions"),
    ...(dryRun.length > 0 ? { dryRun } : {}),
    ...(fieldManager ? { fieldManager } : {}),
    ...(fieldValidation ? { fieldValidation } : {}),
  });
}

/** DeleteOptions as parsed from the request. */
export function deleteOptionsFor(opts: DeleteRequestOptions): () => JsonObject {
  return () => ({
    ...typeMeta("DeleteOptions"),
    ...(opts.gracePeriodSeconds !== undefined
      ? { gracePeriodSeconds: opts.gracePeriodSeconds }
      : {}),
    ...(opts.preconditions ? { preconditions: { ...opts.preconditions } } : {}),
    ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
    ...(opts.dryRun ? { dryRun: ["All"] } : {}),
  });
}
