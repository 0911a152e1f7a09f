/**
 * The one place the server computes `metadata.managedFields` for a write to a resource, as
 * kube-apiserver's field manager wraps every create, update, patch and apply
 * (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager`,
 * `staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/structuredmerge.go`): the
 * entry's apiVersion and field-table message are filled in here, from the resource written,
 * and an apply conflict becomes kube-apiserver's 409.
 */
import { formatApiVersion, newStatusError, type JsonObject, type StatusError } from "kubekit";
import type { ResourceEntry } from "../registry/registry.js";
import { hasStatusSubresource, messageNameOf } from "../registry/served-entry.js";
import {
  ApplyConflictError,
  recordUpdate,
  serverSideApply,
  type ManagedFieldsEntry,
} from "./managed-fields.js";

/** Who writes, where and when. */
export interface FieldManagerWrite {
  /** The field manager (`fieldManager`, or the User-Agent prefix). */
  readonly manager: string;
  /** The subresource written (`status`, `scale`, ...); "" for the main resource. */
  readonly subresource: string;
  /** The time to stamp on the writer's entry (RFC 3339). */
  readonly time: string;
}

function options(entry: ResourceEntry, write: FieldManagerWrite) {
  return {
    manager: write.manager,
    apiVersion: formatApiVersion(entry.info),
    ...(write.subresource !== "" ? { subresource: write.subresource } : {}),
    time: write.time,
    messageName: messageNameOf(entry),
    // Custom resources: list and map types from the CRD version's schema.
    ...(entry.info.custom ? { shape: entry.info.custom.compiled.applyShape } : {}),
  };
}

/**
 * The managedFields after an Update-operation write (create, update, the patches) of `next`
 * over `live` (undefined on create), starting from `managedFields` (see `recordUpdate`).
 */
export function managedFieldsAfterUpdate(
  entry: ResourceEntry,
  live: JsonObject | undefined,
  next: JsonObject,
  managedFields: readonly ManagedFieldsEntry[],
  write: FieldManagerWrite,
): ManagedFieldsEntry[] {
  // The main resource of a kind with a status subresource never owns status (the reset fields
  // of kube's strategies, `GetResetFields`): a create's `"status": {}` is nobody's.
  if (write.subresource === "" && hasStatusSubresource(entry)) {
    return recordUpdate(
      live && withoutStatus(live),
      withoutStatus(next),
      managedFields,
      options(entry, write),
    );
  }
  return recordUpdate(live, next, managedFields, options(entry, write));
}

function withoutStatus(obj: JsonObject): JsonObject {
  const { status: _status, ...rest } = obj;
  return rest;
}

/**
 * Server-side apply of `applied` onto `live` (undefined: the object is created): the merged
 * object with its managedFields (see `serverSideApply`). A conflict without `force` is
 * kube-apiserver's 409 Conflict with one FieldManagerConflict cause per field
 * (`staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/conflict.go`).
 */
export function applyWithManagedFields(
  entry: ResourceEntry,
  live: JsonObject | undefined,
  applied: JsonObject,
  write: FieldManagerWrite & { readonly force: boolean },
): JsonObject {
  try {
    return serverSideApply(live, applied, { ...options(entry, write), force: write.force });
  } catch (err) {
    if (err instanceof ApplyConflictError) throw applyConflictStatus(err);
    throw err;
  }
}

function applyConflictStatus(err: ApplyConflictError): StatusError {
  return newStatusError(409, "Conflict", err.message, {
    causes: err.conflicts.map((c) => ({
      reason: "FieldManagerConflict",
      message: c.message,
      field: c.field,
    })),
  });
}
