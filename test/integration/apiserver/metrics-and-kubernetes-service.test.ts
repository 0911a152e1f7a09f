import { describe, expect, it } from "vitest";
import { USAGE_ANNOTATIONS } from "@kubekit/apiserver";
import { createNamespace, eventually, useServer } from "../../support/server-test-helpers.js";

/**
 * Parts of a cluster the embedded server serves itself: the metrics API
 * (`metrics.k8s.io/v1beta1`, computed from Running pods and their Nodes) and the `kubernetes`
 * Service with its Endpoints and EndpointSlice, recreated when deleted.
 */

const METRICS = "/apis/metrics.k8s.io/v1beta1";

describe("metrics.k8s.io and the kubernetes Service", () => {
  const h = useServer();

  async function runningPod(
    ns: string,
    name: string,
    node: string,
    containers: unknown[],
    annotations: Record<string, string> = {},
  ): Promise<void> {
    const created = await h.client.post(`/api/v1/namespaces/${ns}/pods`, {
      metadata: { name, labels: { app: name }, annotations },
      spec: { nodeName: node, containers },
    });
    expect(created.status).toBe(201);
    const status = await h.client.put(`/api/v1/namespaces/${ns}/pods/${name}/status`, {
      ...created.json,
      status: { phase: "Running" },
    });
    expect(status.status).toBe(200);
  }

  it("lists the group in discovery like an aggregated API, read-only", async () => {
    const apis = await h.client.get("/apis");
    const group = (apis.json.groups as { name: string; preferredVersion: unknown }[]).find(
      (g) => g.name === "metrics.k8s.io",
    );
    expect(group?.preferredVersion).toEqual({
      groupVersion: "metrics.k8s.io/v1beta1",
      version: "v1beta1",
    });
    const resources = (await h.client.get(METRICS)).json.resources as Record<string, unknown>[];
    expect(resources.map((r) => [r["name"], r["kind"], r["namespaced"], r["verbs"]])).toEqual([
      ["nodes", "NodeMetrics", false, ["get", "list"]],
      ["pods", "PodMetrics", true, ["get", "list"]],
    ]);
    expect((await h.client.post(`${METRICS}/namespaces/default/pods`, {})).status).toBe(405);
  });

  it("reports Running pods' usage from requests, annotations or defaults, summed per Node", async () => {
    await createNamespace(h.client, "metrics");
    await h.client.post("/api/v1/nodes", { metadata: { name: "metrics-node" } });
    await runningPod("metrics", "web", "metrics-node", [
      { name: "app", image: "nginx", resources: { requests: { cpu: "250m", memory: "64Mi" } } },
      { name: "side", image: "busybox" },
    ]);
    await runningPod(
      "metrics",
      "busy",
      "metrics-node",
      [{ name: "app", image: "nginx", resources: { requests: { cpu: "100m" } } }],
      { [USAGE_ANNOTATIONS.cpu]: "1500m", [`${USAGE_ANNOTATIONS.memory}.app`]: "1Gi" },
    );
    await h.client.post("/api/v1/namespaces/metrics/pods", {
      metadata: { name: "pending" },
      spec: { containers: [{ name: "app", image: "nginx" }] },
    });

    const web = await h.client.get(`${METRICS}/namespaces/metrics/pods/web`);
    expect(web.status).toBe(200);
    expect(web.json).toMatchObject({
      kind: "PodMetrics",
      apiVersion: "metrics.k8s.io/v1beta1",
      metadata: { name: "web", namespace: "metrics", labels: { app: "web" } },
      window: "15s",
      containers: [
        { name: "app", usage: { cpu: "250000000n", memory: "65536Ki" } },
        { name: "side", usage: { cpu: "1000000n", memory: "4096Ki" } },
      ],
    });
    expect(web.json.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const busy = await h.client.get(`${METRICS}/namespaces/metrics/pods/busy`);
    expect(busy.json.containers).toEqual([
      { name: "app", usage: { cpu: "1500000000n", memory: "1048576Ki" } },
    ]);
    const pending = await h.client.get(`${METRICS}/namespaces/metrics/pods/pending`);
    expect(pending.status).toBe(404);
    expect(pending.json.message).toBe('podmetrics.metrics.k8s.io "metrics/pending" not found');

    const list = await h.client.get(`${METRICS}/namespaces/metrics/pods?labelSelector=app%3Dbusy`);
    expect(list.json.kind).toBe("PodMetricsList");
    expect(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      "busy",
    ]);
    const all = await h.client.get(`${METRICS}/pods`);
    expect(all.json.items).toHaveLength(2);
    const node = await h.client.get(`${METRICS}/nodes/metrics-node`);
    // 250m + 1m + 1500m; 64Mi + 4Mi + 1Gi.
    expect(node.json).toMatchObject({
      kind: "NodeMetrics",
      metadata: { name: "metrics-node" },
      usage: { cpu: "1751000000n", memory: `${(64 + 4 + 1024) * 1024}Ki` },
    });
    expect((await h.client.get(`${METRICS}/nodes/nowhere`)).json.message).toBe(
      'nodemetrics.metrics.k8s.io "nowhere" not found',
    );
  });

  it("serves the kubernetes Service and its endpoints at the server, recreated when deleted", async () => {
    const svc = await h.client.get("/api/v1/namespaces/default/services/kubernetes");
    expect(svc.json).toMatchObject({
      metadata: { labels: { component: "apiserver", provider: "kubernetes" } },
      spec: {
        type: "ClusterIP",
        clusterIP: "10.96.0.1",
        ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: h.server.port }],
      },
    });
    expect(svc.json.spec.selector).toBeUndefined();
    const slices = await h.client.get(
      "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes",
    );
    expect(slices.json.items).toHaveLength(1);
    expect(slices.json.items[0]).toMatchObject({
      metadata: { name: "kubernetes" },
      addressType: "IPv4",
      endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }],
      ports: [{ name: "https", port: h.server.port, protocol: "TCP" }],
    });
    const uid = svc.json.metadata.uid as string;
    expect((await h.client.delete("/api/v1/namespaces/default/services/kubernetes")).status).toBe(
      200,
    );
    await eventually("the Service recreated", async () => {
      const again = await h.client.get("/api/v1/namespaces/default/services/kubernetes");
      return again.status === 200 && again.json.metadata.uid !== uid ? true : undefined;
    });
    await h.client.delete("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes");
    await eventually("the EndpointSlice recreated", async () =>
      (await h.client.get("/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes"))
        .status === 200
        ? true
        : undefined,
    );
  });
});
