/**
 * `MetadataSharedInformerFactory`: shared informers of any resource that cache only object
 * metadata (client-go's `metadatainformer`).
 */
import { Lister } from "../cache/lister.js";
import type { PartialObjectMetadata } from "../client/kube-object.js";
import { MetadataClient } from "../client/metadata-client.js";
import type { RestConfig } from "../config/rest-config.js";
import type { GroupVersionResource } from "../core/gvk.js";
import { BaseInformerFactory } from "./base-informer-factory.js";
import type { InformerFactoryOptions } from "./informer-factory-options.js";
import { informerResourceOf } from "./informer-resource-of.js";
import { partialObjectMetadataListerWatcher } from "./partial-object-metadata-lister-watcher.js";
import type { GenericInformer } from "./resource-informer.js";

/** Options of a {@link MetadataSharedInformerFactory}. */
export interface MetadataSharedInformerFactoryOptions extends InformerFactoryOptions {
  /** Applied by every informer to every object before it is cached (see `SharedInformerFactoryOptions.transform`). */
  readonly transform?: (obj: PartialObjectMetadata) => PartialObjectMetadata;
}

/**
 * Shared informers keyed by GroupVersionResource whose caches hold
 * {@link PartialObjectMetadata} (`apiVersion: meta.k8s.io/v1`, `kind:
 * PartialObjectMetadata`, `metadata`): names, labels, owners and finalizers of many objects
 * without their bodies. Lists and watches ask the server for metadata only (the metadata
 * Accept headers); full objects from a server that ignores them are converted client-side.
 *
 * Options, resource validation and the namespace caveat as for
 * `DynamicSharedInformerFactory`; start, sync and shutdown as for `SharedInformerFactory`.
 */
export class MetadataSharedInformerFactory extends BaseInformerFactory<PartialObjectMetadata> {
  /** The client whose RESTClient every list and watch goes through. */
  readonly client: MetadataClient;

  /**
   * @param client a MetadataClient to share (its transport and rate limiter), or a config to
   *   build one from.
   * @throws {RangeError} when a `customResyncMs` key is not `group/version/resource`.
   * @throws {TypeError} when `client` is a config whose host is not an absolute URL.
   */
  constructor(
    client: MetadataClient | RestConfig,
    options: MetadataSharedInformerFactoryOptions = {},
  ) {
    const metadataClient = client instanceof MetadataClient ? client : new MetadataClient(client);
    const { transform, ...common } = options;
    super({
      newListerWatcher: (target) =>
        partialObjectMetadataListerWatcher(metadataClient.restClient, target),
      options: common,
      ...(transform !== undefined ? { transform } : {}),
    });
    this.client = metadataClient;
  }

  /**
   * The shared metadata informer of `gvr` and its generic lister, created on the first call
   * and the same informer afterwards; it runs from the next `start()`.
   *
   * @throws {TypeError} when the version or resource is empty or contains `/`.
   */
  forResource(gvr: GroupVersionResource): GenericInformer<PartialObjectMetadata> {
    const informer = this.informerFor<PartialObjectMetadata>(informerResourceOf(gvr));
    return {
      informer,
      lister: new Lister<PartialObjectMetadata>(informer.indexer, {
        group: gvr.group,
        resource: gvr.resource,
      }),
    };
  }
}
