import type { Node, Pod, Service } from "kubernetes-types/core/v1.js";
import type { Endpoint, EndpointPort, EndpointSlice } from "kubernetes-types/discovery/v1.js";
import {
  Controller,
  LabelSelector,
  StatusError,
  isConflict,
  isNotFound,
  splitKey,
  type Runnable,
} from "kubekit";
import type { ClusterContext } from "./cluster-context.js";
import {
  DEFAULT_MAX_ENDPOINTS_PER_SLICE,
  ENDPOINT_SLICE_CONTROLLER_NAME,
  MANAGED_BY_LABEL,
  SERVICE_NAME_LABEL,
  planEndpointSlices,
  sortPorts,
  type EndpointGroup,
} from "./endpoint-slice-plan.js";
import { endpointsController } from "./endpoints-controller.js";
import { isNamespaceTerminating } from "./namespace-terminating.js";
import { OwnWrites } from "./own-writes.js";
import { isPodReady } from "./pod-state.js";
import {
  findPort,
  podIpsOf,
  serviceIpFamilies,
  serviceSelector,
  podsOfServicesWatch,
  shouldPodBeInEndpoints,
  shouldSetHostname,
  type IpFamily,
} from "./service-backends.js";

/** kube-controller-manager's `--concurrent-service-endpoint-syncs` default. */
const WORKERS = 5;
/** The Node label a Node's zone is read from. */
const ZONE_LABEL = "topology.kubernetes.io/zone";

/** The ports of the Service that the pod serves (`getEndpointPorts`), in {@link sortPorts} order. */
function endpointPorts(service: Service, pod: Pod): EndpointPort[] {
  const ports: EndpointPort[] = [];
  for (const servicePort of service.spec?.ports ?? []) {
    const port = findPort(pod, servicePort);
    if (port === undefined) continue;
    ports.push({
      name: servicePort.name ?? "",
      port,
      protocol: servicePort.protocol ?? "TCP",
      ...(servicePort.appProtocol !== undefined ? { appProtocol: servicePort.appProtocol } : {}),
    });
  }
  return sortPorts(ports);
}

/**
 * The pod's endpoint in the Service's slices of `family` (`podToEndpoint`): `serving` is the
 * pod's readiness, `terminating` whether it is being deleted, and `ready` serving and not
 * terminating (or always, under `publishNotReadyAddresses`); the node's zone when it has one.
 */
function podToEndpoint(
  pod: Pod,
  node: Node | undefined,
  service: Service,
  family: IpFamily,
): Endpoint {
  const serving = isPodReady(pod);
  const terminating = pod.metadata?.deletionTimestamp != null;
  const ready = service.spec?.publishNotReadyAddresses === true || (serving && !terminating);
  const zone = node?.metadata?.labels?.[ZONE_LABEL];
  const nodeName = pod.spec?.nodeName ?? "";
  return {
    addresses: podIpsOf(pod, family),
    conditions: { ready, serving, terminating },
    ...(shouldSetHostname(pod, service) ? { hostname: pod.spec?.hostname ?? "" } : {}),
    targetRef: {
      kind: "Pod",
      namespace: pod.metadata?.namespace ?? "",
      name: pod.metadata?.name ?? "",
      uid: pod.metadata?.uid ?? "",
    },
    ...(nodeName !== "" ? { nodeName } : {}),
    ...(zone !== undefined && zone !== "" ? { zone } : {}),
  };
}

/**
 * kube-controller-manager's EndpointSlice controller (`pkg/controller/endpointslice`,
 * `staging/src/k8s.io/endpointslice`) together with its endpoints controller
 * (`pkg/controller/endpoint`, still on by default), both written with kubekit's Controller:
 *
 * - For every Service with a selector, discovery.k8s.io/v1 EndpointSlices named
 *   `<service>-<random>`, labelled `kubernetes.io/service-name` and
 *   `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io` (plus the
 *   Service's labels, and `service.kubernetes.io/headless` for a headless Service), controlled
 *   by the Service (deleted with it by the garbage collector), one address type per IP family
 *   of the Service, at most 100 endpoints per slice. Each pod with an IP that is not
 *   terminated gets an endpoint: its addresses, `ready`/`serving`/`terminating` conditions,
 *   node, zone (from its Node's `topology.kubernetes.io/zone` label; the simulated Nodes have
 *   none, so it is absent), hostname (a pod whose `subdomain` names the Service) and a Pod
 *   `targetRef`. Ports are the Service's, with named target ports resolved against each
 *   pod's container ports (pods resolving them differently land in different slices). A
 *   Service without pods keeps one empty placeholder slice. Services without a selector are
 *   left alone (their slices are someone else's).
 * - The core/v1 Endpoints of the same Services (see {@link endpointsController}).
 *
 * Both reconcile on Service, Pod and own-object changes, read only their caches, and wait
 * for the cache to show their writes before the next reconcile of the Service. A failed
 * write (other than a conflict, which just retries) records kube's Warning Event on the
 * Service (`FailedToUpdateEndpointSlices`, with kube's wording of the error); a create
 * refused because the namespace is terminating drops the Service instead.
 *
 * Caveats: no `endpoints.kubernetes.io/last-change-trigger-time` annotation, no topology
 * hints, no per-Service metrics; a pod on a Node the cache does not know is left out (kube
 * does the same and retries), unless the Service publishes not-ready addresses.
 */
export function endpointSliceController(ctx: ClusterContext): Runnable {
  const slicesController = endpointSlicesOfServices(ctx);
  const endpoints = endpointsController(ctx);
  return {
    run: async (signal) => {
      await Promise.all([slicesController.run(signal), endpoints.run(signal)]);
    },
  };
}

/** The EndpointSlice half of {@link endpointSliceController}. */
function endpointSlicesOfServices(ctx: ClusterContext): Controller {
  const client = ctx.clientset("kube-controller-manager");
  const services = ctx.factory.coreV1.services();
  const pods = ctx.factory.coreV1.pods();
  const nodes = ctx.factory.coreV1.nodes();
  const slices = ctx.factory.discoveryV1.endpointSlices();
  const recorder = ctx.recorder("endpoint-slice-controller", "kube-controller-manager");

  const nodeNamed = (name: string): Node | undefined => {
    try {
      return nodes.lister.get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };

  const reconcile = async (key: string, signal: AbortSignal): Promise<{ requeue: true } | void> => {
    const { namespace, name } = splitKey(key);
    let service: Service;
    try {
      service = services.lister.services(namespace).get(name);
    } catch (err) {
      // Gone: the garbage collector deletes the slices it controlled.
      if (isNotFound(err)) return;
      throw err;
    }
    const selector = serviceSelector(service);
    if (selector === undefined) return;

    const families = serviceIpFamilies(service);
    const groups = new Map<IpFamily, Map<string, { ports: EndpointPort[]; endpoints: Endpoint[] }>>(
      families.map((f) => [f, new Map()]),
    );
    const skipped: string[] = [];
    const selected = pods.lister
      .pods(namespace)
      .list(selector)
      .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
    for (const pod of selected) {
      if (!shouldPodBeInEndpoints(pod, true)) continue;
      const node = nodeNamed(pod.spec?.nodeName ?? "");
      if (node === undefined && service.spec?.publishNotReadyAddresses !== true) {
        skipped.push(
          `skipping Pod ${pod.metadata?.name} for Service ${namespace}/${name}: Node ${pod.spec?.nodeName ?? ""} Not Found`,
        );
        continue;
      }
      const ports = endpointPorts(service, pod);
      const portsKey = JSON.stringify(ports);
      for (const family of families) {
        const endpoint = podToEndpoint(pod, node, service, family);
        if (endpoint.addresses.length === 0) continue;
        const byPorts = groups.get(family) as Map<
          string,
          { ports: EndpointPort[]; endpoints: Endpoint[] }
        >;
        let group = byPorts.get(portsKey);
        if (group === undefined) {
          group = { ports, endpoints: [] };
          byPorts.set(portsKey, group);
        }
        group.endpoints.push(endpoint);
      }
    }
    const desired = new Map<IpFamily, EndpointGroup[]>(
      [...groups].map(([family, byPorts]) => [family, [...byPorts.values()]]),
    );
    const existing = slices.lister.endpointSlices(namespace).list(
      LabelSelector.fromSet({
        [SERVICE_NAME_LABEL]: name,
        [MANAGED_BY_LABEL]: ENDPOINT_SLICE_CONTROLLER_NAME,
      }),
    );
    const plan = planEndpointSlices({
      service,
      desired,
      existing,
      maxEndpointsPerSlice: DEFAULT_MAX_ENDPOINTS_PER_SLICE,
    });

    const sliceClient = client.discoveryV1.endpointSlices(namespace);
    const subject = { ...service, apiVersion: "v1", kind: "Service" };
    const failed = (err: unknown): void => {
      // A conflict means the cache was behind: the retry reads it again.
      if (isConflict(err) || signal.aborted) return;
      recorder.event(
        subject,
        "Warning",
        "FailedToUpdateEndpointSlices",
        `Error updating Endpoint Slices for Service ${namespace}/${name}: ${(err as Error).message}`,
      );
    };
    /** One write, its error worded as kube's reconciler wraps it (`finalize`). */
    const write = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (err) {
        if (!(err instanceof StatusError) || isConflict(err)) throw err;
        throw new Error(`failed to ${what} for Service ${namespace}/${name}: ${err.message}`, {
          cause: err,
        });
      }
    };
    const writes = new OwnWrites();
    try {
      for (const slice of plan.create) {
        let created: EndpointSlice;
        try {
          created = await write("create EndpointSlice", () =>
            sliceClient.create(slice, { signal }),
          );
        } catch (err) {
          // Creates keep failing in a namespace being deleted: drop the Service.
          if (isNamespaceTerminating((err as Error).cause)) return;
          throw err;
        }
        writes.record(slices.informer, created);
      }
      for (const slice of plan.update) {
        const updated = await write(`update ${slice.metadata?.name} EndpointSlice`, () =>
          sliceClient.update(slice, { signal }),
        );
        writes.record(slices.informer, updated);
      }
      for (const slice of plan.delete) {
        const gone = await write(`delete ${slice.metadata?.name} EndpointSlice`, async () => {
          try {
            return await sliceClient.delete(slice.metadata?.name ?? "", { signal });
          } catch (err) {
            if (isNotFound(err)) return undefined;
            throw err;
          }
        });
        if (gone?.kind === "EndpointSlice") writes.record(slices.informer, gone);
      }
    } catch (err) {
      failed(err);
      throw err;
    }
    if (!(await writes.observed(signal))) return { requeue: true };
    if (skipped.length > 0) {
      recorder.event(
        subject,
        "Warning",
        "FailedToUpdateEndpointSlices",
        `Error updating Endpoint Slices for Service ${namespace}/${name}: ${skipped.join("; ")}`,
      );
      return { requeue: true };
    }
  };

  const controller = new Controller({
    name: "endpointslice",
    workers: WORKERS,
    reconcile,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  controller.watch(services.informer);
  controller.watch(pods.informer, podsOfServicesWatch(services.lister));
  controller.watchOwned(slices.informer, { group: "", kind: "Service" });
  return controller;
}
