/**
 * The client of one resource (client-go's generic typed client, `gentype.Client`): every verb
 * of the API on one group/version/resource, in one namespace, across all namespaces, or
 * cluster-wide.
 */
import type { Scale } from "kubernetes-types/autoscaling/v1.js";
import { formatApiVersion } from "../core/gvk.js";
import { metadataOf, nameOf } from "../core/object-metadata.js";
import type { Status } from "../core/status.js";
import { PatchTypes } from "../rest/patch-type.js";
import type { RESTClient } from "../rest/rest-client.js";
import type { Watch } from "../rest/watch.js";
import { ApplyRequestError } from "./apply-request-error.js";
import type {
  ApplyOptions,
  CallOptions,
  CreateCallOptions,
  DeleteCallOptions,
  DeleteCollectionOptions,
  GetCallOptions,
  ListAllOptions,
  ListCallOptions,
  PagedListOptions,
  PatchCallOptions,
  PatchFormat,
  UpdateCallOptions,
  WatchCallOptions,
} from "./call-options.js";
import type {
  ApplyConfiguration,
  KubeObjectList,
  ObjectList,
  ObjectWithMetadata,
} from "./kube-object.js";
import type { ListAllResult } from "./list-pager.js";
import { listAllPages, listPages } from "./list-pager.js";
import type { ResourceTarget } from "./resource-request.js";
import { requestDeletion, requestObject, targetRequest } from "./resource-request.js";

/**
 * The body of a server-side apply of `configuration`, after client-go's checks.
 *
 * @throws {ApplyRequestError} for a missing field manager or name, or managed fields.
 */
function applyBody(
  configuration: { apiVersion?: unknown; kind?: unknown; metadata?: unknown },
  options: ApplyOptions,
  target: ResourceTarget,
): { name: string; body: Record<string, unknown> } {
  if (typeof options.fieldManager !== "string" || options.fieldManager === "") {
    throw new ApplyRequestError(
      "MissingFieldManager",
      "fieldManager is required for server-side apply",
    );
  }
  const managedFields = metadataOf(configuration)?.["managedFields"];
  if (Array.isArray(managedFields) && managedFields.length > 0) {
    throw new ApplyRequestError(
      "ManagedFieldsPresent",
      "cannot apply an object with managed fields already set: apply only the fields this manager owns",
    );
  }
  const name = nameOf(configuration);
  if (name === "") {
    throw new ApplyRequestError("MissingName", "metadata.name must be provided to apply");
  }
  const apiVersion =
    configuration.apiVersion ?? (target.kind !== undefined ? formatApiVersion(target) : undefined);
  const kind = configuration.kind ?? target.kind;
  const body: Record<string, unknown> = {};
  if (apiVersion !== undefined) body["apiVersion"] = apiVersion;
  if (kind !== undefined) body["kind"] = kind;
  for (const [key, value] of Object.entries(configuration)) {
    if (key !== "apiVersion" && key !== "kind") body[key] = value;
  }
  return { name, body };
}

/**
 * Every verb on one resource, typed with the object type `T` and the list type `L`
 * (`Pod`/`PodList`, or `KubeObject`/`KubeObjectList` for the dynamic client). Obtain one
 * from a `Clientset` accessor (`cs.coreV1.pods("default")`) or `DynamicClient.resource()`;
 * the accessor types expose only the verbs the resource serves, while this class has them
 * all (the server answers 405 MethodNotAllowed to the others).
 *
 * - Objects are the wire JSON, asserted to be `T`, not validated; the client never keeps
 *   or mutates them.
 * - Every method takes `signal` in its options; aborting it rejects the call with
 *   `signal.reason` (or ends a stream).
 * - Promise-returning methods never throw synchronously: an invalid name (empty, `.`,
 *   containing `/` or `%`) rejects with a `TypeError` before anything is sent.
 * - Failed requests reject with the REST layer's errors: a `StatusError` for an error
 *   answer (use `isNotFound`, `isConflict`, ...), `TransportError`, `RequestTimeoutError`.
 * - Writes use the namespace of the client, not the object's (the server rejects a
 *   mismatch with 400 BadRequest).
 */
export class ResourceClient<
  T extends ObjectWithMetadata,
  L extends ObjectList<T> = KubeObjectList<T>,
> {
  /** The RESTClient the requests go through (shared by every client of a Clientset). */
  readonly restClient: RESTClient;
  /** The resource and namespace this client addresses. */
  readonly target: ResourceTarget;

  /** A client of `target` sending through `restClient`; nothing is validated or sent yet. */
  constructor(restClient: RESTClient, target: ResourceTarget) {
    this.restClient = restClient;
    this.target = target;
  }

  /** The object `name`. */
  async get(name: string, options: GetCallOptions = {}): Promise<T> {
    return requestObject<T>(
      targetRequest(this.restClient.get(), this.target, options.signal)
        .name(name)
        .getOptions(options),
    );
  }

  /**
   * One list request: every object, or one page of `limit` objects whose `metadata.continue`
   * continues it. Use {@link listAll} or {@link listPages} to read large collections.
   */
  async list(options: ListCallOptions = {}): Promise<L> {
    return requestObject<L>(
      targetRequest(this.restClient.get(), this.target, options.signal).listOptions(options),
    );
  }

  /**
   * The whole list, read in pages of `limit` (default 500) objects, with the list's
   * resourceVersion. A continue token that expires mid-way (410) makes it read the list
   * again in one unpaginated request (client-go's pager with `FullListIfExpired`).
   */
  async listAll(options: ListAllOptions<L> = {}): Promise<ListAllResult<T>> {
    return listAllPages<T, L>((page) => this.list(page), options);
  }

  /**
   * The list's pages (of `limit` objects, default 500), each requested when the iteration
   * asks for it. An expired continue token is thrown from the iteration (no fallback).
   */
  listPages(options: PagedListOptions = {}): AsyncGenerator<L, void, undefined> {
    return listPages<L>((page) => this.list(page), options);
  }

  /**
   * A watch of the collection (or, with `fieldSelector: "metadata.name=NAME"`, one object)
   * from `resourceVersion`. Nothing is sent until the iteration starts; see the REST
   * layer's `Watch` for errors, idle deadline and closing.
   */
  watch(options: WatchCallOptions = {}): Watch<T> {
    const { idleGraceMs, idleTimeoutMs } = options;
    return targetRequest(this.restClient.get(), this.target, options.signal)
      .listOptions(options)
      .watch<T>({
        ...(idleGraceMs !== undefined ? { idleGraceMs } : {}),
        ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}),
      });
  }

  /** Creates `object` in the client's namespace and returns it as stored. */
  async create(object: T, options: CreateCallOptions = {}): Promise<T> {
    return requestObject<T>(
      targetRequest(this.restClient.post(), this.target, options.signal)
        .createOptions(options)
        .body(object),
    );
  }

  /**
   * Replaces the object named by `object.metadata.name`. With `metadata.resourceVersion`
   * set the update is conditional: a stale one rejects with a 409 Conflict (`isConflict`).
   *
   * @throws {TypeError} (as a rejection) when the object has no name.
   */
  async update(object: T, options: UpdateCallOptions = {}): Promise<T> {
    return requestObject<T>(
      targetRequest(this.restClient.put(), this.target, options.signal)
        .name(nameOf(object))
        .updateOptions(options)
        .body(object),
    );
  }

  /** Replaces the `status` subresource of the object named by `object.metadata.name`. */
  async updateStatus(object: T, options: UpdateCallOptions = {}): Promise<T> {
    return requestObject<T>(
      targetRequest(this.restClient.put(), this.target, options.signal)
        .name(nameOf(object))
        .subresource("status")
        .updateOptions(options)
        .body(object),
    );
  }

  /**
   * Patches the object `name` (or its `options.subresource`) with a JSON Patch (an array of
   * operations), a JSON merge patch or a strategic merge patch; `patch` is sent as JSON
   * (a string is sent as it is). Returns the object as stored — for the `scale`
   * subresource use {@link patchScale}, which is typed for the Scale it returns.
   */
  async patch(
    name: string,
    patchType: PatchFormat,
    patch: object | string,
    options: PatchCallOptions = {},
  ): Promise<T> {
    const builder = targetRequest(this.restClient.patch(patchType), this.target, options.signal)
      .name(name)
      .patchOptions(options)
      .body(patch);
    if (options.subresource !== undefined) builder.subresource(options.subresource);
    return requestObject<T>(builder);
  }

  /**
   * Server-side apply (`application/apply-patch+yaml`): creates the object or merges the
   * fields `configuration` names into it, owned by `options.fieldManager`. Fields owned by
   * another manager with a different value reject with 409 Conflict unless `force`. When
   * `configuration` has no `apiVersion`/`kind`, a typed client fills in its resource's.
   *
   * @throws {ApplyRequestError} (as a rejection, nothing sent) when `fieldManager` or
   *   `metadata.name` is missing, or `metadata.managedFields` is set (client-go refuses
   *   objects read back from the server).
   */
  async apply(configuration: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    const { name, body } = applyBody(
      configuration as { apiVersion?: unknown; kind?: unknown; metadata?: unknown },
      options,
      this.target,
    );
    const builder = targetRequest(
      this.restClient.patch(PatchTypes.apply),
      this.target,
      options.signal,
    )
      .name(name)
      .patchOptions({
        fieldManager: options.fieldManager,
        ...(options.force !== undefined ? { force: options.force } : {}),
        ...(options.dryRun !== undefined ? { dryRun: options.dryRun } : {}),
        ...(options.fieldValidation !== undefined
          ? { fieldValidation: options.fieldValidation }
          : {}),
      })
      .body(body);
    if (options.subresource !== undefined) builder.subresource(options.subresource);
    return requestObject<T>(builder);
  }

  /**
   * Deletes the object `name`. Resolves with what the server answered: the object when it
   * still exists (finalizers, foreground deletion) or the resource answers deletes with
   * the object (pods, namespaces, services, CRDs, ...), otherwise a Success `Status`.
   * Tell them apart with `isStatus(result)` or `result.kind === "Status"`.
   */
  async delete(name: string, options: DeleteCallOptions = {}): Promise<T | Status> {
    return requestDeletion<T>(
      targetRequest(this.restClient.delete(), this.target, options.signal)
        .name(name)
        .deleteOptions(options),
    );
  }

  /** Deletes every object of the collection that matches the selectors. */
  async deleteCollection(options: DeleteCollectionOptions = {}): Promise<void> {
    await targetRequest(this.restClient.delete(), this.target, options.signal)
      .listOptions(options)
      .deleteOptions(options)
      .do();
  }

  /** The `scale` subresource (autoscaling/v1 Scale) of the object `name`. */
  async getScale(name: string, options: CallOptions = {}): Promise<Scale> {
    return requestObject<Scale>(
      targetRequest(this.restClient.get(), this.target, options.signal)
        .name(name)
        .subresource("scale"),
    );
  }

  /**
   * Replaces the `scale` subresource of the object `name` (sets `spec.replicas`). A
   * `metadata.resourceVersion` in `scale` makes the update conditional (409 when stale).
   */
  async updateScale(name: string, scale: Scale, options: UpdateCallOptions = {}): Promise<Scale> {
    return requestObject<Scale>(
      targetRequest(this.restClient.put(), this.target, options.signal)
        .name(name)
        .subresource("scale")
        .updateOptions(options)
        .body(scale),
    );
  }

  /** Patches the `scale` subresource of the object `name` and returns the new Scale. */
  async patchScale(
    name: string,
    patchType: PatchFormat,
    patch: object | string,
    options: Omit<PatchCallOptions, "subresource"> = {},
  ): Promise<Scale> {
    return requestObject<Scale>(
      targetRequest(this.restClient.patch(patchType), this.target, options.signal)
        .name(name)
        .subresource("scale")
        .patchOptions(options)
        .body(patch),
    );
  }
}
