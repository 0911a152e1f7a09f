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
 * Typed clients for every built-in resource, one property per group version:
 *
 * ```ts
 * const cs = new Clientset(restConfig);
 * await cs.coreV1.pods("default").list({ labelSelector: "app=web" });
 * await cs.coreV1.pods().listAll();                    // every namespace
 * await cs.coreV1.namespaces().create({ metadata: { name: "team-a" } });
 * await cs.appsV1.deployments("default").getScale("web");
 * for await (const line of cs.coreV1.pods("default").log("web-0", { follow: true })) {}
 * ```
 *
 * - Objects are typed with `kubernetes-types` (`Pod`, `PodList`, ...); a resource's client
 *   exposes only the verbs it serves, and a namespaced resource without a namespace only
 *   the collection verbs (list, listAll, listPages, watch, deleteCollection).
 * - Every client sends through one {@link RESTClient} (`restClient`): one transport and
 *   one client-side rate limiter (QPS 5 / burst 10 unless the config or `options` say
 *   otherwise) for the whole clientset. Accessors are cheap: they build a small client
 *   object per call and hold no connection of their own.
 * - JSON on the wire (client-go's built-in clients prefer protobuf).
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
