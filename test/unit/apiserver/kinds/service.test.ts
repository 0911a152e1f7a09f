import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { isDns1123Label } from "kubekit/apimachinery";
import { serviceStrategy } from "../../../../packages/apiserver/src/kinds/service.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * core/v1 Services: SetDefaults_Service (`pkg/apis/core/v1/defaults.go`), the allocator's
 * create and `patchAllocatedValues` (`pkg/registry/core/service/storage/alloc.go`), and
 * ValidateService / ValidateServiceUpdate (`pkg/apis/core/validation/validation.go`).
 */

const service = hooksOf(serviceStrategy);
const RANGE = "must be between 1 and 65535, inclusive";

function serviceWith(spec: JsonObject): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "web", namespace: "default" },
    spec: { selector: { app: "web" }, ports: [{ port: 80 }], ...spec },
  };
}

function specOf(obj: JsonObject): JsonObject {
  return obj["spec"] as JsonObject;
}

describe("Service defaults (SetDefaults_Service)", () => {
  it("sets type, session affinity, port protocol and targetPort, and the internal traffic policy", () => {
    expect(specOf(service.applyDefaults(serviceWith({})))).toEqual({
      selector: { app: "web" },
      type: "ClusterIP",
      sessionAffinity: "None",
      ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
      internalTrafficPolicy: "Cluster",
    });
  });

  it("sets the external traffic policy of NodePort and LoadBalancer Services", () => {
    expect(specOf(service.applyDefaults(serviceWith({ type: "NodePort" })))).toMatchObject({
      externalTrafficPolicy: "Cluster",
      internalTrafficPolicy: "Cluster",
    });
    const external = specOf(
      service.applyDefaults(
        serviceWith({ type: "ExternalName", externalName: "example.com", ports: [] }),
      ),
    );
    expect(external).not.toHaveProperty("internalTrafficPolicy");
    expect(external).not.toHaveProperty("externalTrafficPolicy");
  });

  it("keeps a named targetPort and drops sessionAffinityConfig with affinity None", () => {
    const spec = specOf(
      service.applyDefaults(
        serviceWith({
          ports: [{ port: 80, targetPort: "http", protocol: "UDP" }],
          sessionAffinityConfig: { clientIP: {} },
        }),
      ),
    );
    expect(spec["ports"]).toEqual([{ port: 80, targetPort: "http", protocol: "UDP" }]);
    expect(spec).not.toHaveProperty("sessionAffinityConfig");
  });
});

describe("Service allocation", () => {
  it("allocates a clusterIP in the service range, IPv4 single stack, and an empty load balancer status", () => {
    const created = service.created(serviceWith({}));
    const spec = specOf(created);
    expect(spec["clusterIP"]).toMatch(/^10\.96\.\d+\.\d+$/);
    expect(spec["clusterIPs"]).toEqual([spec["clusterIP"]]);
    expect(spec).toMatchObject({ ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" });
    expect(created["status"]).toEqual({ loadBalancer: {} });
    expect(specOf(service.created(serviceWith({})))["clusterIP"]).not.toBe(spec["clusterIP"]);
  });

  it("keeps a requested clusterIP, None (headless) included", () => {
    expect(
      specOf(service.created(serviceWith({ clusterIP: "10.96.200.1" })))["clusterIPs"],
    ).toEqual(["10.96.200.1"]);
    expect(specOf(service.created(serviceWith({ clusterIP: "None" })))["clusterIP"]).toBe("None");
  });

  it("allocates nodePorts in 30000-32767 for NodePort and LoadBalancer Services only", () => {
    const ports = specOf(
      service.created(
        serviceWith({ type: "NodePort", ports: [{ port: 80 }, { port: 443, nodePort: 30443 }] }),
      ),
    )["ports"] as JsonObject[];
    expect(ports[0]?.["nodePort"]).toBeGreaterThanOrEqual(30000);
    expect(ports[0]?.["nodePort"]).toBeLessThanOrEqual(32767);
    expect(ports[1]?.["nodePort"]).toBe(30443);
    expect(
      (specOf(service.created(serviceWith({})))["ports"] as JsonObject[])[0],
    ).not.toHaveProperty("nodePort");
  });

  it("allocates nothing for an ExternalName Service", () => {
    const spec = specOf(
      service.created(
        serviceWith({ type: "ExternalName", externalName: "example.com", ports: [] }),
      ),
    );
    expect(spec).not.toHaveProperty("clusterIP");
    expect(spec).not.toHaveProperty("ipFamilies");
  });
});

describe("Service update keeps allocated values (patchAllocatedValues)", () => {
  const old = service.created(serviceWith({ type: "NodePort" }));
  const oldSpec = specOf(old);

  it("keeps clusterIP(s), ipFamilies, ipFamilyPolicy and nodePorts left out of the update", () => {
    const next = service.updated(serviceWith({ type: "NodePort", ports: [{ port: 80 }] }), old);
    expect(specOf(next)).toMatchObject({
      clusterIP: oldSpec["clusterIP"],
      clusterIPs: oldSpec["clusterIPs"],
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      ports: [{ port: 80, nodePort: (oldSpec["ports"] as JsonObject[])[0]?.["nodePort"] }],
    });
    expect(service.validateUpdate(next, old)).toEqual([]);
  });

  it("allocates a nodePort for a new port", () => {
    const next = service.updated(
      serviceWith({
        type: "NodePort",
        ports: [
          { port: 80, name: "http" },
          { port: 8080, name: "alt" },
        ],
      }),
      old,
    );
    const ports = specOf(next)["ports"] as JsonObject[];
    expect(ports[0]?.["nodePort"]).toBe((oldSpec["ports"] as JsonObject[])[0]?.["nodePort"]);
    expect(ports[1]?.["nodePort"]).toEqual(expect.any(Number));
    expect(ports[1]?.["nodePort"]).not.toBe(ports[0]?.["nodePort"]);
  });

  it("keeps nothing when the Service becomes an ExternalName", () => {
    const next = service.updated(
      serviceWith({ type: "ExternalName", externalName: "example.com", ports: [] }),
      old,
    );
    expect(specOf(next)).not.toHaveProperty("clusterIP");
  });

  it("rejects a changed clusterIP", () => {
    const next = service.updated(
      serviceWith({ type: "NodePort", clusterIP: "10.96.250.250", clusterIPs: ["10.96.250.250"] }),
      old,
    );
    expect(messages(service.validateUpdate(next, old))).toEqual([
      'spec.clusterIPs[0]: Invalid value: ["10.96.250.250"]: may not change once set',
    ]);
  });
});

describe("Service validation (ValidateService)", () => {
  function errors(spec: JsonObject): string[] {
    return messages(service.validateCreate(service.created(serviceWith(spec))));
  }

  it("accepts a defaulted Service, headless and ExternalName ones without ports", () => {
    expect(errors({})).toEqual([]);
    expect(errors({ clusterIP: "None", ports: [] })).toEqual([]);
    expect(errors({ type: "ExternalName", externalName: "example.com", ports: [] })).toEqual([]);
  });

  it("checks type, sessionAffinity and externalName", () => {
    expect(errors({ type: "Internal", sessionAffinity: "Sticky" })).toEqual([
      'spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      'spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"',
    ]);
    expect(errors({ type: "ExternalName", ports: [] })).toEqual([
      "spec.externalName: Required value",
    ]);
  });

  it("requires ports, names when there are several, unique DNS-1123 label names", () => {
    expect(errors({ ports: [] })).toEqual(["spec.ports: Required value"]);
    expect(
      errors({ ports: [{ port: 80 }, { port: 81, name: "Web" }, { port: 82, name: "Web" }] }),
    ).toEqual([
      "spec.ports[0].name: Required value",
      ...isDns1123Label("Web").map((m) => `spec.ports[1].name: Invalid value: "Web": ${m}`),
      ...isDns1123Label("Web").map((m) => `spec.ports[2].name: Invalid value: "Web": ${m}`),
      'spec.ports[2].name: Duplicate value: "Web"',
    ]);
  });

  it("checks port numbers, protocol and targetPort", () => {
    expect(
      errors({
        ports: [
          { name: "a", port: 0, targetPort: 70000 },
          { name: "b", port: 80, protocol: "ICMP", targetPort: "Not_A_Name" },
        ],
      }),
    ).toEqual([
      `spec.ports[0].port: Invalid value: 0: ${RANGE}`,
      `spec.ports[0].targetPort: Invalid value: 70000: ${RANGE}`,
      'spec.ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      'spec.ports[1].targetPort: Invalid value: "Not_A_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
  });
});

describe("Service policy and printer", () => {
  it("answers DELETE with the object, names are DNS-1035 labels, selects by clusterIP and type", () => {
    expect(serviceStrategy.policy).toMatchObject({
      deleteReturnsObject: true,
      nameRule: "dns1035",
    });
    expect(Object.keys(serviceStrategy.policy?.selectableFields ?? {}).sort()).toEqual([
      "spec.clusterIP",
      "spec.type",
    ]);
    expect(serviceStrategy.printer?.columns.map((c) => c.name)).toEqual([
      "Name",
      "Type",
      "Cluster-IP",
      "External-IP",
      "Port(s)",
      "Age",
      "Selector",
    ]);
  });
});
