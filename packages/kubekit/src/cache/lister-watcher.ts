/**
 * The ListerWatcher a Reflector reads from (client-go's `cache.ListerWatcher`), and its
 * implementation over a {@link RESTClient} for any resource (client-go's
 * `NewFilteredListWatchFromClient`), in full-object and metadata-only forms.
 */
import type { JsonObject } from "../core/json.js";
import { isJsonObject } from "../core/json.js";
import { metadataOf } from "../core/object-metadata.js";
import type {
  ListOptions,
  RequestBuilder,
  RESTClient,
  WatchEvent,
  WatchOptions,
} from "../rest/index.js";
import {
  PARTIAL_OBJECT_METADATA_ACCEPT,
  PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
} from "../client/metadata-client.js";

/** One page of a list: the items and the list metadata. */
export interface ListPage<T> {
  /** The list's `apiVersion` (e.g. `v1`), when the answer had one. */
  readonly apiVersion?: string;
  /** The list's `kind` (e.g. `ConfigMapList`, or `Table` for a Table answer), when it had one. */
  readonly kind?: string;
  readonly items: readonly T[];
  readonly metadata: {
    readonly resourceVersion?: string;
    readonly continue?: string;
    readonly remainingItemCount?: number;
  };
}

/** An open watch: an async iterable of events that can be closed from outside. */
export interface WatchStream<T> extends AsyncIterable<WatchEvent<T>> {
  /** Closes the connection; a running iteration ends. Idempotent. */
  close(): void;
  /**
   * Optional: the same events, once, in batches of those that arrived together (never an
   * empty batch), with the same contract as the item-by-item iteration (which it replaces:
   * a stream is iterated one way or the other). The reflector prefers it: one await per
   * batch instead of one per event. The REST layer's `Watch` has it.
   */
  batches?(): AsyncIterator<readonly WatchEvent<T>[]>;
}

/**
 * The two calls a Reflector makes (client-go's ListerWatcher): one page of a list, and a
 * watch. Namespace, selectors and any tweak are fixed by whoever built it; the reflector
 * supplies resourceVersion, resourceVersionMatch, limit/continue, timeoutSeconds,
 * allowWatchBookmarks and sendInitialEvents.
 *
 * Contract the reflector relies on:
 * - `list` resolves with one page or rejects (a `StatusError` for an error answer, so that
 *   410 Expired / 429 / too-large-resourceVersion can be told apart).
 * - `watch` returns at once; the request is made when iteration starts. An error answer to
 *   the request is thrown from the first iteration step; ERROR events (e.g. 410 Expired) are
 *   delivered as events; a clean end of the response ends the iteration; `close()` ends it
 *   without error.
 * - Aborting `signal` aborts the request; pending calls reject with `signal.reason`.
 * - `watchOptions` carry the idle deadline (see the REST layer's `WatchOptions`): a watch
 *   that receives no bytes for that long must fail (e.g. `WatchIdleTimeoutError`), which is
 *   how a half-open connection is detected. Implementations that cannot honour it may
 *   ignore it, at the price of a stalled watch going unnoticed.
 */
export interface ListerWatcher<T> {
  list(options: ListOptions, signal?: AbortSignal): Promise<ListPage<T>>;
  watch(options: ListOptions, signal?: AbortSignal, watchOptions?: WatchOptions): WatchStream<T>;
}

/** What a {@link listerWatcherFor} lists and watches. */
export interface ListerWatcherTarget {
  /** API group; `""` for the core group. */
  readonly group: string;
  readonly version: string;
  /** The resource (plural), e.g. `configmaps`. */
  readonly resource: string;
  /** A namespace, or absent/`""` for all namespaces (and for cluster-scoped resources). */
  readonly namespace?: string;
  /** A label selector applied to every list and watch. */
  readonly labelSelector?: string;
  /** A field selector applied to every list and watch. */
  readonly fieldSelector?: string;
  /**
   * Rewrites the options of every list and watch request after the selectors above are set
   * (client-go's `WithTweakListOptions`). It must return new options (they are read-only) and
   * should leave resourceVersion, limit, continue and the watch options alone.
   */
  readonly tweak?: (options: ListOptions) => ListOptions;
  /** The Accept header of list and watch requests (default: the RESTClient's JSON default). */
  readonly accept?: string;
}

/** A list body that is not a Kubernetes list (no object, `items` not an array). */
export class ListDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ListDecodeError";
  }
}

function stringField(meta: JsonObject, name: string): string | undefined {
  const value = meta[name];
  return typeof value === "string" ? value : undefined;
}

/** The page of a decoded list body. @throws {ListDecodeError} when it is not a list. */
function toListPage<T>(body: unknown): ListPage<T> {
  if (!isJsonObject(body)) throw new ListDecodeError("list response body is not a JSON object");
  const items = body["items"];
  if (items !== undefined && items !== null && !Array.isArray(items)) {
    throw new ListDecodeError("list response body has a non-array items field");
  }
  const meta = metadataOf(body) ?? {};
  const resourceVersion = stringField(meta, "resourceVersion");
  const continueToken = stringField(meta, "continue");
  const remaining = meta["remainingItemCount"];
  const apiVersion = stringField(body, "apiVersion");
  const kind = stringField(body, "kind");
  return {
    ...(apiVersion !== undefined ? { apiVersion } : {}),
    ...(kind !== undefined ? { kind } : {}),
    items: (items ?? []) as unknown as T[],
    metadata: {
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      ...(continueToken !== undefined ? { continue: continueToken } : {}),
      ...(typeof remaining === "number" ? { remainingItemCount: remaining } : {}),
    },
  };
}

/** The target's selectors merged into the reflector's options, then the tweak. */
function requestOptions(target: ListerWatcherTarget, options: ListOptions): ListOptions {
  const merged: ListOptions = {
    ...options,
    ...(target.labelSelector !== undefined ? { labelSelector: target.labelSelector } : {}),
    ...(target.fieldSelector !== undefined ? { fieldSelector: target.fieldSelector } : {}),
  };
  return target.tweak !== undefined ? target.tweak(merged) : merged;
}

/**
 * The GET of `target`'s collection with the reflector's `options` (the target's selectors
 * and tweak applied), `accept` and `signal`: what a ListerWatcher lists, or watches with
 * `.watch()`. Shared by every ListerWatcher over a RESTClient.
 *
 * @throws {TypeError} when the namespace or resource is not a valid path segment.
 */
export function collectionRequest(
  client: RESTClient,
  target: ListerWatcherTarget,
  options: ListOptions,
  accept: string | undefined,
  signal: AbortSignal | undefined,
): RequestBuilder {
  const builder = client
    .get()
    .group(target.group)
    .version(target.version)
    .resource(target.resource)
    .listOptions(requestOptions(target, options));
  if (target.namespace !== undefined && target.namespace !== "") {
    builder.namespace(target.namespace);
  }
  if (accept !== undefined) builder.accept(accept);
  if (signal !== undefined) builder.signal(signal);
  return builder;
}

function buildListerWatcher<T>(
  client: RESTClient,
  target: ListerWatcherTarget,
  listAccept: string | undefined,
  watchAccept: string | undefined,
): ListerWatcher<T> {
  const request = (options: ListOptions, accept: string | undefined, signal?: AbortSignal) =>
    collectionRequest(client, target, options, accept, signal);
  return {
    async list(options, signal) {
      const response = await request(options, listAccept, signal).do<unknown>();
      return toListPage<T>(response.body);
    },
    watch(options, signal, watchOptions) {
      return request(options, watchAccept, signal).watch<T>(watchOptions);
    },
  };
}

/**
 * A ListerWatcher of one resource over `client`: `GET <collection>?<options>` for list and
 * the same with `watch=true` for watch, with the target's namespace, selectors and tweak on
 * both (the tweak runs last and sees the reflector's options). List answers go through the
 * client's throttling and `Retry-After` retries; watches are not throttled.
 *
 * Objects are the decoded wire JSON asserted to be `T` (not validated).
 *
 * @throws {TypeError} from `list`/`watch` when the namespace or resource is not a valid
 *   path segment. `list` rejects with a `StatusError` for an error answer and a
 *   {@link ListDecodeError} for a 2xx body that is not a list.
 */
export function listerWatcherFor<T = JsonObject>(
  client: RESTClient,
  target: ListerWatcherTarget,
): ListerWatcher<T> {
  return buildListerWatcher<T>(client, target, target.accept, target.accept);
}

/**
 * A metadata-only ListerWatcher (the metadata informer's): like {@link listerWatcherFor}
 * but asking for `PartialObjectMetadataList` on list and `PartialObjectMetadata` on watch
 * (`PARTIAL_OBJECT_METADATA_LIST_ACCEPT`, `PARTIAL_OBJECT_METADATA_ACCEPT`), so
 * items and events carry only `apiVersion: meta.k8s.io/v1`, `kind`, and `metadata`.
 * `target.accept` is ignored. A server that cannot serve metadata answers full objects
 * (the Accept headers fall back to plain JSON); those are passed through as they are.
 */
export function metadataListerWatcherFor<T = JsonObject>(
  client: RESTClient,
  target: ListerWatcherTarget,
): ListerWatcher<T> {
  return buildListerWatcher<T>(
    client,
    target,
    PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
    PARTIAL_OBJECT_METADATA_ACCEPT,
  );
}
