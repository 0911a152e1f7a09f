import type {
  EndpointAddress,
  EndpointPort,
  EndpointSubset,
  Endpoints,
  Pod,
  Service,
} from "kubernetes-types/core/v1.js";
import { deepEqual, errorMessage, nameOf, namespaceOf } from "kubekit/apimachinery";
import { Controller, isConflict, isNotFound, splitKey } from "kubekit";
import type { ClusterContext } from "../cluster-context.js";
import { HEADLESS_LABEL } from "./endpoint-slice-plan.js";
import { isNamespaceTerminating } from "../controller-support/namespace-terminating.js";
import { OwnWrites } from "../controller-support/own-writes.js";
import { isPodReady } from "../controller-support/pod-state.js";
import {
  findPort,
  hasClusterIp,
  ipFamilyOf,
  podIpsOf,
  serviceSelector,
  podsOfServicesWatch,
  shouldPodBeInEndpoints,
  shouldSetHostname,
  type IpFamily,
} from "./service-backends.js";

/** kube-controller-manager's `--concurrent-endpoint-syncs` default. */
const WORKERS = 5;

/**
 * The family of the Service's endpoint addresses (`podToEndpointAddressForService`): its
 * first IP family, else its cluster IP's, else (headless) the pod's.
 */
function addressFamily(service: Service, pod: Pod): IpFamily {
  const first = service.spec?.ipFamilies?.[0];
  if (first === "IPv4" || first === "IPv6") return first;
  const clusterIp = service.spec?.clusterIP ?? "";
  if (hasClusterIp(service)) return ipFamilyOf(clusterIp);
  return ipFamilyOf(pod.status?.podIP ?? "");
}

/** The pod's address for the Service, or `undefined` when it has no IP of the Service's family. */
function endpointAddress(service: Service, pod: Pod): EndpointAddress | undefined {
  const ip = podIpsOf(pod, addressFamily(service, pod))[0];
  if (ip === undefined) return undefined;
  const nodeName = pod.spec?.nodeName ?? "";
  return {
    ip,
    ...(shouldSetHostname(pod, service) ? { hostname: pod.spec?.hostname ?? "" } : {}),
    ...(nodeName !== "" ? { nodeName } : {}),
    targetRef: {
      kind: "Pod",
      namespace: namespaceOf(pod),
      name: nameOf(pod),
      uid: pod.metadata?.uid ?? "",
    },
  };
}

/** An address's identity in a repack: its IP and the pod it belongs to. */
function addressKey(address: EndpointAddress): string {
  return `${address.ip}/${address.targetRef?.uid ?? ""}`;
}

function byIpAndUid(a: EndpointAddress, b: EndpointAddress): number {
  return addressKey(a).localeCompare(addressKey(b));
}

function byPortIdentity(a: EndpointPort, b: EndpointPort): number {
  return (
    (a.name ?? "").localeCompare(b.name ?? "") ||
    a.port - b.port ||
    (a.protocol ?? "").localeCompare(b.protocol ?? "")
  );
}

/** One address on one port: ready, or only not-ready. */
interface PortAddresses {
  readonly port: EndpointPort | undefined;
  readonly addresses: Map<string, { address: EndpointAddress; ready: boolean }>;
}

/**
 * The subsets in their canonical form (`pkg/api/v1/endpoints/util.go` RepackSubsets): every
 * address listed once per port, ready winning over not-ready; ports offered by the same set
 * of addresses grouped into one subset; addresses sorted by IP and pod uid, ports by name and
 * number, subsets by their first address (kube orders ports and subsets by hash instead).
 */
export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  const byPort = new Map<string, PortAddresses>();
  const add = (port: EndpointPort | undefined, address: EndpointAddress, ready: boolean): void => {
    const portKey =
      port === undefined
        ? ""
        : JSON.stringify([
            port.name ?? "",
            port.port,
            port.protocol ?? "TCP",
            port.appProtocol ?? "",
          ]);
    let entry = byPort.get(portKey);
    if (entry === undefined) {
      entry = { port, addresses: new Map() };
      byPort.set(portKey, entry);
    }
    const key = addressKey(address);
    const seen = entry.addresses.get(key);
    if (seen === undefined || !seen.ready) entry.addresses.set(key, { address, ready });
  };
  for (const subset of subsets) {
    const ports =
      subset.ports !== undefined && subset.ports.length > 0 ? subset.ports : [undefined];
    for (const port of ports) {
      for (const address of subset.addresses ?? []) add(port, address, true);
      for (const address of subset.notReadyAddresses ?? []) add(port, address, false);
    }
  }
  const bySet = new Map<string, { entry: PortAddresses; ports: EndpointPort[] }>();
  for (const entry of byPort.values()) {
    const setKey = JSON.stringify(
      [...entry.addresses]
        .map(([k, v]) => [k, v.ready])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const group = bySet.get(setKey) ?? { entry, ports: [] };
    if (entry.port !== undefined) group.ports.push(entry.port);
    bySet.set(setKey, group);
  }
  const repacked = [...bySet.values()].map(({ entry, ports }): EndpointSubset => {
    const all = [...entry.addresses.values()];
    const ready = all
      .filter((a) => a.ready)
      .map((a) => a.address)
      .sort(byIpAndUid);
    const notReady = all
      .filter((a) => !a.ready)
      .map((a) => a.address)
      .sort(byIpAndUid);
    return {
      ...(ready.length > 0 ? { addresses: ready } : {}),
      ...(notReady.length > 0 ? { notReadyAddresses: notReady } : {}),
      ...(ports.length > 0 ? { ports: ports.sort(byPortIdentity) } : {}),
    };
  });
  const firstKey = (s: EndpointSubset): string => {
    const first = s.addresses?.[0] ?? s.notReadyAddresses?.[0];
    return first === undefined ? "" : addressKey(first);
  };
  return repacked.sort((a, b) => firstKey(a).localeCompare(firstKey(b)));
}

/** The subsets of the Service's pods (`syncService`), repacked. */
function desiredSubsets(service: Service, pods: readonly Pod[]): EndpointSubset[] {
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  const ports = service.spec?.ports ?? [];
  const subsets: EndpointSubset[] = [];
  const add = (pod: Pod, address: EndpointAddress, port: EndpointPort | undefined): void => {
    const ready = publishNotReady || isPodReady(pod);
    subsets.push({
      ...(ready ? { addresses: [address] } : { notReadyAddresses: [address] }),
      ...(port !== undefined ? { ports: [port] } : {}),
    });
  };
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const address = endpointAddress(service, pod);
    if (address === undefined) continue;
    if (ports.length === 0) {
      // A headless Service may have no ports: its addresses alone.
      if (service.spec?.clusterIP === "None") add(pod, address, undefined);
      continue;
    }
    for (const servicePort of ports) {
      const port = findPort(pod, servicePort);
      if (port === undefined) continue;
      add(pod, address, {
        ...(servicePort.name !== undefined && servicePort.name !== ""
          ? { name: servicePort.name }
          : {}),
        port,
        protocol: servicePort.protocol ?? "TCP",
        ...(servicePort.appProtocol !== undefined ? { appProtocol: servicePort.appProtocol } : {}),
      });
    }
  }
  return repackSubsets(subsets);
}

/** The Endpoints' labels: the Service's, plus the headless label when it has no cluster IP. */
function endpointsLabels(service: Service): Record<string, string> {
  const labels: Record<string, string> = { ...service.metadata?.labels };
  if (hasClusterIp(service)) delete labels[HEADLESS_LABEL];
  else labels[HEADLESS_LABEL] = "";
  return labels;
}

/** Subsets compared on what this controller writes (a pod's resourceVersion is ignored, as kube does). */
function canonicalSubsets(subsets: readonly EndpointSubset[] | undefined): unknown {
  const address = (a: EndpointAddress) => [
    a.ip,
    a.hostname ?? "",
    a.nodeName ?? "",
    a.targetRef?.kind ?? "",
    a.targetRef?.namespace ?? "",
    a.targetRef?.name ?? "",
    a.targetRef?.uid ?? "",
  ];
  return (subsets ?? []).map((s) => [
    (s.addresses ?? []).map(address),
    (s.notReadyAddresses ?? []).map(address),
    (s.ports ?? []).map((p) => [p.name ?? "", p.port, p.protocol ?? "TCP", p.appProtocol ?? ""]),
  ]);
}

/**
 * kube-controller-manager's endpoints controller (`pkg/controller/endpoint`), the core/v1
 * half of the simulated `endpointslice` controller: for every Service with a selector (and
 * not of type ExternalName), an Endpoints object of the Service's name holding its pods'
 * addresses, ready ones under `addresses`, the others under `notReadyAddresses`
 * (`publishNotReadyAddresses` lists them all as ready), with each Service port resolved
 * against the pod (named target ports included) and subsets repacked as kube does; labels
 * are the Service's, plus `service.kubernetes.io/headless` for a headless Service.
 * Terminating pods are left out unless the Service publishes not-ready addresses. When the
 * Service is deleted, so is its Endpoints object; an Endpoints object deleted by someone
 * else is recreated. Endpoints of Services without a selector are never touched.
 *
 * Failed writes (other than conflicts) record kube's Warning Events on the Endpoints
 * (`FailedToCreateEndpoint`, `FailedToUpdateEndpoint`); a create refused because the
 * namespace is terminating is dropped.
 *
 * Caveats: no `endpoints.kubernetes.io/last-change-trigger-time` annotation, and no
 * truncation at 1000 addresses (`endpoints.kubernetes.io/over-capacity`).
 */
export function endpointsController(ctx: ClusterContext): Controller {
  const client = ctx.clientset("kube-controller-manager");
  const services = ctx.factory.coreV1.services();
  const pods = ctx.factory.coreV1.pods();
  const endpoints = ctx.factory.coreV1.endpoints();
  const recorder = ctx.recorder("endpoint-controller", "kube-controller-manager");

  const reconcile = async (key: string, signal: AbortSignal): Promise<{ requeue: true } | void> => {
    const { namespace, name } = splitKey(key);
    const endpointsClient = client.coreV1.endpoints(namespace);
    let service: Service;
    try {
      service = services.lister.services(namespace).get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // The Service is gone: so are its Endpoints.
      try {
        await endpointsClient.delete(name, { signal });
      } catch (deleteErr) {
        if (!isNotFound(deleteErr)) throw deleteErr;
      }
      return;
    }
    if (service.spec?.type === "ExternalName") return;
    const selector = serviceSelector(service);
    if (selector === undefined) return;

    const selected = pods.lister
      .pods(namespace)
      .list(selector)
      .sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
    const subsets = desiredSubsets(service, selected);
    let current: Endpoints | undefined;
    try {
      current = endpoints.lister.endpoints(namespace).get(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const labels = endpointsLabels(service);
    if (
      current !== undefined &&
      deepEqual(canonicalSubsets(current.subsets), canonicalSubsets(subsets)) &&
      deepEqual(current.metadata?.labels ?? {}, labels)
    ) {
      return;
    }
    const next: Endpoints = {
      ...(current ?? {}),
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { ...(current?.metadata ?? {}), name, namespace, labels },
      subsets,
    };
    let written: Endpoints;
    try {
      written =
        current === undefined
          ? await endpointsClient.create(next, { signal })
          : await endpointsClient.update(next, { signal });
    } catch (err) {
      if (current === undefined && isNamespaceTerminating(err)) return;
      if (!isConflict(err) && !signal.aborted) {
        const [reason, message] =
          current === undefined
            ? [
                "FailedToCreateEndpoint",
                `Failed to create endpoint for service ${namespace}/${name}`,
              ]
            : ["FailedToUpdateEndpoint", `Failed to update endpoint ${namespace}/${name}`];
        recorder.event(next, "Warning", reason, `${message}: ${errorMessage(err)}`);
      }
      throw err;
    }
    const writes = new OwnWrites();
    writes.record(endpoints.informer, written);
    if (!(await writes.observed(signal))) return { requeue: true };
  };

  const controller = new Controller({
    name: "endpoints",
    workers: WORKERS,
    reconcile,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  controller.watch(services.informer);
  controller.watch(pods.informer, podsOfServicesWatch(services.lister));
  // Only deletions: an Endpoints object someone removed is put back (kube's onEndpointsDelete).
  controller.watch(endpoints.informer, {
    predicates: [{ create: () => false, update: () => false }],
  });
  return controller;
}
