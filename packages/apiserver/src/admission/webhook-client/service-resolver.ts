/**
 * A webhook Service resolved to one endpoint, as kube-apiserver's endpoint service resolver
 * does (`ResolveEndpoint` and `RandomEndpoint` in `staging/src/k8s.io/apiserver/pkg/util/proxy/proxy.go`,
 * the resolver kube-apiserver uses with `--enable-aggregator-routing`; the embedded server has
 * no kube-proxy to route a ClusterIP): the Service from storage, its port whose `port` is the
 * webhook's port, then the Service's EndpointSlices (label `kubernetes.io/service-name`), a
 * slice port named as the Service port, and a ready endpoint (`conditions.ready` not false) —
 * its first address and the slice port's number. A Service without selector plus an
 * EndpointSlice at `127.0.0.1` and a local port is how tests point a webhook Service at a
 * local server. Errors carry kube's messages.
 */
import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import type { ServerContext } from "../../server/server-context.js";
import { WebhookCallError } from "./webhook-call-error.js";

/** The label an EndpointSlice names its Service with. */
const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

/** An endpoint to dial. */
export interface ResolvedEndpoint {
  /** An IPv4 or IPv6 address (as the slice gives it). */
  readonly address: string;
  readonly port: number;
}

function storageIdOf(ctx: ServerContext, group: string, version: string, plural: string): string {
  return ctx.registry.lookup(group, version, plural)?.storageId ?? `${group}/${plural}`;
}

function arrayOf(value: JsonValue | undefined): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

function portName(port: JsonObject): string {
  return typeof port["name"] === "string" ? port["name"] : "";
}

/** The Service port whose `port` is `port` (`findServicePort`). */
function servicePort(service: JsonObject, name: string, port: number): JsonObject {
  const spec = isJsonObject(service["spec"]) ? service["spec"] : {};
  const type = typeof spec["type"] === "string" && spec["type"] !== "" ? spec["type"] : "ClusterIP";
  if (type !== "ClusterIP" && type !== "LoadBalancer" && type !== "NodePort") {
    throw new WebhookCallError("resolve", `unsupported service type "${type}"`);
  }
  const found = arrayOf(spec["ports"]).find((p) => p["port"] === port);
  if (!found) {
    throw new WebhookCallError("resolve", `no service port ${port} found for service "${name}"`);
  }
  return found;
}

/** A ready endpoint of `slices` serving the port named `name`, from a random start as kube picks. */
function readyEndpoint(slices: readonly JsonObject[], name: string): ResolvedEndpoint | undefined {
  for (const slice of slices) {
    for (const port of arrayOf(slice["ports"])) {
      // kube defaults an EndpointSlice port's name to "" (SetDefaults_EndpointPort).
      if (portName(port) !== name || typeof port["port"] !== "number") continue;
      const endpoints = arrayOf(slice["endpoints"]);
      const offset = Math.floor(Math.random() * endpoints.length);
      for (let i = 0; i < endpoints.length; i++) {
        const endpoint = endpoints[(i + offset) % endpoints.length] as JsonObject;
        const conditions = isJsonObject(endpoint["conditions"]) ? endpoint["conditions"] : {};
        if (conditions["ready"] === false) continue;
        const [address] = Array.isArray(endpoint["addresses"]) ? endpoint["addresses"] : [];
        if (typeof address === "string") return { address, port: port["port"] };
      }
    }
  }
  return undefined;
}

/**
 * The endpoint of Service `namespace/name` serving its port `port`.
 * @throws WebhookCallError (`resolve`) with kube's message: `service "NAME" not found`,
 *   `no service port P found for service "NAME"`, `no endpoints available for service "NAME"`.
 */
export function resolveServiceEndpoint(
  ctx: ServerContext,
  namespace: string,
  name: string,
  port: number,
): ResolvedEndpoint {
  const service = ctx.storage.get(storageIdOf(ctx, "", "v1", "services"), `${namespace}/${name}`);
  if (!service) throw new WebhookCallError("resolve", `service "${name}" not found`);
  const svcPort = servicePort(service, name, port);
  const slices: JsonObject[] = [];
  const slicesId = storageIdOf(ctx, "discovery.k8s.io", "v1", "endpointslices");
  for (const [, slice] of ctx.storage.withPrefix(slicesId, `${namespace}/`)) {
    const meta = isJsonObject(slice["metadata"]) ? slice["metadata"] : {};
    const labels = isJsonObject(meta["labels"]) ? meta["labels"] : {};
    if (labels[SERVICE_NAME_LABEL] === name) slices.push(slice);
  }
  const endpoint = readyEndpoint(slices, portName(svcPort));
  if (!endpoint) {
    throw new WebhookCallError("resolve", `no endpoints available for service "${name}"`);
  }
  return endpoint;
}
