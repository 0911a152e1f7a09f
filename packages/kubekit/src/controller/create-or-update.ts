/**
 * `createOrUpdate` (controller-runtime's `controllerutil.CreateOrUpdate`): get, mutate, then
 * create, update, or leave alone.
 */
import type { CallOptions } from "../client/call-options.js";
import type { ObjectWithMetadata } from "../client/kube-object.js";
import { isNotFound } from "../core/status.js";
import type { MutateFn, OperationResult } from "./object-mutation.js";
import { replaceContents, runMutate, wireEqual } from "./object-mutation.js";

/**
 * What {@link createOrUpdate} needs of a client: the verbs of one resource in one namespace.
 * A typed client (`cs.coreV1.configMaps("ns")`), a dynamic one
 * (`dc.resource(gvr).namespace("ns")`) and the Manager's cache-backed client
 * (`mgr.client.resource(kind, "ns")`) all fit.
 */
export interface CreateOrUpdateClient<T> {
  get(name: string, options?: CallOptions): Promise<T>;
  create(object: T, options?: CallOptions): Promise<T>;
  update(object: T, options?: CallOptions): Promise<T>;
}

/**
 * Makes the object named by `obj` what `mutate` says (controller-runtime's
 * `controllerutil.CreateOrUpdate`):
 *
 * 1. gets the object `obj.metadata.name` through `client`;
 * 2. not found: runs `mutate(obj)` and creates `obj` → `"created"`;
 * 3. found: makes `obj` the object read (a copy: a cached object is never touched), runs
 *    `mutate(obj)`, and compares the result with what was read, semantically (deep equality
 *    of the wire JSON: key order and fields set to `undefined` do not count). Equal →
 *    `"unchanged"`, nothing written; else `obj` is updated (a whole-object PUT carrying the
 *    resourceVersion read: a concurrent write makes it fail with a Conflict, so wrap it in
 *    `retryOnConflict` when that can happen) → `"updated"`.
 *
 * Afterwards `obj` holds the object as the server returned it (or as read, when unchanged),
 * as controller-runtime's `obj` does. `mutate` must leave the name and namespace alone. The
 * update replaces the whole object, status included where the resource has no status
 * subresource; use {@link createOrPatch} to write only the fields that changed and the status
 * through its subresource.
 *
 * @param client the client of the object's resource and namespace; a cache-backed client
 *   reads from the cache, so an unchanged object costs no request at all.
 * @param obj the object with at least `metadata.name` (and the namespace the client is for);
 *   mutated in place.
 * @throws {MutateFnError} (as a rejection) when `mutate` changed the name or namespace; any
 *   error of `client` (a `StatusError` other than NotFound from the get, a Conflict from the
 *   update) or of `mutate`, as it is.
 *
 * @example
 * ```ts
 * import { Clientset, KubeConfig, createOrUpdate } from "kubekit";
 * import type { ConfigMap } from "kubernetes-types/core/v1.js";
 *
 * const cs = new Clientset((await KubeConfig.load()).restConfig());
 * const settings: ConfigMap = { metadata: { name: "settings", namespace: "default" } };
 * const result = await createOrUpdate(cs.coreV1.configMaps("default"), settings, (cm) => {
 *   cm.data = { ...cm.data, mode: "fast" };
 * });
 * console.log(result, settings.metadata?.resourceVersion); // "created" the first time, then "unchanged"
 * ```
 */
export async function createOrUpdate<T extends ObjectWithMetadata>(
  client: CreateOrUpdateClient<T>,
  obj: T,
  mutate?: MutateFn<T>,
  options: CallOptions = {},
): Promise<OperationResult> {
  const call = options.signal !== undefined ? { signal: options.signal } : {};
  let existing: T;
  try {
    existing = await client.get(obj.metadata?.name ?? "", call);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await runMutate(obj, mutate);
    replaceContents(obj, await client.create(obj, call));
    return "created";
  }
  // The cached object stays untouched: `obj` becomes a copy of it, and is compared with it.
  replaceContents(obj, JSON.parse(JSON.stringify(existing)) as T);
  await runMutate(obj, mutate);
  if (wireEqual(existing, obj)) return "unchanged";
  replaceContents(obj, await client.update(obj, call));
  return "updated";
}
