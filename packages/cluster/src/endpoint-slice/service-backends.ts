import type { Pod, Service, ServicePort } from "kubernetes-types/core/v1.js";
import { namespaceOf } from "kubekit/apimachinery";
import {
  LabelSelector,
  objectKey,
  resourceVersionChanged,
  type ControllerWatchOptions,
  type NamespaceLister,
} from "kubekit";
import { isPodTerminated } from "../controller-support/pod-state.js";

/**
 * The pods behind a Service, as kube-controller-manager's endpoints and EndpointSlice
 * controllers pick them (`pkg/controller/endpoint/endpoints_controller.go`,
 * `staging/src/k8s.io/endpointslice/utils.go`, `pkg/controller/util/endpoint/controller_utils.go`,
 * `pkg/api/v1/pod/util.go` FindPort): which pods a Service selects, which of them get an
 * endpoint, on which port numbers, under which address family.
 */

/** The IP families of an endpoint address. */
export type IpFamily = "IPv4" | "IPv6";

/**
 * The Service's selector, or `undefined` when it has none. An empty selector counts as none:
 * kube-apiserver stores an empty map as no map, so kube's controllers read `selector: {}` as a
 * Service whose endpoints are managed by someone else.
 */
export function serviceSelector(service: Service): LabelSelector | undefined {
  const selector = service.spec?.selector;
  if (selector === undefined || Object.keys(selector).length === 0) return undefined;
  return LabelSelector.fromSet(selector);
}

/**
 * The keys (`namespace/name`) of the Services in the pod's namespace whose selector matches
 * its labels (kube's `GetPodServiceMemberships`): the Services to reconcile when the pod
 * changes.
 */
export function servicesSelecting(services: NamespaceLister<Service>, pod: Pod): string[] {
  const labels = pod.metadata?.labels ?? {};
  return services
    .list()
    .filter((service) => serviceSelector(service)?.matches(labels) === true)
    .map((service) => objectKey(service));
}

/**
 * How the endpoints and EndpointSlice controllers watch pods (kube's `addPod`, `updatePod`,
 * `deletePod` handlers): a pod change that changed its resourceVersion (not a resync)
 * reconciles the keys of the Services of its namespace that select it ({@link servicesSelecting}).
 *
 * @param services - the Service lister, by namespace.
 */
export function podsOfServicesWatch(services: {
  services(namespace: string): NamespaceLister<Service>;
}): ControllerWatchOptions<Pod> {
  return {
    map: (pod: Pod) => servicesSelecting(services.services(namespaceOf(pod)), pod),
    predicates: [resourceVersionChanged],
  };
}

/** The pod's IPs: `status.podIPs`, or `status.podIP` alone when the list is empty. */
function podIps(pod: Pod): string[] {
  const listed = (pod.status?.podIPs ?? [])
    .map((p) => p.ip)
    .filter((ip): ip is string => ip !== undefined && ip !== "");
  if (listed.length > 0) return listed;
  const single = pod.status?.podIP;
  return single !== undefined && single !== "" ? [single] : [];
}

/** The family of an IP address (utilnet.IsIPv6String: anything with a colon is IPv6). */
export function ipFamilyOf(ip: string): IpFamily {
  return ip.includes(":") ? "IPv6" : "IPv4";
}

/** The pod's IPs of `family`, in the pod's order. */
export function podIpsOf(pod: Pod, family: IpFamily): string[] {
  return podIps(pod).filter((ip) => ipFamilyOf(ip) === family);
}

/**
 * The IP families a Service's endpoints use (`getAddressTypesForService`): its
 * `spec.ipFamilies`, else the family of its cluster IP, else (a headless Service of an API
 * server that does not default families) both.
 */
export function serviceIpFamilies(service: Service): IpFamily[] {
  const families = (service.spec?.ipFamilies ?? []).filter(
    (f): f is IpFamily => f === "IPv4" || f === "IPv6",
  );
  if (families.length > 0) return [...new Set(families)];
  const clusterIp = service.spec?.clusterIP ?? "";
  if (clusterIp !== "" && clusterIp !== "None") return [ipFamilyOf(clusterIp)];
  return ["IPv4", "IPv6"];
}

/** Whether the Service has a cluster IP (`helper.IsServiceIPSet`): not headless. */
export function hasClusterIp(service: Service): boolean {
  const clusterIp = service.spec?.clusterIP ?? "";
  return clusterIp !== "" && clusterIp !== "None";
}

/**
 * Whether the pod gets an endpoint at all (`endpointsliceutil.ShouldPodBeInEndpoints`): not
 * terminated (Succeeded or Failed), with an IP, and not being deleted unless
 * `includeTerminating` (the EndpointSlice controller always includes terminating pods, with
 * their conditions; the endpoints controller only under `publishNotReadyAddresses`).
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (isPodTerminated(pod)) return false;
  if (podIps(pod).length === 0) return false;
  return includeTerminating || pod.metadata?.deletionTimestamp === undefined;
}

/**
 * The container port a Service port reaches on the pod (`podutil.FindPort`): a numeric
 * `targetPort` as is (absent means the Service's `port`, as kube-apiserver defaults it); a
 * string one (even all digits, as intstr decodes it) is a port name, looked up among the containers' ports with the Service port's protocol, then
 * among restartable init containers' (sidecars). `undefined` when the pod has no such port
 * (the pod then gets no endpoint for that Service port).
 */
export function findPort(pod: Pod, servicePort: ServicePort): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === "number") return target;
  const protocol = servicePort.protocol ?? "TCP";
  const spec = pod.spec;
  const containers = [
    ...(spec?.containers ?? []),
    ...(spec?.initContainers ?? []).filter((c) => c.restartPolicy === "Always"),
  ];
  for (const container of containers) {
    for (const port of container.ports ?? []) {
      if (port.name === target && (port.protocol ?? "TCP") === protocol) return port.containerPort;
    }
  }
  return undefined;
}

/**
 * Whether an endpoint of the pod carries its hostname (`endpointutil.ShouldSetHostname`):
 * the pod sets `spec.hostname` and its `spec.subdomain` names this Service, in its namespace.
 */
export function shouldSetHostname(pod: Pod, service: Service): boolean {
  const hostname = pod.spec?.hostname ?? "";
  return (
    hostname !== "" &&
    pod.spec?.subdomain === service.metadata?.name &&
    pod.metadata?.namespace === service.metadata?.namespace
  );
}
