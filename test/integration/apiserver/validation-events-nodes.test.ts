import { beforeAll, describe, expect, it } from "vitest";
import {
  eventually,
  causesOf,
  expectStatus,
  type Json,
  useServer,
} from "../../support/server-test-helpers.js";

/**
 * Validation of Events (both APIs), Nodes, workload label selectors, Ingress TLS and class,
 * NetworkPolicy peers and HorizontalPodAutoscaler metrics and behavior on the embedded
 * server over real HTTP: kube-apiserver's 422 Invalid Status with the field paths, cause
 * types and messages of `pkg/apis/core/validation` (events.go, ValidateNode),
 * `staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation`, `pkg/apis/apps/validation`,
 * `pkg/apis/networking/validation` and `pkg/apis/autoscaling/validation`.
 */

const NS = "validation-events-nodes";
const CORE = `/api/v1/namespaces/${NS}`;
const APPS = `/apis/apps/v1/namespaces/${NS}`;
const NETWORKING = `/apis/networking.k8s.io/v1/namespaces/${NS}`;
const HPAS = `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`;
const NODES = "/api/v1/nodes";
const MERGE = "application/merge-patch+json";
const CIDR_MESSAGE = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

/** `reason field` of each cause, for rules whose messages are long regex texts. */
function fieldsOf(status: Json): string[] {
  return causesOf(status).map((c) => `${c.reason} ${c.field}`);
}

const TEMPLATE = {
  metadata: { labels: { app: "web" } },
  spec: { containers: [{ name: "web", image: "nginx:1.27" }] },
};

describe("validation of Events, Nodes and selectors: kube-apiserver's 422 Invalid", () => {
  const h = useServer();

  beforeAll(async () => {
    expect((await h.client.post("/api/v1/namespaces", { metadata: { name: NS } })).status).toBe(
      201,
    );
  });

  describe("core/v1 Event", () => {
    const event = (name: string, extra: Json): Json => ({
      metadata: { name },
      involvedObject: { kind: "Pod", name: "web-0", namespace: NS },
      reason: "Started",
      message: "Started container",
      type: "Normal",
      ...extra,
    });

    it("requires an old-style Event's involvedObject to be in its namespace", async () => {
      const res = await h.client.post(
        `${CORE}/events`,
        event("elsewhere", { involvedObject: { kind: "Pod", name: "p", namespace: "other" } }),
      );
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "involvedObject.namespace",
          message: 'Invalid value: "other": does not match event.namespace',
        },
      ]);
      // A cluster-scoped object's events belong in `default`.
      const node = await h.client.post(
        `${CORE}/events`,
        event("node", { involvedObject: { kind: "Node", name: "n1" } }),
      );
      expect(causesOf(expectStatus(node, 422, "Invalid")).map((c) => c.field)).toEqual([
        "involvedObject.namespace",
      ]);
      const inDefault = await h.client.post(
        "/api/v1/namespaces/default/events",
        event("node", { involvedObject: { kind: "Node", name: "n1" } }),
      );
      expect(inDefault.status, inDefault.text).toBe(201);
      const ok = await h.client.post(`${CORE}/events`, event("ok", {}));
      expect(ok.status, ok.text).toBe(201);
    });

    it("applies the new-style rules to an Event with eventTime, on create and update", async () => {
      const res = await h.client.post(
        `${CORE}/events`,
        event("new-style", {
          eventTime: "2026-01-01T00:00:00.000000Z",
          reason: "",
          message: "m".repeat(1025),
          reportingInstance: "i".repeat(129),
        }),
      );
      expect(fieldsOf(expectStatus(res, 422, "Invalid"))).toEqual([
        "FieldValueRequired reportingController",
        // IsQualifiedName("") reports the empty name part and its format.
        "FieldValueInvalid reportingController",
        "FieldValueInvalid reportingController",
        "FieldValueInvalid reportingInstance",
        "FieldValueRequired action",
        "FieldValueRequired reason",
        "FieldValueInvalid message",
      ]);
      expect(causesOf(res.json as Json).find((c) => c.field === "message")?.message).toBe(
        'Invalid value: "": can have at most 1024 characters',
      );
      const valid = event("new-style", {
        eventTime: "2026-01-01T00:00:00.000000Z",
        reportingComponent: "kubekit.io/test",
        reportingInstance: "test-1",
        action: "Start",
      });
      const created = await h.client.post(`${CORE}/events`, valid);
      expect(created.status, created.text).toBe(201);
      const update = await h.client.patch(`${CORE}/events/new-style`, { action: "" }, MERGE);
      expect(causesOf(expectStatus(update, 422, "Invalid"))).toEqual([
        { reason: "FieldValueRequired", field: "action", message: "Required value" },
      ]);
    });
  });

  describe("events.k8s.io/v1 Event", () => {
    const EVENTS = `/apis/events.k8s.io/v1/namespaces/${NS}/events`;

    it("refuses a cluster-scoped regarding object outside default and kube-system, and a long note", async () => {
      const res = await h.client.post(EVENTS, {
        metadata: { name: "node-event" },
        eventTime: "2026-01-01T00:00:00.000000Z",
        reportingController: "kubekit.io/test",
        reportingInstance: "test-1",
        action: "Check",
        reason: "Checked",
        regarding: { kind: "Node", name: "n1" },
        note: "n".repeat(1025),
        type: "Normal",
      });
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "involvedObject.namespace",
          message: 'Invalid value: "": does not match event.namespace',
        },
        {
          reason: "FieldValueInvalid",
          field: "message",
          message: 'Invalid value: "": can have at most 1024 characters',
        },
      ]);
    });
  });

  describe("Node", () => {
    const node = (name: string, spec: Json): Json => ({ metadata: { name }, spec });

    it("checks taints: key, value, effect, unique by key and effect (at metadata.taints)", async () => {
      const res = await h.client.post(
        NODES,
        node("tainted", {
          taints: [
            { key: "bad key", effect: "NoSchedule" },
            { key: "gpu", value: "a b", effect: "Sometimes" },
            { key: "gpu", effect: "" },
            { key: "dedicated", value: "x", effect: "NoExecute" },
            { key: "dedicated", value: "y", effect: "NoExecute" },
          ],
        }),
      );
      const causes = causesOf(expectStatus(res, 422, "Invalid"));
      expect(causes.map((c) => `${c.reason} ${c.field}`)).toEqual([
        "FieldValueInvalid metadata.taints[0].key",
        "FieldValueInvalid metadata.taints[1].value",
        "FieldValueNotSupported metadata.taints[1].effect",
        "FieldValueRequired metadata.taints[2].effect",
        "FieldValueDuplicate metadata.taints[4]",
      ]);
      expect(causes[2]?.message).toBe(
        'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      );
      expect(causes[4]?.message).toBe(
        'Duplicate value: {"effect":"NoExecute","key":"dedicated","value":"y"}: taints must be unique by key and effect pair',
      );
    });

    it("checks pod CIDRs: valid, one per IP family, no duplicates", async () => {
      const invalid = await h.client.post(NODES, node("cidr-bad", { podCIDR: "10.244.1.0/33" }));
      expect(causesOf(expectStatus(invalid, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.podCIDRs[0]",
          message: `Invalid value: "10.244.1.0/33": ${CIDR_MESSAGE}`,
        },
      ]);
      const sameFamily = await h.client.post(
        NODES,
        node("cidr-v4v4", { podCIDRs: ["10.244.1.0/24", "10.244.1.0/24"] }),
      );
      expect(causesOf(expectStatus(sameFamily, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.podCIDRs",
          message:
            'Invalid value: ["10.244.1.0/24","10.244.1.0/24"]: may specify no more than one CIDR for each IP family',
        },
        {
          reason: "FieldValueDuplicate",
          field: "spec.podCIDRs[1]",
          message: 'Duplicate value: "10.244.1.0/24"',
        },
      ]);
      const broken = await h.client.post(
        NODES,
        node("cidr-broken", { podCIDRs: ["10.244.1.0/24", "nope"] }),
      );
      expect(fieldsOf(expectStatus(broken, 422, "Invalid"))).toEqual([
        "FieldValueInvalid spec.podCIDRs[1]",
        "InternalError spec.podCIDRs",
        "FieldValueInvalid spec.podCIDRs",
      ]);
      const dual = await h.client.post(
        NODES,
        node("dual", { podCIDRs: ["10.244.9.0/24", "fd00:10:244:9::/64"] }),
      );
      expect(dual.status, dual.text).toBe(201);
      expect((dual.json as Json)["spec"]).toMatchObject({ podCIDR: "10.244.9.0/24" });
    });

    it("keeps podCIDR and podCIDRs in step and makes them and providerID immutable once set", async () => {
      const created = await h.client.post(NODES, node("worker", { podCIDR: "10.244.5.0/24" }));
      expect(created.status, created.text).toBe(201);
      expect((created.json as Json)["spec"]).toEqual({
        podCIDR: "10.244.5.0/24",
        podCIDRs: ["10.244.5.0/24"],
      });
      // From "" to a value is allowed.
      const provider = await h.client.patch(
        `${NODES}/worker`,
        { spec: { providerID: "kind://worker" } },
        MERGE,
      );
      expect(provider.status, provider.text).toBe(200);
      const change = await h.client.patch(
        `${NODES}/worker`,
        {
          spec: {
            podCIDR: "10.244.6.0/24",
            podCIDRs: ["10.244.6.0/24"],
            providerID: "kind://other",
          },
        },
        MERGE,
      );
      expect(causesOf(expectStatus(change, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueForbidden",
          field: "spec.podCIDRs",
          message: 'Forbidden: node updates may not change podCIDR except from "" to valid',
        },
        {
          reason: "FieldValueForbidden",
          field: "spec.providerID",
          message: 'Forbidden: node updates may not change providerID except from "" to valid',
        },
      ]);
      const cordon = await h.client.patch(
        `${NODES}/worker`,
        { spec: { unschedulable: true } },
        MERGE,
      );
      expect(cordon.status, cordon.text).toBe(200);
    });
  });

  describe("label selectors of workloads", () => {
    const BAD_SELECTOR = {
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "tier", operator: "Like", values: ["a"] },
        { key: "zone", operator: "In" },
        { key: "canary", operator: "Exists", values: ["yes"] },
        { key: "bad key", operator: "NotIn", values: ["ok", "bad value!"] },
      ],
    };
    const SELECTOR_CAUSES = [
      {
        reason: "FieldValueInvalid",
        field: "spec.selector.matchExpressions[0].operator",
        message: 'Invalid value: "Like": not a valid selector operator',
      },
      {
        reason: "FieldValueRequired",
        field: "spec.selector.matchExpressions[1].values",
        message: "Required value: must be specified when `operator` is 'In' or 'NotIn'",
      },
      {
        reason: "FieldValueForbidden",
        field: "spec.selector.matchExpressions[2].values",
        message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      },
    ];

    it("reports a Deployment's invalid selector and that it cannot be converted", async () => {
      const res = await h.client.post(`${APPS}/deployments`, {
        metadata: { name: "web" },
        spec: { selector: BAD_SELECTOR, template: TEMPLATE },
      });
      const causes = causesOf(expectStatus(res, 422, "Invalid"));
      expect(causes.slice(0, 3)).toEqual(SELECTOR_CAUSES);
      expect(causes.slice(3).map((c) => `${c.reason} ${c.field}`)).toEqual([
        "FieldValueInvalid spec.selector.matchExpressions[3].key",
        "FieldValueInvalid spec.selector.matchExpressions[3].values[1]",
        "FieldValueInvalid spec.selector",
      ]);
      expect(causes[5]?.message).toMatch(/: invalid label selector$/);
    });

    it("reports a StatefulSet's unconvertible selector without detail, a DaemonSet's not at all", async () => {
      const selector = { matchExpressions: [{ key: "app", operator: "In" }] };
      const sts = await h.client.post(`${APPS}/statefulsets`, {
        metadata: { name: "db" },
        spec: { selector, template: TEMPLATE },
      });
      expect(causesOf(expectStatus(sts, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueRequired",
          field: "spec.selector.matchExpressions[0].values",
          message: "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.selector",
          message: 'Invalid value: {"matchExpressions":[{"key":"app","operator":"In"}]}',
        },
      ]);
      const ds = await h.client.post(`${APPS}/daemonsets`, {
        metadata: { name: "agent" },
        spec: { selector, template: TEMPLATE },
      });
      expect(fieldsOf(expectStatus(ds, 422, "Invalid"))).toEqual([
        "FieldValueRequired spec.selector.matchExpressions[0].values",
      ]);
    });

    it("reports invalid matchLabels at spec.selector.matchLabels, and accepts valid expressions", async () => {
      const res = await h.client.post(`${APPS}/replicasets`, {
        metadata: { name: "rs" },
        spec: { selector: { matchLabels: { "bad key": "web" } }, template: TEMPLATE },
      });
      expect(fieldsOf(expectStatus(res, 422, "Invalid"))).toEqual([
        "FieldValueInvalid spec.selector.matchLabels",
        "FieldValueInvalid spec.selector",
      ]);
      const ok = await h.client.post(`${APPS}/deployments`, {
        metadata: { name: "expr" },
        spec: {
          selector: {
            matchExpressions: [
              { key: "app", operator: "In", values: ["web"] },
              { key: "canary", operator: "DoesNotExist" },
            ],
          },
          template: TEMPLATE,
        },
      });
      expect(ok.status, ok.text).toBe(201);
    });

    it("accepts a Job's empty manual selector (Jobs have no empty-selector rule)", async () => {
      const res = await h.client.post(`/apis/batch/v1/namespaces/${NS}/jobs`, {
        metadata: { name: "manual" },
        spec: {
          manualSelector: true,
          selector: {},
          template: { ...TEMPLATE, spec: { ...TEMPLATE.spec, restartPolicy: "Never" } },
        },
      });
      expect(res.status, res.text).toBe(201);
    });
  });

  describe("Ingress TLS and class", () => {
    const INGRESSES = `${NETWORKING}/ingresses`;
    const BACKEND = { service: { name: "web", port: { number: 80 } } };

    it("checks TLS hosts and secret names, and the class name", async () => {
      const res = await h.client.post(INGRESSES, {
        metadata: { name: "tls", annotations: { "kubernetes.io/ingress.class": "nginx" } },
        spec: {
          ingressClassName: "traefik",
          defaultBackend: BACKEND,
          tls: [
            { hosts: ["*.example.com", "Bad_Host"], secretName: "web-tls" },
            { hosts: ["**.example.com"], secretName: "Bad_Secret" },
          ],
        },
      });
      const causes = causesOf(expectStatus(res, 422, "Invalid"));
      expect(causes.map((c) => `${c.reason} ${c.field}`)).toEqual([
        "FieldValueInvalid spec.tls[0].hosts[1]",
        "FieldValueInvalid spec.tls[1].hosts[0]",
        "FieldValueInvalid spec.tls[1].secretName",
        "FieldValueInvalid annotations.kubernetes.io/ingress.class",
      ]);
      expect(causes[3]?.message).toBe(
        'Invalid value: "nginx": must match `ingressClassName` when both are specified',
      );
      const badClass = await h.client.post(INGRESSES, {
        metadata: { name: "class" },
        spec: { ingressClassName: "Not_A_Name", defaultBackend: BACKEND },
      });
      expect(fieldsOf(expectStatus(badClass, 422, "Invalid"))).toEqual([
        "FieldValueInvalid spec.ingressClassName",
      ]);
      const ok = await h.client.post(INGRESSES, {
        metadata: { name: "ok-tls" },
        spec: {
          defaultBackend: BACKEND,
          tls: [{ hosts: ["*.example.com", "www.example.com"], secretName: "web-tls" }, {}],
        },
      });
      expect(ok.status, ok.text).toBe(201);
    });
  });

  describe("NetworkPolicy selectors and peers", () => {
    const POLICIES = `${NETWORKING}/networkpolicies`;

    it("checks podSelector, peers and ipBlocks", async () => {
      const res = await h.client.post(POLICIES, {
        metadata: { name: "peers" },
        spec: {
          podSelector: { matchExpressions: [{ key: "app", operator: "Exists", values: ["x"] }] },
          ingress: [
            {
              from: [
                {},
                { ipBlock: { cidr: "10.0.0.0/16" }, podSelector: {} },
                { ipBlock: { cidr: "" } },
                { ipBlock: { cidr: "10.0.0.0/33" } },
              ],
            },
          ],
          egress: [
            {
              to: [
                {
                  ipBlock: {
                    cidr: "10.0.0.0/16",
                    except: ["10.1.0.0/24", "10.0.0.0/16", "nope", "10.0.5.0/24"],
                  },
                },
                { namespaceSelector: { matchLabels: { team: "Bad Value" } } },
              ],
            },
          ],
        },
      });
      const causes = causesOf(expectStatus(res, 422, "Invalid"));
      expect(causes.map((c) => `${c.reason} ${c.field}`)).toEqual([
        "FieldValueForbidden spec.podSelector.matchExpressions[0].values",
        "FieldValueRequired spec.ingress[0].from[0]",
        "FieldValueForbidden spec.ingress[0].from[1]",
        "FieldValueRequired spec.ingress[0].from[2].ipBlock.cidr",
        "FieldValueInvalid spec.ingress[0].from[3].ipBlock.cidr",
        "FieldValueInvalid spec.egress[0].to[0].ipBlock.except[0]",
        "FieldValueInvalid spec.egress[0].to[0].ipBlock.except[1]",
        "FieldValueInvalid spec.egress[0].to[0].ipBlock.except[2]",
        "FieldValueInvalid spec.egress[0].to[1].namespaceSelector.matchLabels",
      ]);
      expect(causes.map((c) => c.message).slice(1, 3)).toEqual([
        "Required value: must specify a peer",
        "Forbidden: may not specify both ipBlock and another peer",
      ]);
      expect(causes[5]?.message).toBe(
        'Invalid value: "10.1.0.0/24": must be a strict subset of `cidr`',
      );
      expect(causes[7]?.message).toBe(`Invalid value: "nope": ${CIDR_MESSAGE}`);
    });
  });

  describe("HorizontalPodAutoscaler metrics and behavior", () => {
    const hpa = (name: string, extra: Json): Json => ({
      metadata: { name },
      spec: {
        maxReplicas: 5,
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        ...extra,
      },
    });

    it("checks each metric's source and target", async () => {
      const res = await h.client.post(
        HPAS,
        hpa("metrics", {
          metrics: [
            {
              type: "Resource",
              resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 0 } },
            },
            {
              type: "Pods",
              pods: { metric: { name: "qps" }, target: { type: "Value", value: "-1" } },
            },
            { type: "Resource", resource: { name: "cpu", target: { type: "Ratio" } } },
            {
              type: "Object",
              pods: {
                metric: { name: "qps" },
                target: { type: "AverageValue", averageValue: "10" },
              },
            },
            { type: "Custom" },
          ],
        }),
      );
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.metrics[0].resource.target.averageUtilization",
          message: "Invalid value: 0: must be greater than 0",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.metrics[1].pods.target.value",
          message: 'Invalid value: "-1": must be positive',
        },
        {
          reason: "FieldValueRequired",
          field: "spec.metrics[1].pods.target.averageValue",
          message: "Required value: must specify a positive target averageValue",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.metrics[2].resource.target.type",
          message: 'Invalid value: "Ratio": must be either Utilization, Value, or AverageValue',
        },
        {
          reason: "FieldValueRequired",
          field: "spec.metrics[2].resource.target.averageUtilization",
          message: "Required value: must set either a target raw value or a target utilization",
        },
        {
          reason: "FieldValueRequired",
          field: "spec.metrics[3].object",
          message: "Required value: must populate information for the given metric source",
        },
        {
          reason: "FieldValueNotSupported",
          field: "spec.metrics[4].type",
          message:
            'Unsupported value: "Custom": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
        },
        {
          reason: "FieldValueNotSupported",
          field: "spec.metrics[4].type",
          message:
            'Unsupported value: "Custom": supported values: "ContainerResource", "External", "Object", "Pods", "Resource"',
        },
      ]);
      const ok = await h.client.post(
        HPAS,
        hpa("metrics-ok", {
          metrics: [
            {
              type: "Resource",
              resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
            },
            {
              type: "Pods",
              pods: {
                metric: { name: "qps" },
                target: { type: "AverageValue", averageValue: "100m" },
              },
            },
          ],
        }),
      );
      expect(ok.status, ok.text).toBe(201);
    });

    it("checks the scaling rules of behavior", async () => {
      const res = await h.client.post(
        HPAS,
        hpa("behavior", {
          behavior: {
            scaleUp: {
              stabilizationWindowSeconds: 3601,
              selectPolicy: "Fastest",
              policies: [{ type: "Nodes", value: 0, periodSeconds: 1801 }],
            },
            scaleDown: { stabilizationWindowSeconds: -1, policies: [] },
          },
        }),
      );
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.behavior.scaleUp.stabilizationWindowSeconds",
          message: "Invalid value: 3601: must be less than or equal to 3600",
        },
        {
          reason: "FieldValueNotSupported",
          field: "spec.behavior.scaleUp.selectPolicy",
          message: 'Unsupported value: "Fastest": supported values: "Disabled", "Max", "Min"',
        },
        {
          reason: "FieldValueNotSupported",
          field: "spec.behavior.scaleUp.policies[0].type",
          message: 'Unsupported value: "Nodes": supported values: "Percent", "Pods"',
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.behavior.scaleUp.policies[0].value",
          message: "Invalid value: 0: must be greater than zero",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.behavior.scaleUp.policies[0].periodSeconds",
          message: "Invalid value: 1801: must be less than or equal to 1800",
        },
        {
          reason: "FieldValueInvalid",
          field: "spec.behavior.scaleDown.stabilizationWindowSeconds",
          message: "Invalid value: -1: must be greater than or equal to zero",
        },
        {
          reason: "FieldValueRequired",
          field: "spec.behavior.scaleDown.policies",
          message: "Required value: must specify at least one Policy",
        },
      ]);
    });

    it("checks an autoscaling/v1 CPU target at the converted metric's path", async () => {
      const res = await h.client.post(
        `/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers`,
        hpa("v1", { targetCPUUtilizationPercentage: 0 }),
      );
      expect(causesOf(expectStatus(res, 422, "Invalid"))).toEqual([
        {
          reason: "FieldValueInvalid",
          field: "spec.metrics[0].resource.target.averageUtilization",
          message: "Invalid value: 0: must be greater than 0",
        },
      ]);
    });
  });
});

describe("the simulated cluster's own writes pass these rules", () => {
  const h = useServer({ cluster: { nodes: 2, controllers: [] } });

  it("registers its Nodes and records the scheduler's and kubelet's Events", async () => {
    const nodes = await h.client.get(NODES);
    const items = (nodes.json as { items: Json[] }).items;
    expect(items.map((n) => (n["spec"] as Json)["podCIDRs"])).toEqual([
      ["10.244.1.0/24"],
      ["10.244.2.0/24"],
    ]);
    const pod = await h.client.post("/api/v1/namespaces/default/pods", {
      metadata: { name: "web" },
      spec: { containers: [{ name: "web", image: "nginx:1.27" }] },
    });
    expect(pod.status, pod.text).toBe(201);
    const reasons = await eventually("the scheduler's and kubelet's Events", async () => {
      const events = await h.client.get("/api/v1/namespaces/default/events");
      const seen = (events.json as { items: Json[] }).items.map((e) => String(e["reason"]));
      return seen.includes("Scheduled") && seen.includes("Started") ? seen : undefined;
    });
    expect(reasons).toEqual(expect.arrayContaining(["Scheduled", "Started"]));
  });
});
