import type { Endpoints, Pod, Service } from "kubernetes-types/core/v1.js";
import type { EndpointSlice } from "kubernetes-types/discovery/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Clientset } from "kubekit";
import { SIMULATION_ANNOTATIONS } from "@kubekit/cluster";
import { eventually, useServer } from "../../../support/server-test-helpers.js";

/**
 * The simulated `endpointslice` controller against the embedded server, with the real
 * scheduler and kubelets (pods get IPs and Ready from the kubelet): EndpointSlices and
 * Endpoints of Services with a selector, as kube-controller-manager writes them.
 */

const NS = "endpoints";

function readyPod(name: string, labels: Record<string, string>, extra: Partial<Pod> = {}): Pod {
  return {
    metadata: { name, labels, ...(extra.metadata ?? {}) },
    spec: {
      containers: [
        {
          name: "web",
          image: "nginx:1.27",
          ports: [
            { name: "http", containerPort: 8080 },
            { name: "metrics", containerPort: 9090 },
          ],
        },
      ],
      ...(extra.spec ?? {}),
    },
  };
}

function isReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
}

describe("endpointslice controller", () => {
  const h = useServer({ cluster: { nodes: 2, controllers: ["endpointslice"] } });
  let cs: Clientset;
  const abort = new AbortController();

  beforeAll(async () => {
    cs = new Clientset(h.server.kubeConfig().restConfig());
    await cs.coreV1.namespaces().create({ metadata: { name: NS } });
  });

  afterAll(() => abort.abort());

  /** The service's slices managed by the controller, once `done` holds for them. */
  async function slicesOf(
    service: string,
    done: (slices: EndpointSlice[]) => boolean,
  ): Promise<EndpointSlice[]> {
    return eventually(`slices of ${service}`, async () => {
      const list = await cs.discoveryV1
        .endpointSlices(NS)
        .list({ labelSelector: `kubernetes.io/service-name=${service}` });
      return done(list.items) ? list.items : undefined;
    });
  }

  async function endpointsOf(
    service: string,
    done: (ep: Endpoints) => boolean,
  ): Promise<Endpoints> {
    return eventually(`endpoints of ${service}`, async () => {
      try {
        const ep = await cs.coreV1.endpoints(NS).get(service);
        return done(ep) ? ep : undefined;
      } catch {
        return undefined;
      }
    });
  }

  async function runningPods(names: string[]): Promise<Pod[]> {
    return eventually(`pods ${names.join(",")} running`, async () => {
      const pods = await Promise.all(names.map((n) => cs.coreV1.pods(NS).get(n)));
      return pods.every((p) => p.status?.podIP !== undefined) ? pods : undefined;
    });
  }

  it("writes the slice and the Endpoints of a Service's ready pods, named ports resolved", async () => {
    const service = await cs.coreV1.services(NS).create({
      metadata: { name: "web", labels: { tier: "front" } },
      spec: {
        selector: { app: "web" },
        ports: [
          { name: "http", port: 80, targetPort: "http" },
          { name: "metrics", port: 9000, targetPort: 9090 },
        ],
      },
    } as Service);
    for (const name of ["web-a", "web-b"])
      await cs.coreV1.pods(NS).create(readyPod(name, { app: "web" }));
    await cs.coreV1.pods(NS).create(readyPod("other", { app: "other" }));
    const pods = await runningPods(["web-a", "web-b"]);

    const [slice] = await slicesOf(
      "web",
      (s) =>
        s.length === 1 && s[0]?.endpoints?.filter((e) => e.conditions?.ready === true).length === 2,
    );
    expect(slice?.metadata?.name).toMatch(/^web-[a-z0-9]{5}$/);
    expect(slice?.metadata?.generateName).toBe("web-");
    expect(slice?.metadata?.labels).toEqual({
      tier: "front",
      "kubernetes.io/service-name": "web",
      "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
    });
    expect(slice?.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "v1",
        kind: "Service",
        name: "web",
        uid: service.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(slice?.addressType).toBe("IPv4");
    expect(slice?.ports).toEqual([
      { name: "http", port: 8080, protocol: "TCP" },
      { name: "metrics", port: 9090, protocol: "TCP" },
    ]);
    expect(slice?.endpoints).toEqual(
      pods.map((pod) => ({
        addresses: [pod.status?.podIP],
        conditions: { ready: true, serving: true, terminating: false },
        targetRef: { kind: "Pod", namespace: NS, name: pod.metadata?.name, uid: pod.metadata?.uid },
        nodeName: pod.spec?.nodeName,
      })),
    );

    const ep = await endpointsOf("web", (e) => (e.subsets?.[0]?.addresses?.length ?? 0) === 2);
    expect(ep.metadata?.labels).toEqual({ tier: "front" });
    expect(ep.metadata?.ownerReferences).toBeUndefined();
    const sortedPods = [...pods].sort((a, b) =>
      (a.status?.podIP ?? "").localeCompare(b.status?.podIP ?? ""),
    );
    expect(ep.subsets).toEqual([
      {
        addresses: sortedPods.map((pod) => ({
          ip: pod.status?.podIP,
          nodeName: pod.spec?.nodeName,
          targetRef: {
            kind: "Pod",
            namespace: NS,
            name: pod.metadata?.name,
            uid: pod.metadata?.uid,
          },
        })),
        ports: [
          { name: "http", port: 8080, protocol: "TCP" },
          { name: "metrics", port: 9090, protocol: "TCP" },
        ],
      },
    ]);
  });

  it("lists a pod that is not ready as not ready, and a terminating pod as terminating", async () => {
    await cs.coreV1.services(NS).create({
      metadata: { name: "api" },
      spec: { selector: { app: "api" }, ports: [{ port: 80, targetPort: 8080 }] },
    } as Service);
    await cs.coreV1.pods(NS).create(
      readyPod(
        "api-slow",
        { app: "api" },
        {
          metadata: { name: "api-slow", annotations: { [SIMULATION_ANNOTATIONS.ready]: "false" } },
        },
      ),
    );
    await cs.coreV1.pods(NS).create(
      readyPod(
        "api-ok",
        { app: "api" },
        {
          metadata: {
            name: "api-ok",
            annotations: { [SIMULATION_ANNOTATIONS.terminationMs]: "600000" },
          },
        },
      ),
    );
    const [slow, ok] = await runningPods(["api-slow", "api-ok"]);
    await eventually("api-ok ready", async () =>
      isReady(await cs.coreV1.pods(NS).get("api-ok")) ? true : undefined,
    );
    const conditionsOf = (slices: EndpointSlice[], pod: Pod | undefined) =>
      slices[0]?.endpoints?.find((e) => e.targetRef?.name === pod?.metadata?.name)?.conditions;
    let slices = await slicesOf("api", (s) => conditionsOf(s, ok)?.ready === true);
    expect(conditionsOf(slices, slow)).toEqual({
      ready: false,
      serving: false,
      terminating: false,
    });
    expect(slices[0]?.ports).toEqual([{ name: "", port: 8080, protocol: "TCP" }]);
    let ep = await endpointsOf("api", (e) => (e.subsets?.[0]?.addresses?.length ?? 0) === 1);
    expect(ep.subsets?.[0]?.addresses?.map((a) => a.targetRef?.name)).toEqual(["api-ok"]);
    expect(ep.subsets?.[0]?.notReadyAddresses?.map((a) => a.targetRef?.name)).toEqual(["api-slow"]);
    expect(ep.subsets?.[0]?.ports).toEqual([{ port: 8080, protocol: "TCP" }]);

    // Deleting: the pod stays (its containers take 10 minutes to stop) as terminating.
    await cs.coreV1.pods(NS).delete("api-ok", { gracePeriodSeconds: 600 });
    slices = await slicesOf("api", (s) => conditionsOf(s, ok)?.terminating === true);
    expect(conditionsOf(slices, ok)?.ready).toBe(false);
    // The Endpoints leave terminating pods out.
    ep = await endpointsOf("api", (e) => (e.subsets?.[0]?.addresses ?? []).length === 0);
    expect(ep.subsets?.[0]?.notReadyAddresses?.map((a) => a.targetRef?.name)).toEqual(["api-slow"]);
  });

  it("keeps an empty placeholder slice for a Service without pods and leaves selector-less Services alone", async () => {
    await cs.coreV1.services(NS).create({
      metadata: { name: "empty" },
      spec: { selector: { app: "nothing" }, ports: [{ port: 80 }] },
    } as Service);
    await cs.coreV1.services(NS).create({
      metadata: { name: "manual" },
      spec: { ports: [{ port: 80 }] },
    } as Service);
    const [placeholder] = await slicesOf("empty", (s) => s.length === 1);
    expect(placeholder?.endpoints ?? []).toEqual([]);
    expect(placeholder?.ports ?? []).toEqual([]);
    const ep = await endpointsOf("empty", () => true);
    expect(ep.subsets ?? []).toEqual([]);
    // The controllers had every chance to write for "manual" meanwhile: they wrote nothing.
    const slices = await cs.discoveryV1
      .endpointSlices(NS)
      .list({ labelSelector: "kubernetes.io/service-name=manual" });
    expect(slices.items).toEqual([]);
    await expect(cs.coreV1.endpoints(NS).get("manual")).rejects.toMatchObject({ code: 404 });
  });

  it("records FailedToUpdateEndpointSlices when a write fails, and retries", async () => {
    h.server.faults.failNext(1, {
      code: 500,
      verbs: ["create"],
      resource: "endpointslices",
      namespace: NS,
    });
    await cs.coreV1.services(NS).create({
      metadata: { name: "flaky" },
      spec: { selector: { app: "flaky" }, ports: [{ port: 80 }] },
    } as Service);
    await slicesOf("flaky", (s) => s.length === 1);
    const event = await eventually("the Warning Event", async () => {
      const events = await cs.coreV1.events(NS).list();
      return events.items.find(
        (e) => e.involvedObject.name === "flaky" && e.reason === "FailedToUpdateEndpointSlices",
      );
    });
    expect(event.type).toBe("Warning");
    expect(event.involvedObject.kind).toBe("Service");
    expect(event.message).toMatch(
      /^Error updating Endpoint Slices for Service endpoints\/flaky: failed to create EndpointSlice for Service endpoints\/flaky: /,
    );
  });

  it("follows label changes, puts back deleted Endpoints, and cleans up after the Service", async () => {
    await cs.coreV1.services(NS).create({
      metadata: { name: "db" },
      spec: { clusterIP: "None", selector: { app: "db" }, ports: [{ port: 5432 }] },
    } as Service);
    await cs.coreV1.pods(NS).create(readyPod("db-0", { app: "db" }));
    await runningPods(["db-0"]);
    const [slice] = await slicesOf("db", (s) => s[0]?.endpoints?.[0]?.conditions?.ready === true);
    expect(slice?.metadata?.labels?.["service.kubernetes.io/headless"]).toBe("");
    const ep = await endpointsOf("db", (e) => (e.subsets?.[0]?.addresses?.length ?? 0) === 1);
    expect(ep.metadata?.labels).toEqual({ "service.kubernetes.io/headless": "" });

    await cs.coreV1.endpoints(NS).delete("db");
    await endpointsOf("db", (e) => (e.subsets?.[0]?.addresses?.length ?? 0) === 1);

    // The pod leaves the selector: the slice shrinks to the placeholder, the Endpoints empty.
    await cs.coreV1
      .pods(NS)
      .patch("db-0", "application/merge-patch+json", { metadata: { labels: { app: "gone" } } });
    await slicesOf("db", (s) => s.length === 1 && (s[0]?.endpoints ?? []).length === 0);
    await endpointsOf("db", (e) => (e.subsets ?? []).length === 0);

    await cs.coreV1.services(NS).delete("db");
    await eventually("db's slices and endpoints gone", async () => {
      const slices = await cs.discoveryV1
        .endpointSlices(NS)
        .list({ labelSelector: "kubernetes.io/service-name=db" });
      const endpoints = await cs.coreV1.endpoints(NS).list();
      return slices.items.length === 0 && !endpoints.items.some((e) => e.metadata?.name === "db")
        ? true
        : undefined;
    });
  });
});
