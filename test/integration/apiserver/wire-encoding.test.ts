import { Buffer } from "node:buffer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificateRequest } from "../../support/certificate-request.js";
import { isSession, openRemoteCommand } from "../../support/raw-remote-command.js";
import { useServer, type Json } from "../../support/server-test-helpers.js";

/**
 * The wire as kube-apiserver 1.32 writes it, over HTTP: non-pointer structs and
 * non-omitempty fields encoded as Go's encoding/json encodes them (a created Deployment's
 * `"status":{}`, StatefulSet `{"replicas":0,"availableReplicas":0}`, ...) in every read path,
 * JSON bodies ending with a newline, and exec over WebSocket taking text frames.
 */
const NS = "wire";
const LABELS = { app: "wire" };
const SELECTOR = { matchLabels: LABELS };
const CONTAINERS = [{ name: "c", image: "nginx:1.27" }];
const TEMPLATE = { metadata: { labels: LABELS }, spec: { containers: CONTAINERS } };

interface KindCase {
  readonly path: string;
  readonly spec: Json;
  readonly status: unknown;
}

/** The hand-written cases of issue 22: each kind's status right after create, as kube prints it. */
const CASES: Readonly<Record<string, KindCase>> = {
  Deployment: {
    path: `/apis/apps/v1/namespaces/${NS}/deployments`,
    spec: { selector: SELECTOR, template: TEMPLATE },
    status: {},
  },
  StatefulSet: {
    path: `/apis/apps/v1/namespaces/${NS}/statefulsets`,
    spec: { selector: SELECTOR, template: TEMPLATE, serviceName: "wire" },
    status: { replicas: 0, availableReplicas: 0 },
  },
  DaemonSet: {
    path: `/apis/apps/v1/namespaces/${NS}/daemonsets`,
    spec: { selector: SELECTOR, template: TEMPLATE },
    status: {
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    },
  },
  ReplicaSet: {
    path: `/apis/apps/v1/namespaces/${NS}/replicasets`,
    spec: { selector: SELECTOR, template: TEMPLATE },
    status: { replicas: 0 },
  },
  ReplicationController: {
    path: `/api/v1/namespaces/${NS}/replicationcontrollers`,
    spec: { selector: LABELS, template: TEMPLATE },
    status: { replicas: 0 },
  },
  Job: {
    path: `/apis/batch/v1/namespaces/${NS}/jobs`,
    spec: { template: { spec: { restartPolicy: "Never", containers: CONTAINERS } } },
    status: {},
  },
  CronJob: {
    path: `/apis/batch/v1/namespaces/${NS}/cronjobs`,
    spec: {
      schedule: "*/5 * * * *",
      jobTemplate: {
        spec: { template: { spec: { restartPolicy: "Never", containers: CONTAINERS } } },
      },
    },
    status: {},
  },
  HorizontalPodAutoscaler: {
    path: `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`,
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "d" },
      maxReplicas: 3,
    },
    status: { currentMetrics: null, desiredReplicas: 0 },
  },
  PodDisruptionBudget: {
    path: `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`,
    spec: { minAvailable: 1, selector: SELECTOR },
    status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 },
  },
  Ingress: {
    path: `/apis/networking.k8s.io/v1/namespaces/${NS}/ingresses`,
    spec: { defaultBackend: { service: { name: "web", port: { number: 80 } } } },
    status: { loadBalancer: {} },
  },
  ResourceQuota: {
    path: `/api/v1/namespaces/${NS}/resourcequotas`,
    spec: { hard: { pods: "10" } },
    status: {},
  },
};

describe("the wire as kube-apiserver 1.32 writes it", () => {
  const h = useServer();
  const created = new Map<string, Json>();

  beforeAll(async () => {
    const ns = await h.client.post("/api/v1/namespaces", { metadata: { name: NS } });
    expect(ns.status, ns.text).toBe(201);
    for (const [kind, c] of Object.entries(CASES)) {
      const res = await h.client.post(c.path, { metadata: { name: "w" }, spec: c.spec });
      expect(res.status, `${kind}: ${res.text}`).toBe(201);
      created.set(kind, res.json as Json);
    }
  });

  describe("always-encoded fields", () => {
    it.each(Object.keys(CASES))("a created %s carries kube's status", (kind) => {
      expect((created.get(kind) as Json)["status"]).toEqual(CASES[kind]?.status);
    });

    it("a created CertificateSigningRequest carries status: {} and its spec's zero fields", async () => {
      const { csrPem } = await createCertificateRequest("CN=wire");
      const res = await h.client.post("/apis/certificates.k8s.io/v1/certificatesigningrequests", {
        metadata: { name: "wire" },
        spec: {
          request: Buffer.from(csrPem).toString("base64"),
          signerName: "example.com/wire",
          usages: ["client auth"],
        },
      });
      expect(res.status, res.text).toBe(201);
      expect((res.json as Json)["status"]).toEqual({});
    });

    it("a template prints creationTimestamp: null and a container resources: {}", () => {
      const spec = (created.get("Deployment") as Json)["spec"] as Json;
      const template = spec["template"] as Json;
      expect(template["metadata"]).toEqual({ labels: LABELS, creationTimestamp: null });
      const containers = (template["spec"] as Json)["containers"] as Json[];
      expect(containers[0]?.["resources"]).toEqual({});
      expect((template["spec"] as Json)["securityContext"]).toEqual({});
    });

    it("nobody owns a created Deployment's status in managedFields", () => {
      const meta = (created.get("Deployment") as Json)["metadata"] as Json;
      const [entry] = meta["managedFields"] as Json[];
      expect(Object.keys(entry?.["fieldsV1"] as Json)).toEqual(["f:spec"]);
    });

    it("reads back the same through get, list, watch, Table and YAML", async () => {
      const path = CASES["StatefulSet"]?.path as string;
      const status = CASES["StatefulSet"]?.status;
      expect(((await h.client.get(`${path}/w`)).json as Json)["status"]).toEqual(status);
      const list = (await h.client.get(path)).json as { items: Json[] };
      expect(list.items.map((i) => i["status"])).toEqual([status]);
      const table = await h.client.get(`${path}/w?includeObject=Object`, {
        headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
      });
      const rows = (table.json as { rows: { object: Json }[] }).rows;
      expect(rows[0]?.object["status"]).toEqual(status);
      const yaml = await h.client.get(`${path}/w`, { headers: { accept: "application/yaml" } });
      expect(yaml.text).toMatch(/\nstatus:\n {2}replicas: 0\n {2}availableReplicas: 0\n/);
      const watch = await h.client.watch(`${path}?watch=true&resourceVersion=0`);
      const [event] = await watch.take(1);
      watch.close();
      expect((event?.object as Json | undefined)?.["status"]).toEqual(status);
    });

    it("a status write keeps the zero counters Go always prints", async () => {
      const path = `${CASES["DaemonSet"]?.path as string}/w/status`;
      const current = (created.get("DaemonSet") as Json)["metadata"] as Json;
      const res = await h.client.put(path, {
        metadata: { name: "w", resourceVersion: current["resourceVersion"] },
        spec: CASES["DaemonSet"]?.spec,
        status: { desiredNumberScheduled: 2, observedGeneration: 1 },
      });
      expect(res.status, res.text).toBe(200);
      expect((res.json as Json)["status"]).toEqual({
        currentNumberScheduled: 0,
        numberMisscheduled: 0,
        desiredNumberScheduled: 2,
        numberReady: 0,
        observedGeneration: 1,
      });
    });
  });

  describe("JSON bodies end with a newline, as kube's serializer writes them", () => {
    it("objects, lists, Tables and Status errors", async () => {
      const path = CASES["Deployment"]?.path as string;
      expect((await h.client.get(`${path}/w`)).text).toMatch(/}\n$/);
      expect((await h.client.get(path)).text).toMatch(/]}\n$/);
      const table = await h.client.get(path, {
        headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
      });
      expect(table.text).toMatch(/}\n$/);
      const missing = await h.client.get(`${path}/nope`);
      expect(missing.status).toBe(404);
      expect(missing.text).toBe(
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",' +
          '"message":"deployments.apps \\"nope\\" not found","reason":"NotFound",' +
          '"details":{"name":"nope","group":"apps","kind":"deployments"},"code":404}\n',
      );
      expect((await h.client.get("/api/v1")).text).toMatch(/}\n$/);
      expect((await h.client.get("/apis")).text).toMatch(/}\n$/);
    });

    it("/version as kube's WriteRawJSON: indented, no trailing newline", async () => {
      const version = await h.client.get("/version");
      expect(version.text).toMatch(/^{\n {2}"major": "1",\n/);
      expect(version.text).toMatch(/\n}$/);
    });

    it("each watch frame ends with a newline", async () => {
      const path = CASES["Deployment"]?.path as string;
      const res = await fetch(
        `${h.server.url}${path}?watch=true&resourceVersion=0&timeoutSeconds=1`,
      );
      const text = await res.text();
      expect(text).toMatch(/^{"type":"ADDED","object":{.*}}\n$/s);
    });
  });

  describe("exec over WebSocket", () => {
    beforeAll(async () => {
      const pod = await h.client.post(`/api/v1/namespaces/${NS}/pods`, {
        metadata: { name: "shell" },
        spec: { nodeName: "node-1", containers: [{ name: "main", image: "busybox" }] },
      });
      expect(pod.status, pod.text).toBe(201);
      const running = await h.client.patch(
        `/api/v1/namespaces/${NS}/pods/shell/status`,
        { status: { phase: "Running" } },
        "application/merge-patch+json",
      );
      expect(running.status, running.text).toBe(200);
    });

    const exec = (command: string[], stdin: boolean): string =>
      `/api/v1/namespaces/${NS}/pods/shell/exec?${command.map((c) => `command=${encodeURIComponent(c)}`).join("&")}` +
      `&stdout=true&stderr=true${stdin ? "&stdin=true" : ""}`;

    it("reads stdin from text frames as from binary ones (the first byte is the channel)", async () => {
      const session = await openRemoteCommand(h.server, exec(["cat"], true));
      if (!isSession(session)) throw new Error(`refused: ${session.status} ${session.text}`);
      session.ws.send("\u0000typed as text\n");
      await session.waitForStdout((out) => out === "typed as text\n");
      session.send(0, "and as binary\n");
      await session.waitForStdout((out) => out.endsWith("and as binary\n"));
      session.closeStdin();
      const outcome = await session.outcome;
      expect(outcome.stdout).toBe("typed as text\nand as binary\n");
      expect(outcome.status).toMatchObject({ status: "Success" });
      expect(outcome.closeCode).toBe(1000);
    });

    it("sends the ready message first and the exit status before the close frame", async () => {
      const session = await openRemoteCommand(
        h.server,
        exec(["sh", "-c", "echo out; exit 3"], false),
      );
      if (!isSession(session)) throw new Error(`refused: ${session.status} ${session.text}`);
      const outcome = await session.outcome;
      expect(outcome.messages[0]).toEqual({ channel: 1, data: Buffer.alloc(0) });
      expect(outcome.messages.at(-1)?.channel).toBe(3);
      expect(outcome.stdout).toBe("out\n");
      expect(outcome.status).toMatchObject({
        status: "Failure",
        reason: "NonZeroExitCode",
        details: { causes: [{ reason: "ExitCode", message: "3" }] },
      });
      expect(outcome.closeCode).toBe(1000);
    });
  });

  afterAll(() => {
    created.clear();
  });
});
