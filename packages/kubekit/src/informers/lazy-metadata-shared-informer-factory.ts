/**
 * `LazyMetadataSharedInformerFactory`: metadata informers of any resource in lazy
 * (metadata-first) mode (issue 24 §2).
 */
import type { LazyObject } from "../cache/lazy-object.js";
import { LazyJsonObject } from "../cache/lazy/lazy-json-object.js";
import { lazyListerWatcherFor } from "../cache/lazy/lazy-lister-watcher.js";
import type { ListerWatcher, ListerWatcherTarget } from "../cache/lister-watcher.js";
import { Lister } from "../cache/lister.js";
import type { PartialObjectMetadata } from "../client/kube-object.js";
import {
  MetadataClient,
  PARTIAL_OBJECT_METADATA_ACCEPT,
  PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
} from "../client/metadata-client.js";
import { toPartialObjectMetadata } from "../client/partial-object-metadata.js";
import type { RestConfig } from "../config/rest-config.js";
import type { GroupVersionResource } from "../core/gvk.js";
import type { RESTClient } from "../rest/rest-client.js";
import { BaseInformerFactory } from "./base-informer-factory.js";
import type { InformerFactoryOptions } from "./informer-factory-options.js";
import { informerResourceOf } from "./informer-resource-of.js";
import type { GenericInformer } from "./resource-informer.js";

/**
 * Lazy lists of PartialObjectMetadataList and lazy watches of PartialObjectMetadata (the
 * Accept headers of the metadata client, each falling back to plain JSON).
 */
function lazyMetadataListerWatcher(
  client: RESTClient,
  target: ListerWatcherTarget,
): ListerWatcher<LazyObject<PartialObjectMetadata>> {
  const lists = lazyListerWatcherFor<PartialObjectMetadata>(client, {
    ...target,
    accept: PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
  });
  const watches = lazyListerWatcherFor<PartialObjectMetadata>(client, {
    ...target,
    accept: PARTIAL_OBJECT_METADATA_ACCEPT,
  });
  return {
    list: (options, signal) => lists.list(options, signal),
    watch: (options, signal, watchOptions) => watches.watch(options, signal, watchOptions),
  };
}

/**
 * `item` as a lazy PartialObjectMetadata: itself when the server answered metadata only
 * (`kind: PartialObjectMetadata`); a full object from a server that ignored the Accept
 * header is parsed and converted (as the eager metadata factory does), keeping its metadata.
 */
function asPartialObjectMetadata(
  item: LazyObject<PartialObjectMetadata>,
): LazyObject<PartialObjectMetadata> {
  if (item.kind === "PartialObjectMetadata") return item;
  return LazyJsonObject.fromBody(toPartialObjectMetadata(item.object()), item.metadata);
}

/**
 * Metadata informers keyed by GroupVersionResource (as `MetadataSharedInformerFactory`'s:
 * lists and watches ask for PartialObjectMetadata) whose caches hold
 * `LazyObject<PartialObjectMetadata>`s: the fields of `LazyObjectMeta` read from each
 * object's JSON, the rest (managedFields, other annotations' neighbours, ...) kept as bytes
 * until `object()` parses it. Options (except `transform`), start, sync, shutdown and the
 * namespace caveat as for `MetadataSharedInformerFactory`; its informers are its own.
 */
export class LazyMetadataSharedInformerFactory extends BaseInformerFactory<
  LazyObject<PartialObjectMetadata>
> {
  /** The client whose RESTClient every list and watch goes through. */
  readonly client: MetadataClient;

  /**
   * @param client a MetadataClient to share (its transport and rate limiter), or a config to
   *   build one from.
   * @throws {RangeError} when a `customResyncMs` key is not `group/version/resource`.
   * @throws {TypeError} when `client` is a config whose host is not an absolute URL.
   */
  constructor(client: MetadataClient | RestConfig, options: InformerFactoryOptions = {}) {
    const metadataClient = client instanceof MetadataClient ? client : new MetadataClient(client);
    super({
      newListerWatcher: (target) => lazyMetadataListerWatcher(metadataClient.restClient, target),
      options,
      transform: asPartialObjectMetadata,
    });
    this.client = metadataClient;
  }

  /**
   * The lazy metadata informer of `gvr` and its generic lister, created on the first call and
   * the same informer afterwards; it runs from the next `start()`.
   *
   * @throws {TypeError} when the version or resource is empty or contains `/`.
   */
  forResource(gvr: GroupVersionResource): GenericInformer<LazyObject<PartialObjectMetadata>> {
    const informer = this.informerFor<LazyObject<PartialObjectMetadata>>(informerResourceOf(gvr));
    return {
      informer,
      lister: new Lister<LazyObject<PartialObjectMetadata>>(informer.indexer, {
        group: gvr.group,
        resource: gvr.resource,
      }),
    };
  }
}
