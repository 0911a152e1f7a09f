import { beforeAll, describe, expect, it } from "vitest";
import { causesOf, expectStatus, type Json, useServer } from "../../support/server-test-helpers.js";

/**
 * Validation of StatefulSets, DaemonSets, ServiceAccounts, Leases, PodDisruptionBudgets and
 * HorizontalPodAutoscalers on the embedded server over real HTTP: kube-apiserver's 422
 * Invalid Status with the field paths, cause types and messages of
 * `pkg/apis/apps/validation`, `pkg/apis/coordination/validation`, `pkg/apis/policy/validation`
 * and `pkg/apis/autoscaling/validation`, and the update rules of those kinds.
 */

const NS = "validation-more";
const APPS = `/apis/apps/v1/namespaces/${NS}`;
const STATEFUL_SET_UPDATE_MESSAGE =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

function workload(kind: string, name: string, spec: Json): Json {
  return { apiVersion: "apps/v1", kind, metadata: { name }, spec };
}

const TEMPLATE = {
  metadata: { labels: { app: "db" } },
  spec: { containers: [{ name: "db", image: "postgres:17" }] },
};
const SELECTOR = { matchLabels: { app: "db" } };

describe("validation of more kinds: kube-apiserver's 422 Invalid", () => {
  const h = useServer();

  beforeAll(async () => {
    expect((await h.client.post("/api/v1/namespaces", { metadata: { name: NS } })).status).toBe(
      201,
    );
  });

  describe("StatefulSet", () => {
    it("requires a selector matching the template labels and a non-negative replica count", async () => {
      const missing = await h.client.post(
        `${APPS}/statefulsets`,
        workload("StatefulSet", "no-selector", { template: TEMPLATE }),
      );
      expect(causesOf(expectStatus(missing, 422, "Invalid"))).toEqual([
        { reason: "FieldValueRequired", field: "spec.selector", message: "Required value" },
      ]);
      const empty = await h.client.post(
        `${APPS}/statefulsets`,
        workload("StatefulSet", "empty-selector", { selector: {}, template: TEMPLATE }),
      );
      expect(causesOf(expectStatus(empty, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.selector",
          message: "Invalid value: {}: empty selector is invalid for statefulset",
        },
      ]);
      const res = await h.client.post(
        `${APPS}/statefulsets`,
        workload("StatefulSet", "mismatch", {
          replicas: -1,
          selector: { matchLabels: { app: "web" } },
          template: TEMPLATE,
        }),
      );
      const status = expectStatus(res, 422, "Invalid");
      expect(status["message"]).toBe(
        'StatefulSet.apps "mismatch" is invalid: [spec.template.metadata.labels: Invalid value: {"app":"db"}: `selector` does not match template `labels`, spec.replicas: Invalid value: -1: must be greater than or equal to 0]',
      );
      expect((await h.client.get(`${APPS}/statefulsets/mismatch`)).status).toBe(404);
    });

    it("checks the pod template, the policies, serviceName and the name as kube does", async () => {
      const res = await h.client.post(
        `${APPS}/statefulsets`,
        workload("StatefulSet", "bad-spec", {
          serviceName: "Bad_Service",
          podManagementPolicy: "Random",
          updateStrategy: { type: "OnDelete", rollingUpdate: { partition: 1 } },
          selector: SELECTOR,
          template: {
            metadata: { labels: { app: "db" } },
            spec: {
              restartPolicy: "OnFailure",
              activeDeadlineSeconds: 30,
              containers: [{ name: "db" }],
            },
          },
        }),
      );
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.podManagementPolicy",
          message: "Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.updateStrategy.rollingUpdate",
          message:
            "Invalid value: {\"partition\":1}: only allowed for updateStrategy 'RollingUpdate'",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.serviceName",
          message: expect.stringContaining(
            'Invalid value: "Bad_Service": a lowercase RFC 1123 label',
          ) as string,
        },
        {
          reason: "FieldValueRequired",
          field: "spec.template.spec.containers[0].image",
          message: "Required value",
        },
        {
          reason: "FieldValueNotSupported",
          field: "spec.template.spec.restartPolicy",
          message: 'Unsupported value: "OnFailure": supported values: "Always"',
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.template.spec.activeDeadlineSeconds",
          message: "Invalid value: 30: must not be specified",
        },
      ]);
      const dotted = await h.client.post(
        `${APPS}/statefulsets`,
        workload("StatefulSet", "has.dot", { selector: SELECTOR, template: TEMPLATE }),
      );
      expect(causesOf(expectStatus(dotted, 422, "Invalid")).map((c) => c.field)).toEqual([
        "metadata.name",
      ]);
    });

    it("accepts a StatefulSet without serviceName and forbids changes outside the mutable fields", async () => {
      const created = await h.client.post(
        `${APPS}/statefulsets`,
        workload("StatefulSet", "db", { selector: SELECTOR, template: TEMPLATE }),
      );
      expect(created.status, created.text).toBe(201);
      const mutable = await h.client.patch(
        `${APPS}/statefulsets/db`,
        {
          spec: {
            replicas: 3,
            minReadySeconds: 5,
            revisionHistoryLimit: 2,
            updateStrategy: { type: "OnDelete", rollingUpdate: null },
            template: { spec: { containers: [{ name: "db", image: "postgres:18" }] } },
          },
        },
        "application/strategic-merge-patch+json",
      );
      expect(mutable.status, mutable.text).toBe(200);
      for (const spec of [
        { serviceName: "db" },
        { podManagementPolicy: "Parallel" },
        { selector: { matchLabels: { app: "db", tier: "x" } } },
      ]) {
        const res = await h.client.patch(
          `${APPS}/statefulsets/db`,
          { spec },
          "application/merge-patch+json",
        );
        expect(causesOf(expectStatus(res, 422, "Invalid"))).toContainEqual({
          reason: "FieldValueForbidden",
          field: "spec",
          message: `Forbidden: ${STATEFUL_SET_UPDATE_MESSAGE}`,
        });
      }
      const stored = (await h.client.get(`${APPS}/statefulsets/db`)).json as Json;
      expect((stored["spec"] as Json)["podManagementPolicy"]).toBe("OrderedReady");
      // serviceName is optional but not omitempty in Go: kube-apiserver writes "".
      expect((stored["spec"] as Json)["serviceName"]).toBe("");
    });

    it("defaults volumeClaimTemplates, reads empty values as absent and forbids changing the templates", async () => {
      const claim = {
        metadata: { name: "data" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      };
      const created = await h.client.post(
        `${APPS}/statefulsets`,
        workload("StatefulSet", "pg", {
          selector: SELECTOR,
          template: TEMPLATE,
          volumeClaimTemplates: [claim],
        }),
      );
      expect(created.status, created.text).toBe(201);
      const stored = created.json as Json;
      expect((stored["spec"] as Json)["volumeClaimTemplates"]).toEqual([
        {
          // A template's ObjectMeta prints its zero creationTimestamp, as Go encodes it.
          metadata: { ...claim.metadata, creationTimestamp: null },
          spec: { ...claim.spec, volumeMode: "Filesystem" },
          status: { phase: "Pending" },
        },
      ]);
      const put = await h.client.put(`${APPS}/statefulsets/pg`, {
        ...stored,
        spec: { ...(stored["spec"] as Json), serviceName: "", volumeClaimTemplates: [claim] },
      });
      expect(put.status, put.text).toBe(200);
      const resized = await h.client.patch(
        `${APPS}/statefulsets/pg`,
        {
          spec: {
            volumeClaimTemplates: [
              { ...claim, spec: { ...claim.spec, resources: { requests: { storage: "2Gi" } } } },
            ],
          },
        },
        "application/merge-patch+json",
      );
      expect(causesOf(expectStatus(resized, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueForbidden",
          field: "spec",
          message: `Forbidden: ${STATEFUL_SET_UPDATE_MESSAGE}`,
        },
      ]);
    });
  });

  describe("DaemonSet", () => {
    it("reads a missing selector as matching nothing and rejects an empty one", async () => {
      const missing = await h.client.post(
        `${APPS}/daemonsets`,
        workload("DaemonSet", "no-selector", { template: TEMPLATE }),
      );
      expect(causesOf(expectStatus(missing, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.template.metadata.labels",
          message: 'Invalid value: {"app":"db"}: `selector` does not match template `labels`',
        },
      ]);
      const empty = await h.client.post(
        `${APPS}/daemonsets`,
        workload("DaemonSet", "empty-selector", { selector: {}, template: TEMPLATE }),
      );
      expect(causesOf(expectStatus(empty, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.selector",
          message: "Invalid value: {}: empty selector is invalid for daemonset",
        },
      ]);
    });

    it("requires restartPolicy Always and a supported update strategy", async () => {
      const res = await h.client.post(
        `${APPS}/daemonsets`,
        workload("DaemonSet", "bad-spec", {
          selector: SELECTOR,
          updateStrategy: { type: "Recreate" },
          template: { ...TEMPLATE, spec: { ...TEMPLATE.spec, restartPolicy: "Never" } },
        }),
      );
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueNotSupported",
          field: "spec.template.spec.restartPolicy",
          message: 'Unsupported value: "Never": supported values: "Always"',
        },
        {
          reason: "FieldValueNotSupported",
          field: "spec.updateStrategy.type",
          message: 'Unsupported value: "Recreate": supported values: "RollingUpdate", "OnDelete"',
        },
      ]);
    });

    it("keeps the selector immutable and lets the template change", async () => {
      const created = await h.client.post(
        `${APPS}/daemonsets`,
        workload("DaemonSet", "agent", { selector: SELECTOR, template: TEMPLATE }),
      );
      expect(created.status, created.text).toBe(201);
      const res = await h.client.patch(
        `${APPS}/daemonsets/agent`,
        {
          spec: {
            selector: { matchLabels: { app: "db", tier: "x" } },
            template: { metadata: { labels: { app: "db", tier: "x" } } },
          },
        },
        "application/strategic-merge-patch+json",
      );
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.selector",
          message: 'Invalid value: {"matchLabels":{"app":"db","tier":"x"}}: field is immutable',
        },
      ]);
      const image = await h.client.patch(
        `${APPS}/daemonsets/agent`,
        { spec: { template: { spec: { containers: [{ name: "db", image: "postgres:18" }] } } } },
        "application/strategic-merge-patch+json",
      );
      expect(image.status, image.text).toBe(200);
    });
  });

  describe("ServiceAccount", () => {
    it("requires a DNS-1123 subdomain name", async () => {
      const res = await h.client.post(`/api/v1/namespaces/${NS}/serviceaccounts`, {
        metadata: { name: "Bad_Name" },
      });
      const causes = causesOf(expectStatus(res, 422, "Invalid"));
      expect(causes.map((c) => [c.reason, c.field])).toEqual([
        ["FieldValueInvalid", "metadata.name"],
      ]);
      expect(causes[0]?.message).toContain("a lowercase RFC 1123 subdomain");
    });
  });

  describe("Lease", () => {
    const LEASES = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`;

    it("requires positive durations and non-negative transitions, on create and update", async () => {
      const res = await h.client.post(LEASES, {
        metadata: { name: "bad" },
        spec: { leaseDurationSeconds: 0, leaseTransitions: -1 },
      });
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.leaseDurationSeconds",
          message: "Invalid value: 0: must be greater than 0",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.leaseTransitions",
          message: "Invalid value: -1: must be greater than or equal to 0",
        },
      ]);
      const created = await h.client.post(LEASES, {
        metadata: { name: "ok" },
        spec: { holderIdentity: "a", leaseDurationSeconds: 15 },
      });
      expect(created.status, created.text).toBe(201);
      const update = await h.client.patch(
        `${LEASES}/ok`,
        { spec: { leaseDurationSeconds: -5 } },
        "application/merge-patch+json",
      );
      expect(causesOf(expectStatus(update, 422, "Invalid")).map((c) => c.field)).toEqual([
        "spec.leaseDurationSeconds",
      ]);
    });
  });

  describe("PodDisruptionBudget", () => {
    const PDBS = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;

    it("keeps minAvailable and maxUnavailable exclusive and checks percentages", async () => {
      const both = await h.client.post(PDBS, {
        metadata: { name: "both" },
        spec: { minAvailable: 1, maxUnavailable: "150%", selector: SELECTOR },
      });
      const causes = causesOf(expectStatus(both, 422, "Invalid"));
      expect(causes.map((c) => [c.reason, c.field])).toEqual([
        ["FieldValueInvalid", "spec"],
        ["FieldValueInvalid", "spec.maxUnavailable"],
      ]);
      expect(causes[0]?.message).toMatch(/: minAvailable and maxUnavailable cannot be both set$/);
      expect(causes[1]?.message).toBe('Invalid value: "150%": must not be greater than 100%');
      const badPercent = await h.client.post(PDBS, {
        metadata: { name: "bad-percent" },
        spec: { minAvailable: "half", selector: SELECTOR },
      });
      expect(causesOf(expectStatus(badPercent, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.minAvailable",
          message:
            "Invalid value: \"half\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        },
      ]);
      const negative = await h.client.post(PDBS, {
        metadata: { name: "negative" },
        spec: { maxUnavailable: -1, unhealthyPodEvictionPolicy: "Never", selector: SELECTOR },
      });
      expect(causesOf(expectStatus(negative, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.maxUnavailable",
          message: "Invalid value: -1: must be greater than or equal to 0",
        },
        {
          reason: "FieldValueNotSupported",
          field: "spec.unhealthyPodEvictionPolicy",
          message: 'Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
        },
      ]);
      const ok = await h.client.post(PDBS, {
        metadata: { name: "ok" },
        spec: { minAvailable: "50%", selector: SELECTOR },
      });
      expect(ok.status, ok.text).toBe(201);
    });
  });

  describe("HorizontalPodAutoscaler", () => {
    const HPAS = `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`;

    it("requires a scale target and replica bounds with 1 <= minReplicas <= maxReplicas", async () => {
      const res = await h.client.post(HPAS, {
        metadata: { name: "bad" },
        spec: { minReplicas: 0, maxReplicas: 0, scaleTargetRef: { apiVersion: "apps/v1" } },
      });
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.minReplicas",
          message: "Invalid value: 0: must be greater than or equal to 1",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.maxReplicas",
          message: "Invalid value: 0: must be greater than 0",
        },
        {
          reason: "FieldValueRequired",
          field: "spec.scaleTargetRef.kind",
          message: "Required value",
        },
        {
          reason: "FieldValueRequired",
          field: "spec.scaleTargetRef.name",
          message: "Required value",
        },
        {
          reason: "FieldValueForbidden",
          field: "spec.metrics",
          message:
            "Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
        },
      ]);
      const inverted = await h.client.post(HPAS, {
        metadata: { name: "inverted" },
        spec: {
          minReplicas: 5,
          maxReplicas: 2,
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web/x" },
        },
      });
      expect(causesOf(expectStatus(inverted, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.maxReplicas",
          message: "Invalid value: 2: must be greater than or equal to `minReplicas`",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.scaleTargetRef.name",
          message: "Invalid value: \"web/x\": may not contain '/'",
        },
      ]);
      const ok = await h.client.post(HPAS, {
        metadata: { name: "ok" },
        spec: {
          minReplicas: 1,
          maxReplicas: 3,
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        },
      });
      expect(ok.status, ok.text).toBe(201);
    });
  });

  describe("Ingress", () => {
    const INGRESSES = `/apis/networking.k8s.io/v1/namespaces/${NS}/ingresses`;
    const BACKEND = { service: { name: "web", port: { number: 80 } } };

    it("requires rules or a default backend", async () => {
      const res = await h.client.post(INGRESSES, { metadata: { name: "empty" }, spec: {} });
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec",
          message: "Invalid value: null: either `defaultBackend` or `rules` must be specified",
        },
      ]);
    });

    it("checks hosts, paths, pathTypes and backends", async () => {
      const res = await h.client.post(INGRESSES, {
        metadata: { name: "bad" },
        spec: {
          rules: [
            {
              host: "10.0.0.1",
              http: {
                paths: [
                  { path: "/ok", backend: BACKEND },
                  { path: "api", pathType: "Prefix", backend: BACKEND },
                  { path: "/a//b", pathType: "Regex", backend: BACKEND },
                  {
                    path: "/",
                    pathType: "Exact",
                    backend: { service: { name: "Web", port: { number: 0, name: "" } } },
                  },
                  {
                    path: "/",
                    pathType: "Exact",
                    backend: { service: { name: "web", port: { number: 70000 } } },
                  },
                ],
              },
            },
            { host: "*.*.example.com", http: { paths: [] } },
          ],
        },
      });
      const causes = causesOf(expectStatus(res, 422, "Invalid"));
      expect(causes.map((c) => [c.reason, c.field])).toEqual([
        ["FieldValueInvalid", "spec.rules[0].host"],
        ["FieldValueRequired", "spec.rules[0].http.paths[0].pathType"],
        ["FieldValueInvalid", "spec.rules[0].http.paths[1].path"],
        ["FieldValueNotSupported", "spec.rules[0].http.paths[2].pathType"],
        ["FieldValueInvalid", "spec.rules[0].http.paths[3].backend.service.name"],
        ["FieldValueRequired", "spec.rules[0].http.paths[3].backend"],
        ["FieldValueInvalid", "spec.rules[0].http.paths[4].backend.service.port.number"],
        ["FieldValueInvalid", "spec.rules[1].host"],
        ["FieldValueRequired", "spec.rules[1].http.paths"],
      ]);
      expect(causes.map((c) => c.message)).toEqual([
        'Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
        "Required value: pathType must be specified",
        'Invalid value: "api": must be an absolute path',
        'Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
        expect.stringContaining('Invalid value: "Web": a DNS-1035 label') as string,
        "Required value: port name or number is required",
        "Invalid value: 70000: must be between 1 and 65535, inclusive",
        "Invalid value: \"*.*.example.com\": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "Required value",
      ]);
    });

    it("accepts a wildcard host and a named port, and validates updates", async () => {
      const created = await h.client.post(INGRESSES, {
        metadata: { name: "ok" },
        spec: {
          rules: [
            {
              host: "*.example.com",
              http: {
                paths: [
                  {
                    path: "/",
                    pathType: "Prefix",
                    backend: { service: { name: "web", port: { name: "http" } } },
                  },
                ],
              },
            },
          ],
        },
      });
      expect(created.status, created.text).toBe(201);
      const update = await h.client.patch(
        `${INGRESSES}/ok`,
        {
          spec: {
            defaultBackend: { service: { name: "web", port: { name: "http", number: 80 } } },
          },
        },
        "application/merge-patch+json",
      );
      expect(causesOf(expectStatus(update, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.defaultBackend",
          message: 'Invalid value: "": cannot set both port name & port number',
        },
      ]);
    });
  });

  describe("NetworkPolicy", () => {
    const POLICIES = `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`;

    it("checks ports and policyTypes", async () => {
      const res = await h.client.post(POLICIES, {
        metadata: { name: "bad" },
        spec: {
          podSelector: {},
          ingress: [
            {
              ports: [
                { protocol: "ICMP", port: 0 },
                { port: "http", endPort: 90 },
              ],
            },
          ],
          egress: [{ ports: [{ port: 8080, endPort: 80 }, { endPort: 80 }] }],
          policyTypes: ["Ingress", "Sideways"],
        },
      });
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueNotSupported",
          field: "spec.ingress[0].ports[0].protocol",
          message: 'Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.ingress[0].ports[0].port",
          message: "Invalid value: 0: must be between 1 and 65535, inclusive",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.ingress[0].ports[1].endPort",
          message: "Invalid value: 90: may not be specified when `port` is non-numeric",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.egress[0].ports[0].endPort",
          message: "Invalid value: 8080: must be greater than or equal to `port`",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.egress[0].ports[1].endPort",
          message: "Invalid value: 80: may not be specified when `port` is not specified",
        },
        {
          reason: "FieldValueNotSupported",
          field: "spec.policyTypes[1]",
          message: 'Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
        },
      ]);
    });

    it("defaults port protocols and policyTypes as kube does", async () => {
      const created = await h.client.post(POLICIES, {
        metadata: { name: "ok" },
        spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] },
      });
      expect(created.status, created.text).toBe(201);
      const spec = (created.json as Json)["spec"] as Json;
      expect(spec["policyTypes"]).toEqual(["Ingress", "Egress"]);
      expect(spec["egress"]).toEqual([{ ports: [{ port: 53, protocol: "TCP" }] }]);
    });
  });

  describe("base64 of []byte fields", () => {
    const SECRETS = `/api/v1/namespaces/${NS}/secrets`;

    it("answers 400 for Secret data that is not base64, on create and patch, and stores nothing", async () => {
      const res = await h.client.post(SECRETS, {
        metadata: { name: "bad" },
        data: { ok: "YQ==", token: "not base64!" },
      });
      expect(expectStatus(res, 400, "BadRequest")["message"]).toBe(
        'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
      );
      expect((await h.client.get(`${SECRETS}/bad`)).status).toBe(404);
      const unpadded = await h.client.post(SECRETS, {
        metadata: { name: "bad" },
        data: { a: "YQ" },
      });
      expect(expectStatus(unpadded, 400, "BadRequest")["message"]).toMatch(
        /illegal base64 data at input byte 0$/,
      );
      const created = await h.client.post(SECRETS, {
        metadata: { name: "ok" },
        data: { a: "YQ==", wrapped: "YW\nJj" },
      });
      expect(created.status, created.text).toBe(201);
      const patch = await h.client.patch(
        `${SECRETS}/ok`,
        { data: { a: "YQ=x" } },
        "application/merge-patch+json",
      );
      expect(expectStatus(patch, 400, "BadRequest")["message"]).toMatch(
        /illegal base64 data at input byte 2$/,
      );
    });

    it("checks a ConfigMap's binaryData the same way", async () => {
      const res = await h.client.post(`/api/v1/namespaces/${NS}/configmaps`, {
        metadata: { name: "bin" },
        binaryData: { blob: "YQ==YQ==" },
      });
      expect(expectStatus(res, 400, "BadRequest")["message"]).toBe(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 4',
      );
    });
  });
});
