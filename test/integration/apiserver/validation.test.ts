import { beforeAll, describe, expect, it } from "vitest";
import { causesOf, expectStatus, type Json, useServer } from "../../support/server-test-helpers.js";

/**
 * Per-kind validation on the embedded server over real HTTP, with kube-apiserver's 422
 * Invalid Status (field paths, cause types and messages of
 * `pkg/apis/core/validation/validation.go` and `pkg/apis/apps/validation/validation.go`),
 * immutable fields on update, and typed decoding (a wrong-typed built-in field is a 400
 * BadRequest and nothing is stored).
 */

const NS = "validation";
const BASE = `/api/v1/namespaces/${NS}`;
const APPS = `/apis/apps/v1/namespaces/${NS}`;
const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const KEY_MESSAGE =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
const POD_UPDATE_MESSAGE =
  "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

function pod(name: string, spec: Json): Json {
  return { apiVersion: "v1", kind: "Pod", metadata: { name }, spec };
}

function deployment(name: string, spec: Json): Json {
  return { apiVersion: "apps/v1", kind: "Deployment", metadata: { name }, spec };
}

const TEMPLATE = {
  metadata: { labels: { app: "web" } },
  spec: { containers: [{ name: "web", image: "nginx:1.27" }] },
};

describe("validation: kube-apiserver's 422 Invalid per kind", () => {
  const h = useServer();

  beforeAll(async () => {
    expect((await h.client.post("/api/v1/namespaces", { metadata: { name: NS } })).status).toBe(
      201,
    );
  });

  describe("Pod", () => {
    it("requires containers", async () => {
      const res = await h.client.post(`${BASE}/pods`, pod("no-containers", { containers: [] }));
      const status = expectStatus(res, 422, "Invalid");
      expect(status["message"]).toBe(
        'Pod "no-containers" is invalid: spec.containers: Required value',
      );
      expect(causesOf(status)).toEqual([
        { reason: "FieldValueRequired", field: "spec.containers", message: "Required value" },
      ]);
      expect((await h.client.get(`${BASE}/pods/no-containers`)).status).toBe(404);
    });

    it("checks container names (DNS-1123 label, unique) and requires an image", async () => {
      const res = await h.client.post(
        `${BASE}/pods`,
        pod("bad-containers", {
          containers: [
            { name: "Bad_Name", image: "" },
            { name: "ok", image: "nginx" },
            { name: "ok", image: "nginx" },
          ],
        }),
      );
      const causes = causesOf(expectStatus(res, 422, "Invalid"));
      expect(causes).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.containers[0].name",
          message: `Invalid value: "Bad_Name": ${LABEL_MESSAGE}`,
        },
        {
          reason: "FieldValueRequired",
          field: "spec.containers[0].image",
          message: "Required value",
        },
        {
          reason: "FieldValueDuplicate",
          field: "spec.containers[2].name",
          message: 'Duplicate value: "ok"',
        },
      ]);
    });

    it("checks container ports: range, required, protocol, unique names", async () => {
      const res = await h.client.post(
        `${BASE}/pods`,
        pod("bad-ports", {
          containers: [
            {
              name: "c",
              image: "nginx",
              ports: [
                { name: "http", containerPort: 70000 },
                { name: "http", containerPort: 0, protocol: "HTTP" },
              ],
            },
          ],
        }),
      );
      const causes = causesOf(expectStatus(res, 422, "Invalid"));
      expect(causes).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.containers[0].ports[0].containerPort",
          message: "Invalid value: 70000: must be between 1 and 65535, inclusive",
        },
        {
          reason: "FieldValueDuplicate",
          field: "spec.containers[0].ports[1].name",
          message: 'Duplicate value: "http"',
        },
        {
          reason: "FieldValueRequired",
          field: "spec.containers[0].ports[1].containerPort",
          message: "Required value",
        },
        {
          reason: "FieldValueNotSupported",
          field: "spec.containers[0].ports[1].protocol",
          message: 'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
        },
      ]);
    });

    it("rejects an unsupported restartPolicy", async () => {
      const res = await h.client.post(
        `${BASE}/pods`,
        pod("bad-restart", { restartPolicy: "Sometimes", containers: [{ name: "c", image: "x" }] }),
      );
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueNotSupported",
          field: "spec.restartPolicy",
          message:
            'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
        },
      ]);
    });

    it("forbids spec updates except images, activeDeadlineSeconds, tolerations and the grace period", async () => {
      const created = await h.client.post(
        `${BASE}/pods`,
        pod("immutable", { containers: [{ name: "c", image: "nginx:1.26" }] }),
      );
      expect(created.status, created.text).toBe(201);
      const image = await h.client.patch(
        `${BASE}/pods/immutable`,
        { spec: { containers: [{ name: "c", image: "nginx:1.27" }], activeDeadlineSeconds: 60 } },
        "application/strategic-merge-patch+json",
      );
      expect(image.status, image.text).toBe(200);
      expect(image.json.spec.containers[0].image).toBe("nginx:1.27");
      const labels = await h.client.patch(
        `${BASE}/pods/immutable`,
        { metadata: { labels: { a: "b" } } },
        "application/merge-patch+json",
      );
      expect(labels.status, labels.text).toBe(200);
      const env = await h.client.patch(
        `${BASE}/pods/immutable`,
        { spec: { containers: [{ name: "c", env: [{ name: "A", value: "1" }] }] } },
        "application/strategic-merge-patch+json",
      );
      const status = expectStatus(env, 422, "Invalid");
      expect(status["message"]).toBe(
        `Pod "immutable" is invalid: spec: Forbidden: ${POD_UPDATE_MESSAGE}`,
      );
      expect(causesOf(status)).toEqual([
        {
          reason: "FieldValueForbidden",
          field: "spec",
          message: `Forbidden: ${POD_UPDATE_MESSAGE}`,
        },
      ]);
      const toleration = { key: "k", operator: "Exists", effect: "NoSchedule" };
      const added = await h.client.patch(
        `${BASE}/pods/immutable`,
        { spec: { tolerations: [toleration] } },
        "application/merge-patch+json",
      );
      expect(added.status, added.text).toBe(200);
      const removed = await h.client.patch(
        `${BASE}/pods/immutable`,
        { spec: { tolerations: [] } },
        "application/merge-patch+json",
      );
      expectStatus(removed, 422, "Invalid");
      const grace = await h.client.patch(
        `${BASE}/pods/immutable`,
        { spec: { terminationGracePeriodSeconds: 5 } },
        "application/merge-patch+json",
      );
      expectStatus(grace, 422, "Invalid");
      const nodeName = await h.client.patch(
        `${BASE}/pods/immutable`,
        { spec: { nodeName: "node-1" } },
        "application/merge-patch+json",
      );
      expectStatus(nodeName, 422, "Invalid");
      // Binding is not a spec update: it sets nodeName.
      const bind = await h.client.post(`${BASE}/pods/immutable/binding`, {
        apiVersion: "v1",
        kind: "Binding",
        metadata: { name: "immutable" },
        target: { kind: "Node", name: "node-1" },
      });
      expect(bind.status, bind.text).toBe(201);
      expect((await h.client.get(`${BASE}/pods/immutable`)).json.spec.nodeName).toBe("node-1");
      // A bound pod stays bound: a second binding is a Conflict, as kube-apiserver's.
      const again = await h.client.post(`${BASE}/pods/immutable/binding`, {
        apiVersion: "v1",
        kind: "Binding",
        metadata: { name: "immutable" },
        target: { kind: "Node", name: "node-2" },
      });
      expectStatus(again, 409, "Conflict");
      expect(again.json.message).toBe(
        'Operation cannot be fulfilled on pods/binding "immutable": pod immutable is already assigned to node "node-1"',
      );
      expect((await h.client.get(`${BASE}/pods/immutable`)).json.spec.nodeName).toBe("node-1");
    });

    it("lets status writes through the status subresource", async () => {
      const created = await h.client.post(
        `${BASE}/pods`,
        pod("status-write", { containers: [{ name: "c", image: "nginx" }] }),
      );
      expect(created.status).toBe(201);
      const res = await h.client.patch(
        `${BASE}/pods/status-write/status`,
        { status: { phase: "Running" } },
        "application/merge-patch+json",
      );
      expect(res.status, res.text).toBe(200);
      expect(res.json.status.phase).toBe("Running");
    });
  });

  describe("ConfigMap and Secret", () => {
    it("rejects a ConfigMap key that is not a valid config key", async () => {
      const res = await h.client.post(`${BASE}/configmaps`, {
        metadata: { name: "bad-key" },
        data: { "bad key!": "x", good: "y" },
      });
      const status = expectStatus(res, 422, "Invalid");
      expect(status["message"]).toBe(
        `ConfigMap "bad-key" is invalid: data[bad key!]: Invalid value: "bad key!": ${KEY_MESSAGE}`,
      );
      expect(causesOf(status)).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "data[bad key!]",
          message: `Invalid value: "bad key!": ${KEY_MESSAGE}`,
        },
      ]);
    });

    it("rejects a key in both data and binaryData", async () => {
      const res = await h.client.post(`${BASE}/configmaps`, {
        metadata: { name: "both" },
        data: { k: "x" },
        binaryData: { k: "eA==" },
      });
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "binaryData[k]",
          message: 'Invalid value: "k": duplicate key in both data and binaryData',
        },
      ]);
    });

    it("rejects a ConfigMap over 1 MiB and a Secret whose data is over 1 MiB", async () => {
      const big = "x".repeat(1024 * 1024 + 1);
      const cm = await h.client.post(`${BASE}/configmaps`, {
        metadata: { name: "big" },
        data: { k: big },
      });
      expect(causesOf(expectStatus(cm, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueTooLong",
          message: "Too long: may not be more than 1048576 bytes",
        },
      ]);
      const secret = await h.client.post(`${BASE}/secrets`, {
        metadata: { name: "big" },
        stringData: { k: big },
      });
      expect(causesOf(expectStatus(secret, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueTooLong",
          field: "data",
          message: "Too long: may not be more than 1048576 bytes",
        },
      ]);
      const fits = await h.client.post(`${BASE}/configmaps`, {
        metadata: { name: "fits" },
        data: { k: "x".repeat(1024 * 1024) },
      });
      expect(fits.status).toBe(201);
    });

    it("keeps an immutable ConfigMap's data and flag", async () => {
      const created = await h.client.post(`${BASE}/configmaps`, {
        metadata: { name: "frozen" },
        data: { a: "1" },
        immutable: true,
      });
      expect(created.status).toBe(201);
      const res = await h.client.patch(
        `${BASE}/configmaps/frozen`,
        { data: { a: "2" }, immutable: false },
        "application/merge-patch+json",
      );
      expect(causesOf(expectStatus(res, 422, "Invalid")).map((c) => [c.field, c.message])).toEqual([
        ["immutable", "Forbidden: field is immutable when `immutable` is set"],
        ["data", "Forbidden: field is immutable when `immutable` is set"],
      ]);
    });

    it("merges a Secret's stringData into data as base64 and never stores stringData", async () => {
      const res = await h.client.post(`${BASE}/secrets`, {
        metadata: { name: "creds" },
        data: { user: Buffer.from("old").toString("base64"), keep: "a2VlcA==" },
        stringData: { user: "admin", password: "s3cret" },
      });
      expect(res.status, res.text).toBe(201);
      expect(res.json.stringData).toBeUndefined();
      expect(res.json.type).toBe("Opaque");
      expect(res.json.data).toEqual({
        user: Buffer.from("admin").toString("base64"),
        password: Buffer.from("s3cret").toString("base64"),
        keep: "a2VlcA==",
      });
      const got = await h.client.get(`${BASE}/secrets/creds`);
      expect(got.json.stringData).toBeUndefined();
      const patched = await h.client.patch(
        `${BASE}/secrets/creds`,
        { stringData: { password: "changed" } },
        "application/merge-patch+json",
      );
      expect(patched.status, patched.text).toBe(200);
      expect(patched.json.stringData).toBeUndefined();
      expect(patched.json.data.password).toBe(Buffer.from("changed").toString("base64"));
    });

    it("checks Secret keys, the keys of typed Secrets, and an immutable type", async () => {
      const bad = await h.client.post(`${BASE}/secrets`, {
        metadata: { name: "bad-secret" },
        type: "kubernetes.io/tls",
        data: { "a/b": "eA==" },
      });
      expect(causesOf(expectStatus(bad, 422, "Invalid")).map((c) => [c.reason, c.field])).toEqual([
        ["FieldValueInvalid", "data[a/b]"],
        ["FieldValueRequired", "data[tls.crt]"],
        ["FieldValueRequired", "data[tls.key]"],
      ]);
      expect((await h.client.post(`${BASE}/secrets`, { metadata: { name: "typed" } })).status).toBe(
        201,
      );
      const retype = await h.client.patch(
        `${BASE}/secrets/typed`,
        { type: "example.com/other" },
        "application/merge-patch+json",
      );
      expect(causesOf(expectStatus(retype, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "type",
          message: 'Invalid value: "example.com/other": field is immutable',
        },
      ]);
    });
  });

  describe("Service", () => {
    it("rejects port 0, an unsupported type and unnamed ports among several", async () => {
      const res = await h.client.post(`${BASE}/services`, {
        metadata: { name: "bad-svc" },
        spec: { type: "Internal", ports: [{ port: 0 }, { port: 80, name: "http" }] },
      });
      const causes = causesOf(expectStatus(res, 422, "Invalid"));
      expect(causes).toEqual([
        {
          reason: "FieldValueNotSupported",
          field: "spec.type",
          message:
            'Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
        },
        { reason: "FieldValueRequired", field: "spec.ports[0].name", message: "Required value" },
        {
          reason: "FieldValueInvalid",
          field: "spec.ports[0].port",
          message: "Invalid value: 0: must be between 1 and 65535, inclusive",
        },
        // The defaulted targetPort (the port, 0) is invalid too, as in kube-apiserver.
        {
          reason: "FieldValueInvalid",
          field: "spec.ports[0].targetPort",
          message: "Invalid value: 0: must be between 1 and 65535, inclusive",
        },
      ]);
    });

    it("requires ports on a ClusterIP Service but not on a headless one", async () => {
      const none = await h.client.post(`${BASE}/services`, {
        metadata: { name: "no-ports" },
        spec: {},
      });
      expect(causesOf(expectStatus(none, 422, "Invalid"))).toEqual([
        { reason: "FieldValueRequired", field: "spec.ports", message: "Required value" },
      ]);
      const headless = await h.client.post(`${BASE}/services`, {
        metadata: { name: "headless" },
        spec: { clusterIP: "None", selector: { app: "x" } },
      });
      expect(headless.status, headless.text).toBe(201);
      expect(headless.json.spec.clusterIPs).toEqual(["None"]);
    });

    it("keeps the allocated clusterIP across update, every patch type and apply; refuses to change it", async () => {
      const created = await h.client.post(`${BASE}/services`, {
        metadata: { name: "keep-ip" },
        spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
      });
      expect(created.status, created.text).toBe(201);
      const ip = created.json.spec.clusterIP as string;
      expect(ip).toMatch(/^10\.96\.\d+\.\d+$/);
      expect(created.json.spec.clusterIPs).toEqual([ip]);

      const { clusterIP: _ip, clusterIPs: _ips, ...specWithoutIp } = created.json.spec;
      const put = await h.client.put(`${BASE}/services/keep-ip`, {
        ...created.json,
        spec: { ...specWithoutIp, selector: { app: "web2" } },
      });
      expect(put.status, put.text).toBe(200);
      expect([put.json.spec.clusterIP, put.json.spec.clusterIPs]).toEqual([ip, [ip]]);

      const merge = await h.client.patch(
        `${BASE}/services/keep-ip`,
        { spec: { clusterIP: null, clusterIPs: null } },
        "application/merge-patch+json",
      );
      expect(merge.status, merge.text).toBe(200);
      expect([merge.json.spec.clusterIP, merge.json.spec.clusterIPs]).toEqual([ip, [ip]]);

      const jsonPatch = await h.client.patch(
        `${BASE}/services/keep-ip`,
        [
          { op: "remove", path: "/spec/clusterIP" },
          { op: "remove", path: "/spec/clusterIPs" },
        ],
        "application/json-patch+json",
      );
      expect(jsonPatch.status, jsonPatch.text).toBe(200);
      expect(jsonPatch.json.spec.clusterIP).toBe(ip);

      const apply = await h.client.patch(
        `${BASE}/services/keep-ip?fieldManager=tester&force=true`,
        {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "keep-ip" },
          spec: { selector: { app: "web3" }, ports: [{ port: 80, protocol: "TCP" }] },
        },
        "application/apply-patch+yaml",
      );
      expect(apply.status, apply.text).toBe(200);
      expect([apply.json.spec.clusterIP, apply.json.spec.clusterIPs]).toEqual([ip, [ip]]);

      const change = await h.client.patch(
        `${BASE}/services/keep-ip`,
        { spec: { clusterIP: "10.96.250.250", clusterIPs: ["10.96.250.250"] } },
        "application/merge-patch+json",
      );
      expect(causesOf(expectStatus(change, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.clusterIPs[0]",
          message: 'Invalid value: ["10.96.250.250"]: may not change once set',
        },
      ]);
    });

    it("allocates nodePorts for a NodePort Service and keeps them on update", async () => {
      const created = await h.client.post(`${BASE}/services`, {
        metadata: { name: "node-port" },
        spec: { type: "NodePort", ports: [{ port: 80 }] },
      });
      expect(created.status, created.text).toBe(201);
      const nodePort = created.json.spec.ports[0].nodePort as number;
      expect(nodePort).toBeGreaterThanOrEqual(30000);
      expect(nodePort).toBeLessThanOrEqual(32767);
      const put = await h.client.put(`${BASE}/services/node-port`, {
        ...created.json,
        spec: { ...created.json.spec, ports: [{ port: 80 }] },
      });
      expect(put.status, put.text).toBe(200);
      expect(put.json.spec.ports[0].nodePort).toBe(nodePort);
    });
  });

  describe("Deployment and ReplicaSet", () => {
    it("requires a selector that matches the template labels", async () => {
      const missing = await h.client.post(
        `${APPS}/deployments`,
        deployment("no-selector", { template: TEMPLATE }),
      );
      expect(
        causesOf(expectStatus(missing, 422, "Invalid")).map((c) => [c.reason, c.field]),
      ).toEqual([["FieldValueRequired", "spec.selector"]]);
      const mismatch = await h.client.post(
        `${APPS}/deployments`,
        deployment("mismatch", { selector: { matchLabels: { app: "db" } }, template: TEMPLATE }),
      );
      const status = expectStatus(mismatch, 422, "Invalid");
      expect(status["message"]).toBe(
        'Deployment.apps "mismatch" is invalid: spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
      );
      const rs = await h.client.post(`${APPS}/replicasets`, {
        metadata: { name: "rs-mismatch" },
        spec: { selector: { matchLabels: { app: "db" } }, template: TEMPLATE },
      });
      expect(causesOf(expectStatus(rs, 422, "Invalid")).map((c) => c.field)).toEqual([
        "spec.template.metadata.labels",
      ]);
    });

    it("rejects negative replicas, a template restartPolicy other than Always and invalid containers", async () => {
      const res = await h.client.post(
        `${APPS}/deployments`,
        deployment("bad-spec", {
          replicas: -1,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: { restartPolicy: "Never", containers: [{ name: "web" }] },
          },
        }),
      );
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.replicas",
          message: "Invalid value: -1: must be greater than or equal to 0",
        },
        {
          reason: "FieldValueRequired",
          field: "spec.template.spec.containers[0].image",
          message: "Required value",
        },
        {
          reason: "FieldValueNotSupported",
          field: "spec.template.spec.restartPolicy",
          message: 'Unsupported value: "Never": supported values: "Always"',
        },
      ]);
    });

    it("keeps the selector immutable on update", async () => {
      const created = await h.client.post(
        `${APPS}/deployments`,
        deployment("fixed", { selector: { matchLabels: { app: "web" } }, template: TEMPLATE }),
      );
      expect(created.status, created.text).toBe(201);
      const res = await h.client.patch(
        `${APPS}/deployments/fixed`,
        {
          spec: {
            selector: { matchLabels: { app: "web", tier: "fe" } },
            template: { metadata: { labels: { app: "web", tier: "fe" } } },
          },
        },
        "application/strategic-merge-patch+json",
      );
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.selector",
          message: 'Invalid value: {"matchLabels":{"app":"web","tier":"fe"}}: field is immutable',
        },
      ]);
      const scale = await h.client.patch(
        `${APPS}/deployments/fixed`,
        { spec: { replicas: 3 } },
        "application/merge-patch+json",
      );
      expect(scale.status, scale.text).toBe(200);
    });
  });

  describe("Job and CronJob", () => {
    const JOBS = `/apis/batch/v1/namespaces/${NS}`;

    it("requires a Job's pods to restart OnFailure or Never, and a CronJob schedule", async () => {
      const job = await h.client.post(`${JOBS}/jobs`, {
        metadata: { name: "always" },
        spec: { template: { spec: { containers: [{ name: "c", image: "x" }] } } },
      });
      expect(causesOf(expectStatus(job, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueNotSupported",
          field: "spec.template.spec.restartPolicy",
          message: 'Unsupported value: "Always": supported values: "OnFailure", "Never"',
        },
      ]);
      const cron = await h.client.post(`${JOBS}/cronjobs`, {
        metadata: { name: "no-schedule" },
        spec: {
          jobTemplate: {
            spec: {
              template: {
                spec: { restartPolicy: "Never", containers: [{ name: "c", image: "x" }] },
              },
            },
          },
        },
      });
      expect(causesOf(expectStatus(cron, 422, "Invalid"))).toEqual([
        { reason: "FieldValueRequired", field: "spec.schedule", message: "Required value" },
      ]);
    });

    it("keeps a Job's template immutable but lets it be suspended", async () => {
      const created = await h.client.post(`${JOBS}/jobs`, {
        metadata: { name: "fixed-job" },
        spec: {
          template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "x:1" }] } },
        },
      });
      expect(created.status, created.text).toBe(201);
      const image = await h.client.patch(
        `${JOBS}/jobs/fixed-job`,
        { spec: { template: { spec: { containers: [{ name: "c", image: "x:2" }] } } } },
        "application/strategic-merge-patch+json",
      );
      expect(causesOf(expectStatus(image, 422, "Invalid")).map((c) => [c.reason, c.field])).toEqual(
        [["FieldValueInvalid", "spec.template"]],
      );
      const suspend = await h.client.patch(
        `${JOBS}/jobs/fixed-job`,
        { spec: { suspend: true } },
        "application/merge-patch+json",
      );
      expect(suspend.status, suspend.text).toBe(200);
    });
  });

  describe("PersistentVolumeClaim", () => {
    it("requires access modes and a storage request, defaults volumeMode, keeps the spec fixed", async () => {
      const bad = await h.client.post(`${BASE}/persistentvolumeclaims`, {
        metadata: { name: "bad-claim" },
        spec: {},
      });
      expect(causesOf(expectStatus(bad, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueRequired",
          field: "spec.accessModes",
          message: "Required value: at least 1 access mode is required",
        },
        {
          reason: "FieldValueRequired",
          field: "spec.resources[storage]",
          message: "Required value",
        },
      ]);
      const claim = await h.client.post(`${BASE}/persistentvolumeclaims`, {
        metadata: { name: "claim" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      });
      expect(claim.status, claim.text).toBe(201);
      expect(claim.json.spec.volumeMode).toBe("Filesystem");
      expect(claim.json.status).toEqual({ phase: "Pending" });
      const grow = await h.client.patch(
        `${BASE}/persistentvolumeclaims/claim`,
        { spec: { resources: { requests: { storage: "2Gi" } }, volumeName: "pv-1" } },
        "application/merge-patch+json",
      );
      expect(grow.status, grow.text).toBe(200);
      const modes = await h.client.patch(
        `${BASE}/persistentvolumeclaims/claim`,
        { spec: { accessModes: ["ReadWriteMany"] } },
        "application/merge-patch+json",
      );
      expect(causesOf(expectStatus(modes, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueForbidden",
          field: "spec",
          message:
            "Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims",
        },
      ]);
    });
  });

  describe("RBAC", () => {
    const RBAC = "/apis/rbac.authorization.k8s.io/v1";

    it("checks Role rules and RoleBinding roleRefs and subjects", async () => {
      const role = await h.client.post(`${RBAC}/namespaces/${NS}/roles`, {
        metadata: { name: "bad-role" },
        rules: [
          { apiGroups: [""], resources: ["pods"] },
          { verbs: ["get"], nonResourceURLs: ["/x"] },
        ],
      });
      expect(causesOf(expectStatus(role, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueRequired",
          field: "rules[0].verbs",
          message: "Required value: verbs must contain at least one value",
        },
        {
          reason: "FieldValueInvalid",
          field: "rules[1].nonResourceURLs",
          message: 'Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
        },
      ]);
      const binding = await h.client.post(`${RBAC}/namespaces/${NS}/rolebindings`, {
        metadata: { name: "bad-binding" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Pod", name: "" },
        subjects: [{ kind: "User", name: "jane" }],
      });
      expect(causesOf(expectStatus(binding, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueNotSupported",
          field: "roleRef.kind",
          message: 'Unsupported value: "Pod": supported values: "Role", "ClusterRole"',
        },
        { reason: "FieldValueRequired", field: "roleRef.name", message: "Required value" },
        {
          reason: "FieldValueNotSupported",
          field: "subjects[0].apiGroup",
          message: 'Unsupported value: "": supported values: "rbac.authorization.k8s.io"',
        },
      ]);
    });

    it("keeps a ClusterRoleBinding's roleRef immutable", async () => {
      const roleRef = { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" };
      const created = await h.client.post(`${RBAC}/clusterrolebindings`, {
        metadata: { name: "viewers" },
        roleRef,
        subjects: [{ kind: "ServiceAccount", name: "default", namespace: NS }],
      });
      expect(created.status, created.text).toBe(201);
      const res = await h.client.patch(
        `${RBAC}/clusterrolebindings/viewers`,
        { roleRef: { ...roleRef, name: "edit" } },
        "application/merge-patch+json",
      );
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "roleRef",
          message:
            'Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"edit"}: cannot change roleRef',
        },
      ]);
    });
  });

  describe("typed decoding", () => {
    it("answers 400 for a ConfigMap data value that is a number or an object, and stores nothing", async () => {
      const number = await h.client.post(`${BASE}/configmaps`, {
        metadata: { name: "typed-number" },
        data: { a: 1 },
      });
      expect(expectStatus(number, 400, "BadRequest")["message"]).toBe(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
      );
      const object = await h.client.post(`${BASE}/configmaps`, {
        metadata: { name: "typed-object" },
        data: { a: { b: "c" } },
      });
      expect(expectStatus(object, 400, "BadRequest")["message"]).toBe(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal object into Go struct field ConfigMap.data of type string',
      );
      expect((await h.client.get(`${BASE}/configmaps/typed-number`)).status).toBe(404);
      expect((await h.client.get(`${BASE}/configmaps/typed-object`)).status).toBe(404);
    });

    it("names nested fields and list types: spec.containers, annotations, a port", async () => {
      const containers = await h.client.post(`${BASE}/pods`, pod("typed-pod", { containers: "x" }));
      expect(expectStatus(containers, 400, "BadRequest")["message"]).toBe(
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container',
      );
      const annotations = await h.client.post(`${BASE}/configmaps`, {
        metadata: { name: "typed-annotations", annotations: { a: { nested: true } } },
      });
      expect(expectStatus(annotations, 400, "BadRequest")["message"]).toBe(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal object into Go struct field ObjectMeta.metadata.annotations of type string',
      );
      const port = await h.client.post(
        `${BASE}/pods`,
        pod("typed-port", {
          containers: [{ name: "c", image: "x", ports: [{ containerPort: "80" }] }],
        }),
      );
      expect(expectStatus(port, 400, "BadRequest")["message"]).toBe(
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
      );
    });

    it("checks patched objects too", async () => {
      expect(
        (
          await h.client.post(`${BASE}/configmaps`, {
            metadata: { name: "typed-patch" },
            data: { a: "1" },
          })
        ).status,
      ).toBe(201);
      const res = await h.client.patch(
        `${BASE}/configmaps/typed-patch`,
        { data: { a: 2 } },
        "application/merge-patch+json",
      );
      expectStatus(res, 400, "BadRequest");
      expect((await h.client.get(`${BASE}/configmaps/typed-patch`)).json.data).toEqual({ a: "1" });
    });
  });
});
