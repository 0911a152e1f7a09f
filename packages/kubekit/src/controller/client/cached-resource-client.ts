/**
 * The cache-backed client of one kind in one namespace (controller-runtime's default client
 * for one object type): reads from the Manager's informer cache, writes to the API server.
 */
import type { Status } from "../../core/status.js";
import type { SharedIndexInformer } from "../../cache/shared-index-informer.js";
import { NamespaceLister } from "../../cache/lister.js";
import type { LazyObject } from "../../cache/lazy-object.js";
import { bodyOf } from "../../cache/lazy/body-of.js";
import type {
  ApplyOptions,
  CallOptions,
  CreateCallOptions,
  DeleteCallOptions,
  PatchCallOptions,
  PatchFormat,
  UpdateCallOptions,
} from "../../client/call-options.js";
import type { ApplyConfiguration, ListMeta, ObjectWithMetadata } from "../../client/kube-object.js";
import type { ResourceClient } from "../../client/resource-client.js";
import { FieldSelector } from "../../core/field-selector.js";
import { LabelSelector } from "../../core/label-selector.js";
import { labelsOf } from "../../core/object-metadata.js";
import { newNotFound } from "../../core/status-builders.js";
import { CacheReadError } from "./cache-read-error.js";
import type { InformerCache } from "./informer-cache.js";
import { FIELD_INDEX_PREFIX, fieldIndexValue } from "./informer-cache.js";
import type { ResolvedKind } from "./kind-reference.js";

/** What an informer the client reads holds: objects, or a lazy informer's `LazyObject`s. */
type Cached<T> = T | LazyObject<T>;

/** Where a {@link CachedResourceClient} reads: the cache, the API server, or the cache once the kind is watched. */
export type ReadPolicy = "cache" | "server" | "cache-if-watched";

/** Options of {@link CachedResourceClient.list}. */
export interface CachedListOptions extends CallOptions {
  /** Only objects whose labels match (selector text or a parsed `LabelSelector`). */
  readonly labelSelector?: string | LabelSelector;
  /**
   * Only objects whose fields match. From the cache: `field=value` terms only, each on a field
   * indexed with `indexField` (controller-runtime's rule); from the API server: any selector
   * the server supports for the resource.
   */
  readonly fieldSelector?: string | FieldSelector;
  /** At most this many objects (the first ones found; no continuation from the cache). */
  readonly limit?: number;
}

/** What {@link CachedResourceClient.list} returns: the objects and the list metadata. */
export interface CachedList<T> {
  /** From the cache: the resourceVersion the cache has caught up to. */
  readonly metadata: ListMeta;
  readonly items: T[];
}

/**
 * The client of one kind in one namespace (or all namespaces, or cluster-wide: `""`), from
 * `mgr.client.resource(kind, namespace)`:
 *
 * - **Reads** (`get`, `list`) are served from the Manager's informer of the kind, created and
 *   started on the first read, which waits for it to sync (bounded by `signal`, and by the
 *   manager's stop). Objects read from the cache are the cache's own, shared with every
 *   reader: never mutate them (copy first; `createOrUpdate` does). A kind read with the
 *   `server` policy (the client's `uncached` option) is read from the API server instead.
 *   From a lazy informer (`lazyKind`), reads still return `T`: keys, label selectors and
 *   field indexes run on the metadata, and only the objects returned are parsed (each once;
 *   the informer keeps the parsed body).
 * - **Writes** (`create`, `update`, `updateStatus`, `patch`, `apply`, `delete`) go to the API
 *   server through the manager's rate-limited client, in the client's namespace. A read right
 *   after a write may not see it yet: the cache follows the server's watch (use
 *   `waitForCacheToObserve`, or requeue).
 * - A `get` of an object not in the cache rejects with NotFound, as the server would.
 */
export class CachedResourceClient<T extends ObjectWithMetadata> {
  /** The namespace this client reads and writes (`""`: all namespaces, or cluster-scoped). */
  readonly namespace: string;
  /** The kind this client is for. */
  readonly kind: ResolvedKind;
  readonly #cache: InformerCache;
  readonly #newServerClient: () => ResourceClient<T>;
  #serverClient: ResourceClient<T> | undefined;
  readonly #policy: ReadPolicy;

  /**
   * Made by `CachedClient.resource`; `server` makes the API client of the same kind and
   * namespace, on the first write or uncached read (once the manager has its kubeconfig).
   */
  constructor(
    cache: InformerCache,
    kind: ResolvedKind,
    namespace: string,
    server: () => ResourceClient<T>,
    policy: ReadPolicy,
  ) {
    this.#cache = cache;
    this.kind = kind;
    this.namespace = namespace;
    this.#newServerClient = server;
    this.#policy = policy;
  }

  /** The API client of this kind and namespace. */
  get #server(): ResourceClient<T> {
    return (this.#serverClient ??= this.#newServerClient());
  }

  /**
   * The object `name`: from the cache (shared: do not mutate it), or the server for an
   * uncached kind.
   *
   * @throws {StatusError} (as a rejection) NotFound when it is not there.
   * @throws {CacheReadError} (as a rejection) `NotStarted` before the manager started;
   *   `Stopped` when it stops before the informer synced. `signal`'s reason on abort.
   */
  async get(name: string, options: CallOptions = {}): Promise<T> {
    const informer = this.#informer();
    if (informer === undefined) return this.#server.get(name, options);
    if (!informer.hasSynced()) await this.#cache.waitForInformer(informer, options.signal);
    const obj = informer.indexer.getByKey(
      this.namespace === "" ? name : `${this.namespace}/${name}`,
    );
    if (obj === undefined)
      throw newNotFound({ group: this.kind.group, resource: this.kind.resource }, name);
    return bodyOf(obj);
  }

  /**
   * The objects of the client's namespace (every namespace with `""`) matching the selectors:
   * from the cache (shared objects), or the server for an uncached kind.
   *
   * @throws {CacheReadError} (as a rejection) `NonExactFieldSelector`, `MissingIndex` for a
   *   field selector the cache cannot answer; `NotStarted`, `Stopped` as {@link get}.
   * @throws {SelectorParseError} (as a rejection) for selector text that does not parse.
   */
  async list(options: CachedListOptions = {}): Promise<CachedList<T>> {
    const informer = this.#informer();
    if (informer === undefined) return this.#serverList(options);
    const fields =
      typeof options.fieldSelector === "string"
        ? FieldSelector.parse(options.fieldSelector)
        : options.fieldSelector;
    await this.#cache.waitForInformer(informer, options.signal);
    let items =
      fields === undefined || fields.isEmpty()
        ? new NamespaceLister(informer.indexer, this.kind, this.namespace).list(
            options.labelSelector,
          )
        : this.#byFields(informer, fields, options.labelSelector);
    if (options.limit !== undefined && options.limit > 0) items = items.slice(0, options.limit);
    return {
      metadata: { resourceVersion: informer.indexer.lastSyncResourceVersion },
      items: items.map((item) => bodyOf(item)),
    };
  }

  /** Creates `object` on the server (see `ResourceClient.create`). */
  create(object: T, options: CreateCallOptions = {}): Promise<T> {
    return this.#server.create(object, options);
  }

  /** Replaces `object` on the server (see `ResourceClient.update`). */
  update(object: T, options: UpdateCallOptions = {}): Promise<T> {
    return this.#server.update(object, options);
  }

  /** Replaces the status of `object` on the server (see `ResourceClient.updateStatus`). */
  updateStatus(object: T, options: UpdateCallOptions = {}): Promise<T> {
    return this.#server.updateStatus(object, options);
  }

  /** Patches the object `name` (or `options.subresource`) on the server (see `ResourceClient.patch`). */
  patch(
    name: string,
    patchType: PatchFormat,
    patch: object | string,
    options: PatchCallOptions = {},
  ): Promise<T> {
    return this.#server.patch(name, patchType, patch, options);
  }

  /** Server-side apply of `configuration` (see `ResourceClient.apply`). */
  apply(configuration: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    return this.#server.apply(configuration, options);
  }

  /** Deletes the object `name` on the server (see `ResourceClient.delete`). */
  delete(name: string, options: DeleteCallOptions = {}): Promise<T | Status> {
    return this.#server.delete(name, options);
  }

  /**
   * The informer to read from (the kind's, or another of its resource: see
   * `InformerCache.reader`), or undefined to read from the server.
   */
  #informer(): SharedIndexInformer<Cached<T>> | undefined {
    if (this.#policy === "server") return undefined;
    if (this.#policy === "cache-if-watched" && !this.#cache.has(this.kind)) return undefined;
    return this.#cache.reader<T>(this.kind);
  }

  async #serverList(options: CachedListOptions): Promise<CachedList<T>> {
    const { labelSelector, fieldSelector, limit, signal } = options;
    const list = await this.#server.list({
      ...(labelSelector !== undefined ? { labelSelector: String(labelSelector) } : {}),
      ...(fieldSelector !== undefined ? { fieldSelector: String(fieldSelector) } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(signal !== undefined ? { signal } : {}),
    });
    return { metadata: list.metadata ?? {}, items: list.items ?? [] };
  }

  /** controller-runtime's `byIndexes`: the first term's index, then the others' index functions. */
  #byFields(
    informer: SharedIndexInformer<Cached<T>>,
    fields: FieldSelector,
    labels: string | LabelSelector | undefined,
  ): Cached<T>[] {
    const indexers = informer.indexer.getIndexers();
    let items: Cached<T>[] | undefined;
    for (const requirement of fields.requirements) {
      if (requirement.operator !== "=") {
        throw new CacheReadError(
          "NonExactFieldSelector",
          `non-exact field matches are not supported by the cache (${fields.toString()})`,
        );
      }
      const name = `${FIELD_INDEX_PREFIX}${requirement.field}`;
      const indexFunc = indexers[name];
      if (indexFunc === undefined) {
        throw new CacheReadError(
          "MissingIndex",
          `index with name ${name} does not exist: index the field with indexField before listing by it`,
        );
      }
      const value = fieldIndexValue(this.namespace, requirement.value);
      items =
        items === undefined
          ? informer.indexer.byIndex(name, value)
          : items.filter((obj) => indexFunc(obj).includes(value));
    }
    const selected = items ?? [];
    const selector = typeof labels === "string" ? LabelSelector.parse(labels) : labels;
    if (selector === undefined || selector.isEmpty()) return selected;
    return selected.filter((obj) => selector.matches(labelsOf(obj)));
  }
}
