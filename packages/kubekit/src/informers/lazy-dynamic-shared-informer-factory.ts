/**
 * `LazyDynamicSharedInformerFactory`: shared informers of any resource, custom resources
 * included, in lazy (metadata-first) mode (issue 24 §2).
 */
import type { LazyObject } from "../cache/lazy-object.js";
import { lazyListerWatcherFor } from "../cache/lazy/lazy-lister-watcher.js";
import { Lister } from "../cache/lister.js";
import { DynamicClient } from "../client/dynamic-client.js";
import type { KubeObject } from "../client/kube-object.js";
import type { RestConfig } from "../config/rest-config.js";
import type { GroupVersionResource } from "../core/gvk.js";
import { BaseInformerFactory } from "./base-informer-factory.js";
import type { InformerFactoryOptions } from "./informer-factory-options.js";
import { informerResourceOf } from "./informer-resource-of.js";
import type { GenericInformer } from "./resource-informer.js";

/**
 * Shared informers keyed by GroupVersionResource whose caches hold `LazyObject<T>`s (the
 * metadata read as objects arrive, the body parsed on first `object()`), for any resource:
 * custom resources (JSON), or built-in ones read unstructured.
 *
 * ```ts
 * const factory = new LazyDynamicSharedInformerFactory(restConfig);
 * const widgets = factory.forResource<Widget>({ group: "example.com", version: "v1", resource: "widgets" });
 * widgets.informer.addEventHandler({ onAdd: (w) => console.log(w.metadata.name) });
 * factory.start(signal);
 * await factory.waitForCacheSync(signal);
 * widgets.lister.namespace("default").get("w1").object().spec; // parses w1 only
 * ```
 *
 * Options (except `transform`), resource validation, the namespace caveat, start, sync and
 * shutdown as for `DynamicSharedInformerFactory`; when to prefer lazy informers as for
 * `LazySharedInformerFactory`. Its informers are separate from an eager factory's.
 */
export class LazyDynamicSharedInformerFactory extends BaseInformerFactory<LazyObject<unknown>> {
  /** The client every list and watch goes through. */
  readonly client: DynamicClient;

  /**
   * @param client a DynamicClient to share (its transport and rate limiter), or a config to
   *   build one from.
   * @throws {RangeError} when a `customResyncMs` key is not `group/version/resource`.
   * @throws {TypeError} when `client` is a config whose host is not an absolute URL.
   */
  constructor(client: DynamicClient | RestConfig, options: InformerFactoryOptions = {}) {
    const dynamicClient = client instanceof DynamicClient ? client : new DynamicClient(client);
    super({
      newListerWatcher: (target) => lazyListerWatcherFor<unknown>(dynamicClient.restClient, target),
      options,
    });
    this.client = dynamicClient;
  }

  /**
   * The lazy shared informer of `gvr` and its generic lister, created on the first call and
   * the same informer afterwards; it runs from the next `start()`. `T` (default
   * `KubeObject`) is what `object()` returns: asserted, not checked (e.g. a type generated
   * from the CRD).
   *
   * @throws {TypeError} when the version or resource is empty or contains `/`.
   */
  forResource<T = KubeObject>(gvr: GroupVersionResource): GenericInformer<LazyObject<T>> {
    const informer = this.informerFor<LazyObject<T>>(informerResourceOf(gvr));
    return {
      informer,
      lister: new Lister<LazyObject<T>>(informer.indexer, {
        group: gvr.group,
        resource: gvr.resource,
      }),
    };
  }
}
