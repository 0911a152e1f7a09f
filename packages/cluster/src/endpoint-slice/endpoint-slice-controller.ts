import type { Node, Pod, Service } from "kubernetes-types/core/v1.js";
import type { Endpoint, EndpointPort, EndpointSlice } from "kubernetes-types/discovery/v1.js";
import {
  Controller,
  LabelSelector,
  StatusError,
  isConflict,
  isNotFound,
  splitKey,
  type Clientset,
  type CoreV1NodeLister,
  type CoreV1PodLister,
  type CoreV1ServiceLister,
  type DiscoveryV1EndpointSliceLister,
  type EventRecorder,
  type ResourceInformer,
  type Runnable,
} from "kubekit";
import { nameOf, namespaceOf } from "kubekit/apimachinery";
import type { ClusterContext } from "../cluster-context.js";
import {
  DEFAULT_MAX_ENDPOINTS_PER_SLICE,
  ENDPOINT_SLICE_CONTROLLER_NAME,
  MANAGED_BY_LABEL,
  SERVICE_NAME_LABEL,
  planEndpointSlices,
  sortPorts,
  type EndpointGroup,
  type EndpointSlicePlan,
} from "./endpoint-slice-plan.js";
import { endpointsController } from "./endpoints-controller.js";
import { isNamespaceTerminating } from "../controller-support/namespace-terminating.js";
import { OwnWrites } from "../controller-support/own-writes.js";
import { isPodReady } from "../controller-support/pod-state.js";
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
      namespace: namespaceOf(pod),
      name: nameOf(pod),
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
  return new EndpointSlicesOfServices(ctx).controller;
}

/** The endpoints of a Service's pods by IP family, then by their ports (kube's desired set). */
type DesiredEndpoints = Map<
  IpFamily,
  Map<string, { ports: EndpointPort[]; endpoints: Endpoint[] }>
>;

/** The EndpointSlice controller's caches and client, and the steps of one Service's sync. */
class EndpointSlicesOfServices {
  readonly controller: Controller;
  readonly #client: Clientset;
  readonly #services: ResourceInformer<Service, CoreV1ServiceLister>;
  readonly #pods: ResourceInformer<Pod, CoreV1PodLister>;
  readonly #nodes: ResourceInformer<Node, CoreV1NodeLister>;
  readonly #slices: ResourceInformer<EndpointSlice, DiscoveryV1EndpointSliceLister>;
  readonly #recorder: EventRecorder;

  constructor(ctx: ClusterContext) {
    this.#client = ctx.clientset("kube-controller-manager");
    this.#services = ctx.factory.coreV1.services();
    this.#pods = ctx.factory.coreV1.pods();
    this.#nodes = ctx.factory.coreV1.nodes();
    this.#slices = ctx.factory.discoveryV1.endpointSlices();
    this.#recorder = ctx.recorder("endpoint-slice-controller", "kube-controller-manager");
    this.controller = new Controller({
      name: "endpointslice",
      workers: WORKERS,
      reconcile: (key, signal) => this.#syncService(key, signal),
      clock: ctx.clock,
      logger: ctx.logger,
    });
    this.controller.watch(this.#services.informer);
    this.controller.watch(this.#pods.informer, podsOfServicesWatch(this.#services.lister));
    this.controller.watchOwned(this.#slices.informer, { group: "", kind: "Service" });
  }

  /**
   * One sync of the Service of `key` (`pkg/controller/endpointslice` syncService): the
   * endpoints of its selected pods, planned into slices against the existing ones, written.
   */
  async #syncService(key: string, signal: AbortSignal): Promise<{ requeue: true } | void> {
    const { namespace, name } = splitKey(key);
    let service: Service;
    try {
      service = this.#services.lister.services(namespace).get(name);
    } catch (err) {
      // Gone: the garbage collector deletes the slices it controlled.
      if (isNotFound(err)) return;
      throw err;
    }
    const selector = serviceSelector(service);
    if (selector === undefined) return;
    const { desired, skipped } = this.#desiredEndpoints(service, selector);
    const existing = this.#slices.lister.endpointSlices(namespace).list(
      LabelSelector.fromSet({
        [SERVICE_NAME_LABEL]: name,
        [MANAGED_BY_LABEL]: ENDPOINT_SLICE_CONTROLLER_NAME,
      }),
    );
    const plan = planEndpointSlices({
      service,
      desired: new Map<IpFamily, EndpointGroup[]>(
        [...desired].map(([family, byPorts]) => [family, [...byPorts.values()]]),
      ),
      existing,
      maxEndpointsPerSlice: DEFAULT_MAX_ENDPOINTS_PER_SLICE,
    });
    const subject = { ...service, apiVersion: "v1", kind: "Service" };
    const writes = new OwnWrites();
    try {
      const applied = await this.#applyPlan(service, plan, writes, signal);
      if (applied === "namespace-terminating") return;
    } catch (err) {
      // A conflict means the cache was behind: the retry reads it again.
      if (!isConflict(err) && !signal.aborted) {
        this.#recorder.event(
          subject,
          "Warning",
          "FailedToUpdateEndpointSlices",
          `Error updating Endpoint Slices for Service ${namespace}/${name}: ${(err as Error).message}`,
        );
      }
      throw err;
    }
    if (!(await writes.observed(signal))) return { requeue: true };
    if (skipped.length > 0) {
      this.#recorder.event(
        subject,
        "Warning",
        "FailedToUpdateEndpointSlices",
        `Error updating Endpoint Slices for Service ${namespace}/${name}: ${skipped.join("; ")}`,
      );
      return { requeue: true };
    }
  }

  /**
   * The endpoints of the pods the Service selects (by name), grouped by IP family and ports;
   * `skipped` says which pods were left out because their Node is not in the cache.
   */
  #desiredEndpoints(
    service: Service,
    selector: LabelSelector,
  ): { desired: DesiredEndpoints; skipped: string[] } {
    const namespace = namespaceOf(service);
    const families = serviceIpFamilies(service);
    const desired: DesiredEndpoints = new Map(families.map((f) => [f, new Map()]));
    const skipped: string[] = [];
    const selected = this.#pods.lister
      .pods(namespace)
      .list(selector)
      .sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
    for (const pod of selected) {
      if (!shouldPodBeInEndpoints(pod, true)) continue;
      const node = this.#nodeNamed(pod.spec?.nodeName ?? "");
      if (node === undefined && service.spec?.publishNotReadyAddresses !== true) {
        skipped.push(
          `skipping Pod ${pod.metadata?.name} for Service ${namespace}/${nameOf(service)}: Node ${pod.spec?.nodeName ?? ""} Not Found`,
        );
        continue;
      }
      const ports = endpointPorts(service, pod);
      const portsKey = JSON.stringify(ports);
      for (const family of families) {
        const endpoint = podToEndpoint(pod, node, service, family);
        if (endpoint.addresses.length === 0) continue;
        const byPorts = desired.get(family) as Map<
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
    return { desired, skipped };
  }

  /**
   * Creates, updates and deletes slices as planned, each write recorded in `writes`; errors
   * worded as kube's reconciler wraps them (`finalize`). "namespace-terminating": creates are
   * refused in a namespace being deleted, so the Service is dropped.
   */
  async #applyPlan(
    service: Service,
    plan: EndpointSlicePlan,
    writes: OwnWrites,
    signal: AbortSignal,
  ): Promise<"applied" | "namespace-terminating"> {
    const sliceClient = this.#client.discoveryV1.endpointSlices(namespaceOf(service));
    const slices = this.#slices.informer;
    const write = <T>(what: string, run: () => Promise<T>): Promise<T> =>
      wrapWriteError(service, what, run);
    for (const slice of plan.create) {
      let created: EndpointSlice;
      try {
        created = await write("create EndpointSlice", () => sliceClient.create(slice, { signal }));
      } catch (err) {
        // Creates keep failing in a namespace being deleted: drop the Service.
        if (isNamespaceTerminating((err as Error).cause)) return "namespace-terminating";
        throw err;
      }
      writes.record(slices, created);
    }
    for (const slice of plan.update) {
      const updated = await write(`update ${slice.metadata?.name} EndpointSlice`, () =>
        sliceClient.update(slice, { signal }),
      );
      writes.record(slices, updated);
    }
    for (const slice of plan.delete) {
      const gone = await write(`delete ${slice.metadata?.name} EndpointSlice`, async () => {
        try {
          return await sliceClient.delete(nameOf(slice), { signal });
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      });
      if (gone?.kind === "EndpointSlice") writes.record(slices, gone);
    }
    return "applied";
  }

  #nodeNamed(name: string): Node | undefined {
    try {
      return this.#nodes.lister.get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}

/** One write, its error worded as kube's reconciler wraps it (`finalize`); conflicts as they are. */
async function wrapWriteError<T>(
  service: Service,
  what: string,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof StatusError) || isConflict(err)) throw err;
    const message = `failed to ${what} for Service ${namespaceOf(service)}/${nameOf(service)}: ${err.message}`;
    throw new Error(message, { cause: err });
  }
}
