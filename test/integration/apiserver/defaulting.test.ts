import { beforeAll, describe, expect, it } from "vitest";
import { type Json, useServer } from "../../support/server-test-helpers.js";

/**
 * kube-apiserver's defaulting on the embedded server over real HTTP
 * (`pkg/apis/core/v1/defaults.go`, `pkg/apis/apps/v1/defaults.go` and the Service
 * allocator): applied on create and again on every update, so a client that drops a
 * defaulted field gets it back.
 */

const NS = "defaulting";
const BASE = `/api/v1/namespaces/${NS}`;
const APPS = `/apis/apps/v1/namespaces/${NS}`;

const TEMPLATE = {
  metadata: { labels: { app: "web" } },
  spec: { containers: [{ name: "web", image: "nginx:1.27", ports: [{ containerPort: 80 }] }] },
};

const POD_SPEC_DEFAULTS = {
  restartPolicy: "Always",
  dnsPolicy: "ClusterFirst",
  terminationGracePeriodSeconds: 30,
  schedulerName: "default-scheduler",
  securityContext: {},
};

const CONTAINER_DEFAULTS = {
  terminationMessagePath: "/dev/termination-log",
  terminationMessagePolicy: "File",
};

describe("defaulting: kube-apiserver's defaults per kind", () => {
  const h = useServer();

  beforeAll(async () => {
    expect((await h.client.post("/api/v1/namespaces", { metadata: { name: NS } })).status).toBe(
      201,
    );
  });

  it("defaults a Pod's spec and containers, and again on update", async () => {
    const res = await h.client.post(`${BASE}/pods`, {
      metadata: { name: "web" },
      spec: { containers: [{ name: "web", image: "nginx:1.27", ports: [{ containerPort: 80 }] }] },
    });
    expect(res.status, res.text).toBe(201);
    const spec = res.json.spec as Json;
    expect(spec).toMatchObject({ ...POD_SPEC_DEFAULTS, enableServiceLinks: true });
    expect(spec["containers"]).toEqual([
      {
        name: "web",
        image: "nginx:1.27",
        imagePullPolicy: "IfNotPresent",
        ports: [{ containerPort: 80, protocol: "TCP" }],
        // A non-pointer struct: Go's encoding/json always writes it.
        resources: {},
        ...CONTAINER_DEFAULTS,
      },
    ]);
    const { restartPolicy: _r, dnsPolicy: _d, ...withoutDefaults } = spec;
    const put = await h.client.put(`${BASE}/pods/web`, { ...res.json, spec: withoutDefaults });
    expect(put.status, put.text).toBe(200);
    expect(put.json.spec).toMatchObject({ restartPolicy: "Always", dnsPolicy: "ClusterFirst" });
    expect(put.json.metadata.resourceVersion).toBe(res.json.metadata.resourceVersion);
  });

  it.each([
    ["nginx", "Always"],
    ["nginx:latest", "Always"],
    ["registry.example.com:5000/team/nginx", "Always"],
    ["nginx:1.27", "IfNotPresent"],
    ["registry.example.com:5000/team/nginx:1.27", "IfNotPresent"],
    [
      "nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000",
      "IfNotPresent",
    ],
  ])("defaults imagePullPolicy of %s to %s", async (image, policy) => {
    const name = `pull-${Math.random().toString(36).slice(2, 8)}`;
    const res = await h.client.post(`${BASE}/pods`, {
      metadata: { name },
      spec: { containers: [{ name: "c", image }], initContainers: [{ name: "i", image }] },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.spec.containers[0].imagePullPolicy).toBe(policy);
    expect(res.json.spec.initContainers[0].imagePullPolicy).toBe(policy);
  });

  it("keeps values the client set", async () => {
    const res = await h.client.post(`${BASE}/pods`, {
      metadata: { name: "explicit" },
      spec: {
        restartPolicy: "Never",
        terminationGracePeriodSeconds: 0,
        enableServiceLinks: false,
        containers: [{ name: "c", image: "nginx", imagePullPolicy: "Never" }],
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.spec).toMatchObject({
      restartPolicy: "Never",
      terminationGracePeriodSeconds: 0,
      enableServiceLinks: false,
    });
    expect(res.json.spec.containers[0].imagePullPolicy).toBe("Never");
  });

  it("defaults a Deployment: strategy, revisionHistoryLimit, progressDeadlineSeconds, replicas, pod template", async () => {
    const res = await h.client.post(`${APPS}/deployments`, {
      metadata: { name: "web" },
      spec: { selector: { matchLabels: { app: "web" } }, template: TEMPLATE },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.spec).toMatchObject({
      replicas: 1,
      strategy: {
        type: "RollingUpdate",
        rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" },
      },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    });
    expect(res.json.spec.template.spec).toMatchObject(POD_SPEC_DEFAULTS);
    // enableServiceLinks is SetDefaults_Pod's, not SetDefaults_PodSpec's: templates lack it.
    expect(res.json.spec.template.spec.enableServiceLinks).toBeUndefined();
    expect(res.json.spec.template.spec.containers[0]).toMatchObject({
      ...CONTAINER_DEFAULTS,
      imagePullPolicy: "IfNotPresent",
      ports: [{ containerPort: 80, protocol: "TCP" }],
    });
  });

  it("keeps a Recreate strategy without rollingUpdate", async () => {
    const res = await h.client.post(`${APPS}/deployments`, {
      metadata: { name: "recreate" },
      spec: {
        strategy: { type: "Recreate" },
        selector: { matchLabels: { app: "web" } },
        template: TEMPLATE,
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.spec.strategy).toEqual({ type: "Recreate" });
  });

  it("defaults ReplicaSets, StatefulSets and DaemonSets", async () => {
    const rs = await h.client.post(`${APPS}/replicasets`, {
      metadata: { name: "rs" },
      spec: { selector: { matchLabels: { app: "web" } }, template: TEMPLATE },
    });
    expect(rs.status, rs.text).toBe(201);
    expect(rs.json.spec.replicas).toBe(1);
    expect(rs.json.spec.template.spec).toMatchObject(POD_SPEC_DEFAULTS);
    const sts = await h.client.post(`${APPS}/statefulsets`, {
      metadata: { name: "sts" },
      spec: { serviceName: "sts", selector: { matchLabels: { app: "web" } }, template: TEMPLATE },
    });
    expect(sts.status, sts.text).toBe(201);
    expect(sts.json.spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
    });
    const ds = await h.client.post(`${APPS}/daemonsets`, {
      metadata: { name: "ds" },
      spec: { selector: { matchLabels: { app: "web" } }, template: TEMPLATE },
    });
    expect(ds.status, ds.text).toBe(201);
    expect(ds.json.spec).toMatchObject({
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
    });
  });

  it("defaults a Service: type, sessionAffinity, ports, traffic policy, IP families", async () => {
    const res = await h.client.post(`${BASE}/services`, {
      metadata: { name: "web" },
      spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.spec).toMatchObject({
      type: "ClusterIP",
      sessionAffinity: "None",
      internalTrafficPolicy: "Cluster",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
    });
    expect(res.json.status).toEqual({ loadBalancer: {} });
  });

  it("defaults a Secret's type to Opaque and labels a Namespace with its name", async () => {
    const secret = await h.client.post(`${BASE}/secrets`, { metadata: { name: "s" } });
    expect(secret.json.type).toBe("Opaque");
    const ns = await h.client.post("/api/v1/namespaces", { metadata: { name: "labelled" } });
    expect(ns.json.metadata.labels).toEqual({ "kubernetes.io/metadata.name": "labelled" });
    expect(ns.json.spec).toEqual({ finalizers: ["kubernetes"] });
    expect(ns.json.status).toEqual({ phase: "Active" });
    const put = await h.client.put("/api/v1/namespaces/labelled", {
      ...ns.json,
      metadata: { ...ns.json.metadata, labels: { team: "a" } },
    });
    expect(put.json.metadata.labels).toEqual({
      team: "a",
      "kubernetes.io/metadata.name": "labelled",
    });
  });

  it("defaults a Job and generates its selector; defaults a CronJob", async () => {
    const job = await h.client.post(`/apis/batch/v1/namespaces/${NS}/jobs`, {
      metadata: { name: "pi" },
      spec: {
        template: { spec: { restartPolicy: "Never", containers: [{ name: "pi", image: "perl" }] } },
      },
    });
    expect(job.status, job.text).toBe(201);
    const uid = job.json.metadata.uid as string;
    expect(job.json.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: "NonIndexed",
      suspend: false,
      podReplacementPolicy: "TerminatingOrFailed",
      selector: { matchLabels: { "batch.kubernetes.io/controller-uid": uid } },
    });
    const labels = {
      "batch.kubernetes.io/controller-uid": uid,
      "batch.kubernetes.io/job-name": "pi",
      "controller-uid": uid,
      "job-name": "pi",
    };
    expect(job.json.spec.template.metadata.labels).toEqual(labels);
    expect(job.json.metadata.labels).toEqual(labels);
    expect(job.json.spec.template.spec).toMatchObject({ dnsPolicy: "ClusterFirst" });
    const cron = await h.client.post(`/apis/batch/v1/namespaces/${NS}/cronjobs`, {
      metadata: { name: "nightly" },
      spec: {
        schedule: "0 1 * * *",
        jobTemplate: {
          spec: {
            template: {
              spec: { restartPolicy: "OnFailure", containers: [{ name: "c", image: "busybox" }] },
            },
          },
        },
      },
    });
    expect(cron.status, cron.text).toBe(201);
    expect(cron.json.spec).toMatchObject({
      concurrencyPolicy: "Allow",
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
    expect(cron.json.spec.jobTemplate.spec.template.spec.containers[0].imagePullPolicy).toBe(
      "Always",
    );
  });
});
