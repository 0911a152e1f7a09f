import type { Service } from "kubernetes-types/core/v1.js";
import type { Endpoint, EndpointPort, EndpointSlice } from "kubernetes-types/discovery/v1.js";
import { describe, expect, it } from "vitest";
import {
  endpointSliceLabels,
  planEndpointSlices,
  type EndpointGroup,
} from "../../../../packages/cluster/src/endpoint-slice/endpoint-slice-plan.js";
import type { IpFamily } from "../../../../packages/cluster/src/endpoint-slice/service-backends.js";

const SERVICE: Service = {
  metadata: { name: "web", namespace: "ns", uid: "svc-uid", labels: { app: "web" } },
  spec: { clusterIP: "10.96.0.10", selector: { app: "web" } },
};
const HTTP: EndpointPort[] = [{ name: "http", port: 8080, protocol: "TCP" }];

function endpoint(i: number, ready = true): Endpoint {
  return {
    addresses: [`10.244.1.${i}`],
    conditions: { ready, serving: ready, terminating: false },
    targetRef: { kind: "Pod", namespace: "ns", name: `pod-${i}`, uid: `uid-${i}` },
    nodeName: "node-1",
  };
}

function range(from: number, to: number, ready = true): Endpoint[] {
  return Array.from({ length: to - from }, (_, k) => endpoint(from + k, ready));
}

function desired(...groups: EndpointGroup[]): Map<IpFamily, EndpointGroup[]> {
  return new Map([["IPv4", groups]]);
}

/** An existing slice as the API server would hold it. */
function slice(name: string, endpoints: Endpoint[], ports = HTTP, uid = "svc-uid"): EndpointSlice {
  return {
    metadata: {
      name,
      namespace: "ns",
      resourceVersion: "7",
      labels: endpointSliceLabels(SERVICE),
      ownerReferences: [
        {
          apiVersion: "v1",
          kind: "Service",
          name: "web",
          uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    addressType: "IPv4",
    ports,
    endpoints,
  };
}

describe("planEndpointSlices", () => {
  it("creates slices of at most maxEndpointsPerSlice, owned and labelled", () => {
    const plan = planEndpointSlices({
      service: SERVICE,
      desired: desired({ ports: HTTP, endpoints: range(1, 251) }),
      existing: [],
      maxEndpointsPerSlice: 100,
    });
    expect(plan.update).toEqual([]);
    expect(plan.delete).toEqual([]);
    expect(plan.create.map((s) => s.endpoints.length)).toEqual([100, 100, 50]);
    const first = plan.create[0];
    expect(first?.metadata).toEqual({
      generateName: "web-",
      namespace: "ns",
      labels: {
        app: "web",
        "kubernetes.io/service-name": "web",
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
      },
      ownerReferences: [
        {
          apiVersion: "v1",
          kind: "Service",
          name: "web",
          uid: "svc-uid",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(first?.addressType).toBe("IPv4");
    expect(first?.ports).toEqual(HTTP);
  });

  it("changes nothing when the slices already hold the desired endpoints", () => {
    const plan = planEndpointSlices({
      service: SERVICE,
      desired: desired({ ports: HTTP, endpoints: range(1, 4) }),
      existing: [slice("web-a", range(1, 4))],
      maxEndpointsPerSlice: 100,
    });
    expect(plan).toEqual({ create: [], update: [], delete: [] });
  });

  it("updates a slice in place: gone endpoints removed, changed ones replaced, new ones added", () => {
    const plan = planEndpointSlices({
      service: SERVICE,
      desired: desired({ ports: HTTP, endpoints: [endpoint(2, false), endpoint(3), endpoint(9)] }),
      existing: [slice("web-a", range(1, 4))],
      maxEndpointsPerSlice: 100,
    });
    expect(plan.create).toEqual([]);
    expect(plan.delete).toEqual([]);
    expect(plan.update).toHaveLength(1);
    expect(plan.update[0]?.metadata?.name).toBe("web-a");
    expect(plan.update[0]?.metadata?.resourceVersion).toBe("7");
    expect(plan.update[0]?.endpoints).toEqual([endpoint(2, false), endpoint(3), endpoint(9)]);
  });

  it("puts new endpoints into an unchanged slice that can take them all, else a new slice", () => {
    const fits = planEndpointSlices({
      service: SERVICE,
      desired: desired({ ports: HTTP, endpoints: [...range(1, 4), endpoint(50)] }),
      existing: [slice("web-a", range(1, 4))],
      maxEndpointsPerSlice: 4,
    });
    expect(fits.create).toEqual([]);
    expect(fits.update.map((s) => s.endpoints.length)).toEqual([4]);
    const overflow = planEndpointSlices({
      service: SERVICE,
      desired: desired({ ports: HTTP, endpoints: [...range(1, 4), endpoint(50), endpoint(51)] }),
      existing: [slice("web-a", range(1, 4))],
      maxEndpointsPerSlice: 4,
    });
    expect(overflow.update).toEqual([]);
    expect(overflow.create.map((s) => s.endpoints)).toEqual([[endpoint(50), endpoint(51)]]);
  });

  it("keeps one placeholder slice for a Service without endpoints", () => {
    const fresh = planEndpointSlices({
      service: SERVICE,
      desired: desired(),
      existing: [],
      maxEndpointsPerSlice: 100,
    });
    expect(fresh.create).toHaveLength(1);
    expect(fresh.create[0]?.endpoints).toEqual([]);
    expect(fresh.create[0]?.ports).toEqual([]);
    // An existing placeholder stays as it is.
    const kept = planEndpointSlices({
      service: SERVICE,
      desired: desired(),
      existing: [slice("web-p", [], [])],
      maxEndpointsPerSlice: 100,
    });
    expect(kept).toEqual({ create: [], update: [], delete: [] });
  });

  it("reuses the name of a slice it would delete for one it would create", () => {
    const plan = planEndpointSlices({
      service: SERVICE,
      desired: desired({ ports: HTTP, endpoints: range(1, 3) }),
      existing: [slice("web-p", [], [])],
      maxEndpointsPerSlice: 100,
    });
    expect(plan.create).toEqual([]);
    expect(plan.delete).toEqual([]);
    expect(plan.update).toHaveLength(1);
    expect(plan.update[0]?.metadata).toMatchObject({
      name: "web-p",
      generateName: "web-",
      resourceVersion: "7",
    });
    expect(plan.update[0]?.ports).toEqual(HTTP);
    expect(plan.update[0]?.endpoints).toEqual(range(1, 3));
  });

  it("deletes slices of other owners, of port sets and address types no longer used", () => {
    const metrics: EndpointPort[] = [{ name: "metrics", port: 9090, protocol: "TCP" }];
    const ipv6: EndpointSlice = { ...slice("web-v6", []), addressType: "IPv6" };
    const plan = planEndpointSlices({
      service: SERVICE,
      desired: desired({ ports: HTTP, endpoints: range(1, 2) }),
      existing: [
        slice("web-a", range(1, 2)),
        slice("web-old", range(1, 2), HTTP, "previous-uid"),
        slice("web-m", range(1, 2), metrics),
        ipv6,
      ],
      maxEndpointsPerSlice: 100,
    });
    expect(plan.create).toEqual([]);
    expect(plan.update).toEqual([]);
    expect(plan.delete.map((s) => s.metadata?.name).sort()).toEqual(["web-m", "web-old", "web-v6"]);
  });

  it("updates a slice whose labels differ from the Service's", () => {
    const stale = slice("web-a", range(1, 2));
    const relabelled: Service = {
      ...SERVICE,
      metadata: { ...SERVICE.metadata, labels: { app: "web", tier: "front" } },
    };
    const plan = planEndpointSlices({
      service: relabelled,
      desired: desired({ ports: HTTP, endpoints: range(1, 2) }),
      existing: [stale],
      maxEndpointsPerSlice: 100,
    });
    expect(plan.update).toHaveLength(1);
    expect(plan.update[0]?.metadata?.labels?.["tier"]).toBe("front");
  });

  it("labels the slices of a headless Service", () => {
    const headless: Service = { ...SERVICE, spec: { ...SERVICE.spec, clusterIP: "None" } };
    expect(endpointSliceLabels(headless)).toEqual({
      app: "web",
      "service.kubernetes.io/headless": "",
      "kubernetes.io/service-name": "web",
      "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
    });
  });
});
