/**
 * The metadata client (client-go's `metadata.Client`): the read, watch, patch and delete
 * verbs of any resource returning only object metadata (PartialObjectMetadata).
 */
import type { GroupVersionResource } from "../core/gvk.js";
import { decodeStatus } from "../core/status.js";
import type { Status } from "../core/status.js";
import type { RestConfig } from "../config/rest-config.js";
import type { RESTClientOptions } from "../rest/rest-client.js";
import { RESTClient } from "../rest/rest-client.js";
import type {
  DeleteCallOptions,
  DeleteCollectionOptions,
  GetCallOptions,
  ListAllOptions,
  ListCallOptions,
  PagedListOptions,
  PatchCallOptions,
  PatchFormat,
  WatchCallOptions,
} from "./call-options.js";
import type { PartialObjectMetadata, PartialObjectMetadataList } from "./kube-object.js";
import type { ListAllResult } from "./list-pager.js";
import { listAllPages, listPages } from "./list-pager.js";
import { MetadataWatch } from "./metadata-watch.js";
import { toPartialObjectMetadata, toPartialObjectMetadataList } from "./partial-object-metadata.js";
import type { ResourceTarget } from "./resource-request.js";
import { requestObject, targetRequest } from "./resource-request.js";

/**
 * The Accept header of metadata-only requests for one object and of metadata-only watches:
 * PartialObjectMetadata, else plain JSON (client-go's metadata client,
 * `staging/src/k8s.io/client-go/metadata/metadata.go`, without its protobuf clause).
 */
export const PARTIAL_OBJECT_METADATA_ACCEPT =
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

/** The Accept header of metadata-only lists: PartialObjectMetadataList, else plain JSON. */
export const PARTIAL_OBJECT_METADATA_LIST_ACCEPT =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

/**
 * The metadata verbs on one resource in one namespace, all namespaces or cluster-wide.
 * Requests ask for PartialObjectMetadata(List); a server that answers the full objects
 * instead is handled by converting them client-side, so results are always metadata-only.
 * Errors, signals and namespaces as for `ResourceClient`.
 */
export class MetadataResourceClient {
  /** The RESTClient the requests go through. */
  readonly restClient: RESTClient;
  /** The resource and namespace this client addresses. */
  readonly target: ResourceTarget;

  /** A client of `target` sending through `restClient`; nothing is validated or sent yet. */
  constructor(restClient: RESTClient, target: ResourceTarget) {
    this.restClient = restClient;
    this.target = target;
  }

  /** The metadata of the object `name`. */
  async get(name: string, options: GetCallOptions = {}): Promise<PartialObjectMetadata> {
    const body = await requestObject<unknown>(
      targetRequest(this.restClient.get(), this.target, options.signal)
        .name(name)
        .getOptions(options)
        .accept(PARTIAL_OBJECT_METADATA_ACCEPT),
    );
    return toPartialObjectMetadata(body);
  }

  /** One list request (a page when `limit` is set), metadata only. */
  async list(options: ListCallOptions = {}): Promise<PartialObjectMetadataList> {
    const body = await requestObject<unknown>(
      targetRequest(this.restClient.get(), this.target, options.signal)
        .listOptions(options)
        .accept(PARTIAL_OBJECT_METADATA_LIST_ACCEPT),
    );
    return toPartialObjectMetadataList(body);
  }

  /** The whole list, paged as `ResourceClient.listAll` (500 per page, full relist on 410). */
  async listAll(
    options: ListAllOptions<PartialObjectMetadataList> = {},
  ): Promise<ListAllResult<PartialObjectMetadata>> {
    return listAllPages<PartialObjectMetadata, PartialObjectMetadataList>(
      (page) => this.list(page),
      options,
    );
  }

  /** The list's pages, as `ResourceClient.listPages`. */
  listPages(
    options: PagedListOptions = {},
  ): AsyncGenerator<PartialObjectMetadataList, void, undefined> {
    return listPages<PartialObjectMetadataList>((page) => this.list(page), options);
  }

  /** A watch whose objects are PartialObjectMetadata; nothing is sent until iteration starts. */
  watch(options: WatchCallOptions = {}): MetadataWatch {
    const { idleGraceMs, idleTimeoutMs } = options;
    return new MetadataWatch(
      targetRequest(this.restClient.get(), this.target, options.signal)
        .listOptions(options)
        .accept(PARTIAL_OBJECT_METADATA_ACCEPT)
        .watch<unknown>({
          ...(idleGraceMs !== undefined ? { idleGraceMs } : {}),
          ...(idleTimeoutMs !== undefined ? { idleTimeoutMs } : {}),
        }),
    );
  }

  /**
   * Patches the object `name` (or `options.subresource`) and returns its metadata. Metadata
   * patches (labels, annotations, finalizers, owner references) are the usual use.
   */
  async patch(
    name: string,
    patchType: PatchFormat,
    patch: object | string,
    options: PatchCallOptions = {},
  ): Promise<PartialObjectMetadata> {
    const builder = targetRequest(this.restClient.patch(patchType), this.target, options.signal)
      .name(name)
      .patchOptions(options)
      .accept(PARTIAL_OBJECT_METADATA_ACCEPT)
      .body(patch);
    if (options.subresource !== undefined) builder.subresource(options.subresource);
    return toPartialObjectMetadata(await requestObject<unknown>(builder));
  }

  /**
   * Deletes the object `name`: resolves with its metadata when the server answers with the
   * object (deletion pending, or a resource that returns deleted objects), or the Success
   * `Status`.
   */
  async delete(
    name: string,
    options: DeleteCallOptions = {},
  ): Promise<PartialObjectMetadata | Status> {
    const body = await requestObject<unknown>(
      targetRequest(this.restClient.delete(), this.target, options.signal)
        .name(name)
        .deleteOptions(options)
        .accept(PARTIAL_OBJECT_METADATA_ACCEPT),
    );
    return decodeStatus(body) ?? toPartialObjectMetadata(body);
  }

  /** Deletes every object of the collection that matches the selectors. */
  async deleteCollection(options: DeleteCollectionOptions = {}): Promise<void> {
    await targetRequest(this.restClient.delete(), this.target, options.signal)
      .listOptions(options)
      .deleteOptions(options)
      .do();
  }
}

/**
 * The metadata client of one resource without a namespace (cluster-scoped, or all
 * namespaces of a namespaced resource); {@link namespace} gives the client of one namespace.
 */
export class MetadataNamespaceableResourceClient extends MetadataResourceClient {
  /** The metadata client of this resource in `namespace` (`""`: this client). */
  namespace(namespace: string): MetadataResourceClient {
    return new MetadataResourceClient(this.restClient, { ...this.target, namespace });
  }
}

/**
 * Metadata-only clients for any resource (built-in or custom), for controllers that need
 * names, labels, owners and finalizers of many objects without their bodies:
 *
 * ```ts
 * const mc = new MetadataClient(restConfig);
 * const { items } = await mc.resource({ group: "", version: "v1", resource: "secrets" }).listAll();
 * ```
 *
 * Every resource client of one MetadataClient shares its RESTClient (one transport and one
 * client-side rate limiter).
 */
export class MetadataClient {
  /** The RESTClient every request goes through. */
  readonly restClient: RESTClient;

  /**
   * @param config the connection settings, or a RESTClient to share with other clients
   *   (its rate limiter and transport are then shared too; `options` are ignored).
   * @param options passed to the {@link RESTClient} built from a config (clock, logger,
   *   rate limiter, ...).
   * @throws {TypeError} when `config.host` is not an absolute URL.
   */
  constructor(config: RestConfig | RESTClient, options: RESTClientOptions = {}) {
    this.restClient = config instanceof RESTClient ? config : new RESTClient(config, options);
  }

  /** The metadata client of a resource (plural), cluster-wide or all namespaces. */
  resource(gvr: GroupVersionResource): MetadataNamespaceableResourceClient {
    return new MetadataNamespaceableResourceClient(this.restClient, {
      group: gvr.group,
      version: gvr.version,
      resource: gvr.resource,
      namespace: "",
    });
  }
}
