/**
 * `SharedInformerFactory`: shared informers and listers of the built-in resources over a
 * Clientset (client-go's `informers.SharedInformerFactory`).
 */
import { Lister } from "../cache/lister.js";
import { listerWatcherFor } from "../cache/lister-watcher.js";
import type { TypedClientset } from "../client/generated/typed-clientset.js";
import type { ObjectWithMetadata } from "../client/kube-object.js";
import type { GroupVersionResource } from "../core/gvk.js";
import { TypedInformerFactory } from "./generated/typed-informers.js";
import { builtinInformerResource } from "./builtin-informer-resource.js";
import type { InformerFactoryOptions } from "./informer-factory-options.js";
import type { GenericInformer } from "./resource-informer.js";

/** Options of a {@link SharedInformerFactory}. */
export interface SharedInformerFactoryOptions extends InformerFactoryOptions {
  /**
   * Applied by every informer to every object before it is cached and handed to handlers
   * (client-go's `WithTransform`), e.g. `stripManagedFields`. It may mutate the object in
   * place and should be idempotent.
   */
  readonly transform?: <T extends ObjectWithMetadata>(obj: T) => T;
}

/**
 * Shared informers of the built-in resources, one per resource, over a Clientset's
 * RESTClient.
 *
 * - Accessors (`factory.<groupVersion>.<resource>()`) exist for every built-in resource that
 *   serves list and watch; objects are typed with kubernetes-types. The informer is created
 *   on the first call and shared afterwards (also with {@link forResource}); it runs from
 *   the next {@link start}.
 * - Every informer lists and watches with the factory's namespace (namespaced resources
 *   only), `tweakListOptions` (on list and watch), `customResyncMs[group/version/resource]`
 *   or else `resyncPeriodMs`, `transform` and `informerOptions`.
 * - {@link waitForCacheSync} reports the informers' caches, not their handlers' progress.
 *
 * @example
 * ```ts
 * import { Clientset, KubeConfig, SharedInformerFactory } from "kubekit";
 *
 * const cs = new Clientset((await KubeConfig.load()).restConfig());
 * const factory = new SharedInformerFactory(cs, { resyncPeriodMs: 0, namespace: "default" });
 * const pods = factory.coreV1.pods(); // { informer, lister }
 * pods.informer.addEventHandler({
 *   onAdd: (pod) => console.log("added", pod.metadata?.name),
 *   onDelete: (pod) => console.log("deleted", "key" in pod ? pod.key : pod.metadata?.name),
 * });
 * const stop = new AbortController();
 * factory.start(stop.signal);
 * await factory.waitForCacheSync(stop.signal); // Map { "/v1/pods" => true }
 * console.log(pods.lister.pods("default").get("web-0").status?.phase); // from the cache
 * await factory.shutdown(); // stops the informers
 * ```
 */
export class SharedInformerFactory extends TypedInformerFactory {
  /**
   * @param clientset the Clientset whose RESTClient (transport, rate limiter) every list
   *   and watch goes through. Watches are not throttled; lists are.
   * @throws {RangeError} when a `customResyncMs` key is not `group/version/resource`.
   */
  constructor(clientset: TypedClientset, options: SharedInformerFactoryOptions = {}) {
    const { transform, ...common } = options;
    super({
      newListerWatcher: (target) =>
        listerWatcherFor<ObjectWithMetadata>(clientset.restClient, target),
      options: common,
      ...(transform !== undefined ? { transform } : {}),
    });
  }

  /**
   * The shared informer of any built-in resource, with the generic lister (client-go's
   * `ForResource`): the same informer as the typed accessor of that resource. `T` is
   * asserted, not checked.
   *
   * @throws {RangeError} when `gvr` is not a built-in resource that serves list and watch
   *   (custom resources: use a `DynamicSharedInformerFactory`).
   */
  forResource<T extends ObjectWithMetadata = ObjectWithMetadata>(
    gvr: GroupVersionResource,
  ): GenericInformer<T> {
    const resource = builtinInformerResource(gvr);
    const informer = this.informerFor<T>(resource);
    return { informer, lister: new Lister<T>(informer.indexer, resource) };
  }
}
