/**
 * `Clientset`: the typed clients of every built-in resource for one RestConfig
 * (client-go's `kubernetes.Clientset`).
 */
import type { RestConfig } from "../config/rest-config.js";
import type { RESTClientOptions } from "../rest/rest-client.js";
import { RESTClient } from "../rest/rest-client.js";
import { TypedClientset } from "./generated/typed-clientset.js";

/** Options of a {@link Clientset}: those of its {@link RESTClient}. */
export type ClientsetOptions = RESTClientOptions;

/**
 * Typed clients for every built-in resource, one property per group version
 * (`cs.coreV1.pods(namespace)`, `cs.appsV1.deployments(namespace)`, `cs.coreV1.namespaces()`).
 *
 * - Objects are typed with `kubernetes-types` (`Pod`, `PodList`, ...); a resource's client
 *   exposes only the verbs it serves, and a namespaced resource without a namespace only
 *   the collection verbs (list, listAll, listPages, watch, deleteCollection).
 * - Every client sends through one {@link RESTClient} (`restClient`): one transport and
 *   one client-side rate limiter (QPS 5 / burst 10 unless the config or `options` say
 *   otherwise) for the whole clientset. Accessors are cheap: they build a small client
 *   object per call and hold no connection of their own.
 * - JSON on the wire (client-go's built-in clients prefer protobuf).
 *
 * @example
 * ```ts
 * import { Clientset, KubeConfig } from "kubekit";
 *
 * const cs = new Clientset((await KubeConfig.load()).restConfig());
 * await cs.coreV1.namespaces().create({ metadata: { name: "team-a" } });
 * await cs.coreV1.configMaps("team-a").create({ metadata: { name: "cfg" }, data: { a: "1" } });
 * const web = await cs.coreV1.pods("default").list({ labelSelector: "app=web" });
 * const everywhere = await cs.coreV1.pods().listAll(); // every namespace, page by page
 * console.log(web.items.length, everywhere.items.length);
 * for await (const event of cs.coreV1.pods("default").watch()) {
 *   console.log(event.type); // ADDED for each existing pod, then the changes
 *   if (event.type === "DELETED") break; // leaving the loop closes the watch
 * }
 * ```
 */
export class Clientset extends TypedClientset {
  /**
   * @param config the connection settings, or a RESTClient to share with other clients
   *   (e.g. a DynamicClient: one rate limiter for both; `options` are then ignored).
   * @param options passed to the {@link RESTClient} built from a config.
   * @throws {TypeError} when `config.host` is not an absolute URL.
   * @throws {RangeError} for an invalid qps/burst or `maxRetries`.
   */
  constructor(config: RestConfig | RESTClient, options: ClientsetOptions = {}) {
    super(config instanceof RESTClient ? config : new RESTClient(config, options));
  }
}
