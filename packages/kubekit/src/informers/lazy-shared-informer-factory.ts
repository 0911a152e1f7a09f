/**
 * `LazySharedInformerFactory`: the shared informers of the built-in resources in lazy
 * (metadata-first) mode (issue 24 §2).
 */
import type { LazyObject } from "../cache/lazy-object.js";
import { lazyListerWatcherFor } from "../cache/lazy/lazy-lister-watcher.js";
import { Lister } from "../cache/lister.js";
import type { TypedClientset } from "../client/generated/typed-clientset.js";
import type { ObjectWithMetadata } from "../client/kube-object.js";
import type { GroupVersionResource } from "../core/gvk.js";
import { builtinInformerResource } from "./builtin-informer-resource.js";
import type { InformerFactoryOptions } from "./informer-factory-options.js";
import { LazyTypedInformerFactory } from "./lazy-typed-informers.js";
import type { GenericInformer } from "./resource-informer.js";

/**
 * Shared informers of the built-in resources whose caches hold `LazyObject<T>`s: each
 * object's metadata is read from its JSON as it arrives, its body parsed on the first
 * `object()` (or `bodyOf`) and kept. The same accessors as `SharedInformerFactory`
 * (`factory.coreV1.pods()`, `forResource(gvr)`), with the same options except `transform`
 * (`withBodies(informer).setTransform(t)` transforms bodies as they are parsed), and the same
 * guarantees (one informer per resource, `start`, `waitForCacheSync`,
 * `shutdown`); handlers and listers hand out `LazyObject<T>` instead of `T`.
 *
 * Use it for caches whose bodies are mostly not read (watch every pod, reconcile a few): keys,
 * the namespace index, label selection, metadata index functions, owner references and the
 * controller toolkit's handlers and predicates run on the metadata, so an object nobody reads
 * is never parsed. Reading every body costs more than an eager factory's decode (the scan
 * plus the parse): use `SharedInformerFactory` (the default) when most bodies are read. Its
 * informers are separate from an eager factory's (one watch each).
 *
 * @example
 * ```ts
 * import { Clientset, KubeConfig, LazySharedInformerFactory } from "kubekit";
 *
 * const cs = new Clientset((await KubeConfig.load()).restConfig());
 * const factory = new LazySharedInformerFactory(cs);
 * const pods = factory.coreV1.pods(); // informer and lister of LazyObject<Pod>
 * pods.informer.addEventHandler({
 *   onAdd: (pod) => console.log("added", pod.metadata.namespace, pod.metadata.name),
 * });
 * const stop = new AbortController();
 * factory.start(stop.signal);
 * await factory.waitForCacheSync(stop.signal);
 * const web = pods.lister.pods("default").get("web-0"); // metadata only so far
 * console.log(web.object().status?.phase); // parses this one pod
 * await factory.shutdown();
 * ```
 */
export class LazySharedInformerFactory extends LazyTypedInformerFactory {
  /**
   * @param clientset the Clientset whose RESTClient (transport, rate limiter) every list
   *   and watch goes through. Watches are not throttled; lists are.
   * @throws {RangeError} when a `customResyncMs` key is not `group/version/resource`.
   */
  constructor(clientset: TypedClientset, options: InformerFactoryOptions = {}) {
    super({
      newListerWatcher: (target) =>
        lazyListerWatcherFor<ObjectWithMetadata>(clientset.restClient, target),
      options,
    });
  }

  /**
   * The lazy shared informer of any built-in resource, with the generic lister (client-go's
   * `ForResource`): the same informer as the typed accessor of that resource. `T` is
   * asserted, not checked.
   *
   * @throws {RangeError} when `gvr` is not a built-in resource that serves list and watch
   *   (custom resources: use a `LazyDynamicSharedInformerFactory`).
   */
  forResource<T extends ObjectWithMetadata = ObjectWithMetadata>(
    gvr: GroupVersionResource,
  ): GenericInformer<LazyObject<T>> {
    const resource = builtinInformerResource(gvr);
    const informer = this.informerFor<LazyObject<T>>(resource);
    return { informer, lister: new Lister<LazyObject<T>>(informer.indexer, resource) };
  }
}
