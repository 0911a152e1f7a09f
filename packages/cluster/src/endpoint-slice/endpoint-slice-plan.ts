import type { Service } from "kubernetes-types/core/v1.js";
import type { Endpoint, EndpointPort, EndpointSlice } from "kubernetes-types/discovery/v1.js";
import { deepEqual, nameOf, namespaceOf } from "kubekit/apimachinery";
import { setControllerReference } from "kubekit";
import { hasClusterIp, type IpFamily } from "./service-backends.js";
import { DISCOVERY_V1 } from "../controller-support/api-versions.js";

/**
 * What the EndpointSlice controller writes for one Service: the slices to create, update and
 * delete so that the Service's EndpointSlices hold exactly the desired endpoints
 * (`staging/src/k8s.io/endpointslice/reconciler.go` reconcileByAddressType and finalize,
 * `utils.go` newEndpointSlice and setEndpointSliceLabels). Pure: reads its inputs, never
 * mutates them, and returns new objects.
 */

/** `kubernetes.io/service-name`: the Service a slice belongs to. */
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
/** `endpointslice.kubernetes.io/managed-by`: the controller that manages a slice. */
export const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
/** The EndpointSlice controller's value of {@link MANAGED_BY_LABEL}. */
export const ENDPOINT_SLICE_CONTROLLER_NAME = "endpointslice-controller.k8s.io";
/** `service.kubernetes.io/headless`: set (empty) on the slices and Endpoints of a headless Service. */
export const HEADLESS_LABEL = "service.kubernetes.io/headless";
/** kube-controller-manager's default `--max-endpoints-per-slice`. */
export const DEFAULT_MAX_ENDPOINTS_PER_SLICE = 100;

/** The endpoints a Service should have for one set of ports (pods may resolve named ports differently). */
export interface EndpointGroup {
  /** The ports, in {@link sortPorts} order. */
  readonly ports: readonly EndpointPort[];
  /** The endpoints, in the order to place them. */
  readonly endpoints: readonly Endpoint[];
}

/** The writes that bring a Service's slices to the desired state. */
export interface EndpointSlicePlan {
  /** New slices (no name: `generateName` `<service>-`). */
  readonly create: EndpointSlice[];
  /** Changed slices, carrying the resourceVersion they were read at. */
  readonly update: EndpointSlice[];
  /** Slices to remove. */
  readonly delete: EndpointSlice[];
}

/** What {@link planEndpointSlices} reconciles. */
export interface EndpointSlicePlanInput {
  /** The Service (its name, namespace, uid, labels and cluster IP are read). */
  readonly service: Service;
  /** The desired endpoints by address type: every address type the Service uses has an entry. */
  readonly desired: ReadonlyMap<IpFamily, readonly EndpointGroup[]>;
  /** The existing slices labelled as this Service's and managed by this controller. */
  readonly existing: readonly EndpointSlice[];
  /** At most this many endpoints per slice. */
  readonly maxEndpointsPerSlice: number;
}

/** Ports in a stable order: by name, then number, then protocol. */
export function sortPorts(ports: readonly EndpointPort[]): EndpointPort[] {
  return [...ports].sort(
    (a, b) =>
      (a.name ?? "").localeCompare(b.name ?? "") ||
      (a.port ?? 0) - (b.port ?? 0) ||
      (a.protocol ?? "").localeCompare(b.protocol ?? ""),
  );
}

/** The identity of a set of ports (`NewPortMapKey`), whatever their order. */
function portsKey(ports: readonly EndpointPort[] | undefined): string {
  return JSON.stringify(
    sortPorts(ports ?? []).map((p) => [
      p.name ?? "",
      p.port ?? null,
      p.protocol ?? "TCP",
      p.appProtocol ?? null,
    ]),
  );
}

/**
 * The identity of an endpoint across updates (`hashEndpoint`): its addresses, hostname and
 * target; conditions and node may change under the same identity.
 */
function endpointKey(endpoint: Endpoint): string {
  return JSON.stringify([
    [...endpoint.addresses].sort(),
    endpoint.hostname ?? "",
    endpoint.targetRef?.namespace ?? "",
    endpoint.targetRef?.name ?? "",
  ]);
}

/** Whether two endpoints with the same key are equal in every field (`EndpointsEqualBeyondHash`). */
function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  const norm = (e: Endpoint) => ({
    addresses: [...e.addresses].sort(),
    ready: e.conditions?.ready ?? null,
    serving: e.conditions?.serving ?? null,
    terminating: e.conditions?.terminating ?? null,
    hostname: e.hostname ?? null,
    nodeName: e.nodeName ?? null,
    zone: e.zone ?? null,
    target: e.targetRef
      ? [e.targetRef.kind, e.targetRef.namespace, e.targetRef.name, e.targetRef.uid]
      : null,
  });
  return deepEqual(norm(a), norm(b));
}

/**
 * The labels of the Service's slices (`setEndpointSliceLabels`): the Service's own labels but
 * the reserved keys, the Service's name, the manager, and the headless label when the Service
 * has no cluster IP.
 */
export function endpointSliceLabels(service: Service): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(service.metadata?.labels ?? {})) {
    if (key !== SERVICE_NAME_LABEL && key !== MANAGED_BY_LABEL && key !== HEADLESS_LABEL) {
      labels[key] = value;
    }
  }
  if (!hasClusterIp(service)) labels[HEADLESS_LABEL] = "";
  labels[SERVICE_NAME_LABEL] = nameOf(service);
  labels[MANAGED_BY_LABEL] = ENDPOINT_SLICE_CONTROLLER_NAME;
  return labels;
}

/** Whether the slice has a controller reference to this very Service (`ownedBy`). */
function ownedBy(slice: EndpointSlice, service: Service): boolean {
  return (slice.metadata?.ownerReferences ?? []).some(
    (ref) => ref.uid === service.metadata?.uid && ref.kind === "Service" && ref.apiVersion === "v1",
  );
}

/** A new, empty slice of the Service (`newEndpointSlice`). */
function newSlice(
  service: Service,
  addressType: IpFamily,
  ports: readonly EndpointPort[],
): EndpointSlice {
  const slice: EndpointSlice = {
    apiVersion: DISCOVERY_V1,
    kind: "EndpointSlice",
    metadata: {
      generateName: `${nameOf(service)}-`,
      namespace: namespaceOf(service),
      labels: endpointSliceLabels(service),
    },
    addressType,
    endpoints: [],
    ports: [...ports],
  };
  return setControllerReference(service, slice, { apiVersion: "v1", kind: "Service" });
}

/** A copy of a slice to modify: its endpoints and labels replaced. */
function revise(
  slice: EndpointSlice,
  endpoints: Endpoint[],
  labels: Record<string, string>,
): EndpointSlice {
  return { ...slice, metadata: { ...slice.metadata, labels }, endpoints };
}

/** The plan of one address type (`reconcileByAddressType`). */
function planAddressType(
  service: Service,
  addressType: IpFamily,
  groups: readonly EndpointGroup[],
  existing: readonly EndpointSlice[],
  max: number,
): EndpointSlicePlan {
  const labels = endpointSliceLabels(service);
  const create: EndpointSlice[] = [];
  const update: EndpointSlice[] = [];
  const remove: EndpointSlice[] = [];
  const byPorts = new Map<string, EndpointSlice[]>();
  for (const slice of [...existing].sort((a, b) => nameOf(a).localeCompare(nameOf(b)))) {
    if (!ownedBy(slice, service)) {
      remove.push(slice);
      continue;
    }
    const key = portsKey(slice.ports);
    byPorts.set(key, [...(byPorts.get(key) ?? []), slice]);
  }
  const desiredKeys = new Set(groups.map((g) => portsKey(g.ports)));
  for (const [key, slices] of byPorts) if (!desiredKeys.has(key)) remove.push(...slices);

  for (const group of groups) {
    const key = portsKey(group.ports);
    // Insertion-ordered: what is left after step 1 is placed in the caller's order.
    const wanted = new Map(group.endpoints.map((e) => [endpointKey(e), e]));
    const updated: EndpointSlice[] = [];
    const unchanged: EndpointSlice[] = [];
    // 1. Existing slices keep the endpoints still wanted, updated where they changed.
    for (const slice of byPorts.get(key) ?? []) {
      let changed = !deepEqual(slice.metadata?.labels ?? {}, labels);
      const kept: Endpoint[] = [];
      for (const endpoint of slice.endpoints ?? []) {
        const k = endpointKey(endpoint);
        const want = wanted.get(k);
        if (want === undefined) {
          changed = true;
          continue;
        }
        if (!sameEndpoint(want, endpoint)) changed = true;
        kept.push(want);
        wanted.delete(k);
      }
      if (!changed) unchanged.push(slice);
      else if (kept.length === 0) remove.push(slice);
      else updated.push(revise(slice, kept, labels));
    }
    const rest = [...wanted.values()];
    // 2. Fill the slices being updated anyway, the fullest first.
    updated.sort((a, b) => b.endpoints.length - a.endpoints.length);
    for (const slice of updated) {
      while (rest.length > 0 && slice.endpoints.length < max)
        slice.endpoints.push(rest.shift() as Endpoint);
    }
    // 3. Then one unchanged slice that can take all that is left (the fullest that fits),
    //    then new slices.
    while (rest.length > 0) {
      let target: EndpointSlice | undefined;
      if (rest.length < max) {
        const fits = unchanged
          .filter((s) => max - (s.endpoints ?? []).length >= rest.length)
          .sort((a, b) => (b.endpoints ?? []).length - (a.endpoints ?? []).length)[0];
        if (fits !== undefined) {
          unchanged.splice(unchanged.indexOf(fits), 1);
          target = revise(fits, [...(fits.endpoints ?? [])], labels);
          updated.push(target);
        }
      }
      if (target === undefined) {
        target = newSlice(service, addressType, group.ports);
        create.push(target);
      }
      while (rest.length > 0 && target.endpoints.length < max)
        target.endpoints.push(rest.shift() as Endpoint);
    }
    update.push(...updated);
  }

  // A Service whose slices would all go away keeps one empty placeholder slice.
  if (existing.length === remove.length && create.length === 0) {
    const placeholder = newSlice(service, addressType, []);
    const only = remove.length === 1 ? remove[0] : undefined;
    const isPlaceholder =
      only !== undefined &&
      ownedBy(only, service) &&
      (only.endpoints ?? []).length === 0 &&
      (only.ports ?? []).length === 0 &&
      deepEqual(only.metadata?.labels ?? {}, labels);
    if (isPlaceholder) remove.length = 0;
    else create.push(placeholder);
  }
  return { create, update, delete: remove };
}

/**
 * The writes that make the Service's slices hold the desired endpoints, as kube's reconciler
 * plans them: slices of an address type the Service no longer uses, not controlled by this
 * Service, or of a port set no longer desired are deleted; existing slices keep the
 * endpoints still desired (updated in place when their conditions or node changed); the rest
 * fill the slices being updated, then one unchanged slice that can take them all, then new
 * slices of at most `maxEndpointsPerSlice`; a Service without endpoints keeps one empty
 * placeholder slice per address type. A deletion paired with a creation of the same address
 * type becomes an update of the deleted slice (its name is reused), as kube's `finalize` does.
 */
export function planEndpointSlices(input: EndpointSlicePlanInput): EndpointSlicePlan {
  const { service, desired, maxEndpointsPerSlice } = input;
  const create: EndpointSlice[] = [];
  const update: EndpointSlice[] = [];
  const remove: EndpointSlice[] = [];
  for (const slice of input.existing) {
    if (!desired.has(slice.addressType as IpFamily)) remove.push(slice);
  }
  for (const [addressType, groups] of desired) {
    const existing = input.existing.filter((s) => s.addressType === addressType);
    const plan = planAddressType(service, addressType, groups, existing, maxEndpointsPerSlice);
    create.push(...plan.create);
    update.push(...plan.update);
    remove.push(...plan.delete);
  }
  // finalize: reuse the names of deleted slices for new ones of the same address type.
  for (let i = 0; i < remove.length && create.length > 0;) {
    const gone = remove[i] as EndpointSlice;
    const j = create.findIndex((c) => c.addressType === gone.addressType);
    if (j < 0 || !ownedBy(gone, service)) {
      i++;
      continue;
    }
    const [fresh] = create.splice(j, 1) as [EndpointSlice];
    update.push({
      ...fresh,
      metadata: {
        ...fresh.metadata,
        name: nameOf(gone),
        resourceVersion: gone.metadata?.resourceVersion ?? "",
      },
    });
    remove.splice(i, 1);
  }
  return { create, update, delete: remove };
}
