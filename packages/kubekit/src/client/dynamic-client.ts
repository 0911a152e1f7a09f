/**
 * The dynamic client (client-go's `dynamic.DynamicClient`): the resource verbs on
 * unstructured objects of any resource, including custom resources, by GroupVersionResource.
 */
import type { GroupVersionResource } from "../core/gvk.js";
import type { RestConfig } from "../config/rest-config.js";
import type { RESTClientOptions } from "../rest/rest-client.js";
import { RESTClient } from "../rest/rest-client.js";
import type { KubeObject, KubeObjectList } from "./kube-object.js";
import type { ListCallOptions } from "./call-options.js";
import { ResourceClient } from "./resource-client.js";

/**
 * The dynamic client of one resource. As it is, it addresses the resource without a
 * namespace: a cluster-scoped resource, or every namespace of a namespaced one (list,
 * watch and deleteCollection then span all namespaces; other verbs on a namespaced
 * resource answer 404). {@link namespace} gives the client of one namespace.
 */
export class DynamicResourceClient extends ResourceClient<KubeObject, KubeObjectList> {
  /** The client of this resource in `namespace` (`""`: this client). */
  namespace(namespace: string): ResourceClient<KubeObject, KubeObjectList> {
    return new DynamicResourceClient(this.restClient, { ...this.target, namespace });
  }

  /**
   * One list request. Items of built-in kinds come without apiVersion and kind (the server
   * omits them inside lists); like client-go's unstructured decoding, they are filled in
   * from the list so every item is a complete object.
   */
  override async list(options: ListCallOptions = {}): Promise<KubeObjectList> {
    const list = await super.list(options);
    const kind =
      typeof list.kind === "string" && list.kind.endsWith("List")
        ? list.kind.slice(0, -4)
        : undefined;
    const apiVersion = list.apiVersion;
    if (!kind || !apiVersion || list.items.every((item) => item.kind && item.apiVersion))
      return list;
    return {
      ...list,
      items: list.items.map((item) =>
        item.kind && item.apiVersion
          ? item
          : { ...item, apiVersion: item.apiVersion || apiVersion, kind: item.kind || kind },
      ),
    };
  }
}

/**
 * Clients for any resource, custom resources included, on unstructured {@link KubeObject}s:
 * `resource(gvr)` for cluster-wide calls, `.namespace(ns)` for one namespace.
 *
 * JSON only, as client-go's. The resource is not checked against discovery: a wrong
 * group, version or plural answers 404. Strategic merge patches are refused by the server
 * for custom resources (415). Every resource client of one DynamicClient shares its
 * RESTClient (one transport and one client-side rate limiter).
 *
 * @example
 * ```ts
 * import { DynamicClient, KubeConfig } from "kubekit";
 *
 * const dc = new DynamicClient((await KubeConfig.load()).restConfig());
 * const deployments = dc.resource({ group: "apps", version: "v1", resource: "deployments" });
 * for (const d of (await deployments.listAll()).items) {
 *   console.log(`${d.metadata?.namespace}/${d.metadata?.name}`, d["spec"]); // every namespace
 * }
 * const pods = dc.resource({ group: "", version: "v1", resource: "pods" });
 * const pod = await pods.namespace("default").get("web-0");
 * console.log(pod.kind, pod.apiVersion); // Pod v1
 * ```
 */
export class DynamicClient {
  /** The RESTClient every request goes through. */
  readonly restClient: RESTClient;

  /**
   * @param config the connection settings, or a RESTClient to share with other clients
   *   (its rate limiter and transport are then shared too; `options` are ignored).
   * @param options passed to the {@link RESTClient} built from a config (clock, logger,
   *   rate limiter, ...).
   * @throws {TypeError} when `config.host` is not an absolute URL.
   */
  constructor(config: RestConfig | RESTClient, options: RESTClientOptions = {}) {
    this.restClient = config instanceof RESTClient ? config : new RESTClient(config, options);
  }

  /** The client of a resource (plural, e.g. `deployments`), cluster-wide or all namespaces. */
  resource(gvr: GroupVersionResource): DynamicResourceClient {
    return new DynamicResourceClient(this.restClient, {
      group: gvr.group,
      version: gvr.version,
      resource: gvr.resource,
      namespace: "",
    });
  }
}
