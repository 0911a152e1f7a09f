/**
 * `createOrPatch` (controller-runtime's `controllerutil.CreateOrPatch`): get, mutate, then
 * create, or patch the object and its status separately, only where they changed.
 */
import type { CallOptions, PatchCallOptions, PatchFormat } from "../client/call-options.js";
import type { ObjectWithMetadata } from "../client/kube-object.js";
import type { JsonObject } from "../core/json.js";
import { deepEqual } from "../core/json.js";
import { createMergePatch } from "../core/merge-patch.js";
import { isNotFound } from "../core/status.js";
import type { CreateOrUpdateClient } from "./create-or-update.js";
import type { MutateFn, OperationResult } from "./object-mutation.js";
import { replaceContents, runMutate, wireSnapshot } from "./object-mutation.js";

/** What {@link createOrPatch} needs of a client: get, create and patch (with `subresource`). */
export interface CreateOrPatchClient<T> extends Pick<CreateOrUpdateClient<T>, "get" | "create"> {
  patch(
    name: string,
    patchType: PatchFormat,
    patch: object | string,
    options?: PatchCallOptions,
  ): Promise<T>;
}

const MERGE_PATCH: PatchFormat = "application/merge-patch+json";

/** `snapshot` without its `status`, and the status (undefined when absent). */
function splitStatus(snapshot: JsonObject): [JsonObject, JsonObject["status"] | undefined] {
  const { status, ...rest } = snapshot;
  return [rest, status];
}

/**
 * Makes the object named by `obj` what `mutate` says, writing only what changed
 * (controller-runtime's `controllerutil.CreateOrPatch`):
 *
 * 1. gets the object `obj.metadata.name`; not found: runs `mutate(obj)`, creates `obj` →
 *    `"created"`;
 * 2. found: makes `obj` (a copy of) the object read and runs `mutate(obj)`; then compares,
 *    on the wire JSON, the object without its `status` before and after, and the `status`
 *    before and after;
 * 3. when the object without status changed: sends the JSON merge patch from before to
 *    after (RFC 7386, no resourceVersion: no optimistic lock, as controller-runtime's
 *    `client.MergeFrom`) → `"updated"`;
 * 4. when the status changed: sends the JSON merge patch of the status to the `status`
 *    subresource → `"updatedStatus"` (both) or `"updatedStatusOnly"`;
 * 5. nothing changed: nothing is written → `"unchanged"`.
 *
 * Afterwards `obj` holds the object as last returned by the server (or as read, when
 * unchanged). Caveats: a merge patch replaces lists whole and cannot set a field to `null`;
 * a resource whose status is not a subresource (e.g. a CRD without
 * `subresources.status`) answers 404 to the status patch.
 *
 * @throws {MutateFnError} (as a rejection) when `mutate` changed the name or namespace; any
 *   error of `client` or `mutate` as it is (when the status patch fails after the object's
 *   patch succeeded, the object's patch stays applied, as in controller-runtime).
 */
export async function createOrPatch<T extends ObjectWithMetadata>(
  client: CreateOrPatchClient<T>,
  obj: T,
  mutate?: MutateFn<T>,
  options: CallOptions = {},
): Promise<OperationResult> {
  const call = options.signal !== undefined ? { signal: options.signal } : {};
  const name = obj.metadata?.name ?? "";
  let existing: T;
  try {
    existing = await client.get(name, call);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await runMutate(obj, mutate);
    replaceContents(obj, await client.create(obj, call));
    return "created";
  }
  const wire = JSON.stringify(existing);
  const [before, beforeStatus] = splitStatus(JSON.parse(wire) as JsonObject);
  replaceContents(obj, JSON.parse(wire) as T);
  await runMutate(obj, mutate);
  const [after, afterStatus] = splitStatus(wireSnapshot(obj));
  let result: OperationResult = "unchanged";
  if (!deepEqual(before, after)) {
    const patched = await client.patch(
      name,
      MERGE_PATCH,
      createMergePatch(before, after) as object,
      call,
    );
    // The answer carries the stored status; keep the mutated one for the status patch.
    replaceContents(obj, patched);
    if (afterStatus !== undefined) (obj as unknown as JsonObject)["status"] = afterStatus;
    result = "updated";
  }
  if (
    (beforeStatus !== undefined || afterStatus !== undefined) &&
    !deepEqual(beforeStatus, afterStatus)
  ) {
    const statusPatch = createMergePatch(
      beforeStatus !== undefined ? { status: beforeStatus } : {},
      afterStatus !== undefined ? { status: afterStatus } : {},
    );
    replaceContents(
      obj,
      await client.patch(name, MERGE_PATCH, statusPatch as object, {
        ...call,
        subresource: "status",
      }),
    );
    result = result === "updated" ? "updatedStatus" : "updatedStatusOnly";
  }
  return result;
}
