/**
 * `DynamicSharedInformerFactory`: shared informers of any resource, custom resources
 * included, on unstructured objects (client-go's `dynamicinformer`).
 */
import { Lister } from "../cache/lister.js";
import { listerWatcherFor } from "../cache/lister-watcher.js";
import { DynamicClient } from "../client/dynamic-client.js";
import type { KubeObject } from "../client/kube-object.js";
import type { RestConfig } from "../config/rest-config.js";
import type { GroupVersionResource } from "../core/gvk.js";
import { BaseInformerFactory } from "./base-informer-factory.js";
import type { InformerFactoryOptions } from "./informer-factory-options.js";
import { informerResourceOf } from "./informer-resource-of.js";
import type { GenericInformer } from "./resource-informer.js";

/** Options of a {@link DynamicSharedInformerFactory}. */
export interface DynamicSharedInformerFactoryOptions extends InformerFactoryOptions {
  /** Applied by every informer to every object before it is cached (see `SharedInformerFactoryOptions.transform`). */
  readonly transform?: (obj: KubeObject) => KubeObject;
}

/**
 * Shared informers keyed by GroupVersionResource, on {@link KubeObject}s:
 *
 * ```ts
 * const factory = new DynamicSharedInformerFactory(restConfig, { namespace: "default" });
 * const widgets = factory.forResource({ group: "example.com", version: "v1", resource: "widgets" });
 * widgets.informer.addEventHandler({ onAdd });
 * factory.start(signal);
 * await factory.waitForCacheSync(signal);
 * widgets.lister.namespace("default").get("w1");
 * ```
 *
 * Start, sync, shutdown, namespace, tweak, resync and transform options as for
 * `SharedInformerFactory`. The resource is not checked against discovery: a wrong group,
 * version or plural makes the informer's lists fail (404) and retry with backoff, never
 * syncing. Caveat: the factory's namespace is applied to every resource except the built-in
 * cluster-scoped ones, so a factory with a namespace must not be used for a cluster-scoped
 * custom resource (its lists would answer 404); use a factory without one.
 */
export class DynamicSharedInformerFactory extends BaseInformerFactory<KubeObject> {
  /** The client every list and watch goes through. */
  readonly client: DynamicClient;

  /**
   * @param client a DynamicClient to share (its transport and rate limiter), or a config to
   *   build one from.
   * @throws {RangeError} when a `customResyncMs` key is not `group/version/resource`.
   * @throws {TypeError} when `client` is a config whose host is not an absolute URL.
   */
  constructor(
    client: DynamicClient | RestConfig,
    options: DynamicSharedInformerFactoryOptions = {},
  ) {
    const dynamicClient = client instanceof DynamicClient ? client : new DynamicClient(client);
    const { transform, ...common } = options;
    super({
      newListerWatcher: (target) => listerWatcherFor<KubeObject>(dynamicClient.restClient, target),
      options: common,
      ...(transform !== undefined ? { transform } : {}),
    });
    this.client = dynamicClient;
  }

  /**
   * The shared informer of `gvr` and its generic lister, created on the first call and the
   * same informer afterwards; it runs from the next `start()`.
   *
   * @throws {TypeError} when the version or resource is empty or contains `/`.
   */
  forResource(gvr: GroupVersionResource): GenericInformer<KubeObject> {
    const informer = this.informerFor<KubeObject>(informerResourceOf(gvr));
    return {
      informer,
      lister: new Lister<KubeObject>(informer.indexer, {
        group: gvr.group,
        resource: gvr.resource,
      }),
    };
  }
}
