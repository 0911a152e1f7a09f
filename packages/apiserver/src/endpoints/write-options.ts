import type { IncomingMessage } from "node:http";
import { isJsonObject, fieldInvalid, fieldNotSupported, fieldRequired } from "kubekit/apimachinery";
import { newInvalid, type FieldError } from "kubekit";
import type { FieldValidationMode } from "../schema/field-validation.js";
import { parseJsonBody } from "../encoding/request-body.js";
import type { DeleteRequestOptions, WriteOptions } from "../store/resource-operations.js";

/** The manager kube-apiserver records when no fieldManager is given: the User-Agent up to its first "/". */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const ua = userAgent ?? "";
  return ua.split("/")[0] ?? "";
}

function validateDryRun(values: string[], errors: FieldError[]): boolean {
  if (values.length === 0) return false;
  const bad = values.filter((v) => v !== "All");
  if (bad.length > 0) errors.push(fieldNotSupported("dryRun", bad, ["All"]));
  return true;
}

/**
 * Parses CreateOptions / UpdateOptions / PatchOptions from the query (dryRun, fieldManager,
 * fieldValidation, force), with kube's 422s for invalid values.
 */
export function parseWriteOptions(
  query: URLSearchParams,
  req: IncomingMessage,
  optionsKind: "CreateOptions" | "UpdateOptions" | "PatchOptions",
  isApply: boolean,
): WriteOptions & { readonly force: boolean; readonly fieldManagerGiven: boolean } {
  const errors: FieldError[] = [];
  const dryRun = validateDryRun(query.getAll("dryRun"), errors);
  const manager = query.get("fieldManager");
  if (manager !== null && manager.length > 128) {
    errors.push(fieldInvalid("fieldManager", manager, "must be less than 128 characters"));
  }
  if (isApply && !manager)
    errors.push(fieldRequired("fieldManager", "is required for apply patch"));
  const forceRaw = query.get("force");
  const force = forceRaw === "true" || forceRaw === "1";
  if (forceRaw !== null && !isApply && optionsKind === "PatchOptions") {
    errors.push({
      type: "FieldValueForbidden",
      field: "force",
      detail: "may not be specified for non-apply patch",
    });
  }
  const fv = query.get("fieldValidation") ?? "";
  let fieldValidation: FieldValidationMode = "Warn";
  if (fv === "Ignore" || fv === "Warn" || fv === "Strict") fieldValidation = fv;
  else if (fv !== "")
    errors.push(fieldNotSupported("fieldValidation", fv, ["Ignore", "Warn", "Strict"]));
  if (errors.length > 0) throw newInvalid({ group: "meta.k8s.io", kind: optionsKind }, "", errors);
  return {
    dryRun,
    fieldManager: manager || managerFromUserAgent(req.headers["user-agent"]),
    fieldManagerGiven: Boolean(manager),
    fieldValidation,
    warnings: [],
    force,
  };
}

/**
 * Parses DeleteOptions from a JSON body (when present) and the query, with kube's rules:
 * propagationPolicy values, not together with orphanDependents, dryRun=All.
 */
export function parseDeleteOptions(
  query: URLSearchParams,
  body: Buffer,
): DeleteRequestOptions & { readonly orphanDependents?: boolean } {
  const fromBody =
    body.length > 0 && body.toString("utf8").trim() !== "" ? parseJsonBody(body) : {};
  const b = isJsonObject(fromBody) ? fromBody : {};
  const errors: FieldError[] = [];
  const dryRunValues = query.getAll("dryRun");
  if (Array.isArray(b["dryRun"])) dryRunValues.push(...b["dryRun"].map(String));
  const dryRun = validateDryRun(dryRunValues, errors);
  const policy = (query.get("propagationPolicy") ??
    (typeof b["propagationPolicy"] === "string" ? b["propagationPolicy"] : undefined)) as
    string | undefined;
  if (
    policy !== undefined &&
    policy !== "Orphan" &&
    policy !== "Background" &&
    policy !== "Foreground"
  ) {
    errors.push(
      fieldNotSupported("propagationPolicy", policy, ["Foreground", "Background", "Orphan", "nil"]),
    );
  }
  const orphanRaw =
    query.get("orphanDependents") ??
    (typeof b["orphanDependents"] === "boolean" ? String(b["orphanDependents"]) : null);
  if (orphanRaw !== null && policy !== undefined) {
    errors.push({
      type: "FieldValueInvalid",
      field: "propagationPolicy",
      badValue: policy,
      detail: "orphanDependents and deletionPropagation cannot be both set",
    });
  }
  const graceRaw =
    query.get("gracePeriodSeconds") ??
    (typeof b["gracePeriodSeconds"] === "number" ? String(b["gracePeriodSeconds"]) : null);
  const pre = isJsonObject(b["preconditions"]) ? b["preconditions"] : undefined;
  if (errors.length > 0)
    throw newInvalid({ group: "meta.k8s.io", kind: "DeleteOptions" }, "", errors);
  const orphan = orphanRaw === null ? undefined : orphanRaw === "true";
  const effectivePolicy = policy as DeleteRequestOptions["propagationPolicy"] | undefined;
  return {
    dryRun,
    ...(effectivePolicy
      ? { propagationPolicy: effectivePolicy }
      : orphan === true
        ? { propagationPolicy: "Orphan" as const }
        : {}),
    ...(graceRaw !== null ? { gracePeriodSeconds: Math.max(0, Number(graceRaw)) } : {}),
    ...(pre
      ? {
          preconditions: {
            ...(typeof pre["uid"] === "string" ? { uid: pre["uid"] } : {}),
            ...(typeof pre["resourceVersion"] === "string"
              ? { resourceVersion: pre["resourceVersion"] }
              : {}),
          },
        }
      : {}),
    ...(orphan !== undefined ? { orphanDependents: orphan } : {}),
  };
}
