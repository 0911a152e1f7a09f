import { describe, expect, it } from "vitest";
import { StatusError, type JsonObject } from "kubekit";
import type { AdmissionAttributes } from "../../../../packages/apiserver/src/admission/admission-attributes.js";
import { ReinvocationState } from "../../../../packages/apiserver/src/admission/webhook/reinvocation.js";
import { compileWebhooks } from "../../../../packages/apiserver/src/admission/webhook/compiled-webhook.js";
import {
  shouldCallWebhook,
  type WebhookInvocation,
} from "../../../../packages/apiserver/src/admission/webhook/webhook-matching.js";
import {
  admissionRequestOf,
  verifyAdmissionResponse,
} from "../../../../packages/apiserver/src/admission/webhook/admission-review.js";
import { webhookDenial } from "../../../../packages/apiserver/src/admission/webhook/webhook-errors.js";
import { callAdmissionWebhook } from "../../../../packages/apiserver/src/admission/webhook/call-admission-webhook.js";
import {
  ResourceRegistry,
  type ResourceEntry,
} from "../../../../packages/apiserver/src/registry/registry.js";
import {
  WEBHOOK_CONFIGURATION_STORAGE_IDS,
  WebhookSource,
} from "../../../../packages/apiserver/src/admission/webhook/webhook-source.js";
import { Storage } from "../../../../packages/apiserver/src/storage/storage.js";
import type { ServerContext } from "../../../../packages/apiserver/src/server/server-context.js";

/**
 * Which webhooks are called and how (kube's `generic.Webhook.ShouldCallHook` with the rules,
 * namespace and object predicates, matchConditions), the AdmissionReview's request fields and
 * the checks of its answer, denials in kube's words, and reinvocation bookkeeping.
 */

const registry = new ResourceRegistry();
const storage = new Storage(100);
const ctx = { registry, storage } as unknown as ServerContext;
storage.commit("/namespaces", "team-a", {
  metadata: { name: "team-a", labels: { env: "prod" } },
});

function entry(group: string, version: string, plural: string): ResourceEntry {
  const found = registry.lookup(group, version, plural);
  if (!found) throw new Error(`no ${group}/${version}/${plural}`);
  return found;
}

function attrs(overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: "CREATE",
    entry: entry("", "v1", "configmaps"),
    subresource: "",
    namespace: "team-a",
    name: "cm",
    object: { metadata: { name: "cm", labels: { app: "web" } } },
    oldObject: undefined,
    dryRun: false,
    options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
    userInfo: { name: "alice", groups: ["devs"] },
    ...overrides,
  };
}

function hookWith(fields: JsonObject): ReturnType<typeof compileWebhooks>[number] {
  const [hook] = compileWebhooks("validating", {
    metadata: { name: "config" },
    webhooks: [
      {
        name: "hook.example.com",
        clientConfig: { url: "https://127.0.0.1:1/" },
        rules: [
          {
            operations: ["CREATE"],
            apiGroups: [""],
            apiVersions: ["v1"],
            resources: ["configmaps"],
          },
        ],
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        ...fields,
      },
    ],
  });
  if (!hook) throw new Error("no webhook");
  return hook;
}

const requestOf = (a: AdmissionAttributes) => (i: WebhookInvocation) =>
  admissionRequestOf("", a, i);

function calls(fields: JsonObject, a: AdmissionAttributes = attrs()): boolean {
  return shouldCallWebhook(ctx, hookWith(fields), a, requestOf(a)) !== undefined;
}

describe("rules", () => {
  it("match operations, groups, versions and resources, with * and subresources", () => {
    expect(calls({})).toBe(true);
    expect(calls({}, attrs({ operation: "UPDATE" }))).toBe(false);
    const all = [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }];
    expect(calls({ rules: all }, attrs({ operation: "DELETE" }))).toBe(true);
    const deployments = entry("apps", "v1", "deployments");
    const scale = attrs({ operation: "UPDATE", entry: deployments, subresource: "scale" });
    expect(calls({ rules: all }, scale)).toBe(false);
    const subresources = (resources: string[]): JsonObject[] => [
      { operations: ["UPDATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources },
    ];
    expect(calls({ rules: subresources(["deployments/scale"]) }, scale)).toBe(true);
    expect(calls({ rules: subresources(["deployments/*"]) }, scale)).toBe(true);
    expect(calls({ rules: subresources(["*/*"]) }, scale)).toBe(true);
    expect(calls({ rules: subresources(["deployments"]) }, scale)).toBe(false);
  });

  it("scope: Namespaced excludes cluster-scoped resources and Namespaces themselves", () => {
    const rule = (scope: string): JsonObject[] => [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["*"], scope },
    ];
    const namespace = attrs({
      entry: entry("", "v1", "namespaces"),
      namespace: "",
      name: "new-ns",
    });
    expect(calls({ rules: rule("Namespaced") })).toBe(true);
    expect(calls({ rules: rule("Cluster") })).toBe(false);
    expect(calls({ rules: rule("Namespaced") }, namespace)).toBe(false);
    expect(calls({ rules: rule("Cluster") }, namespace)).toBe(true);
  });

  it("matchPolicy Equivalent matches another version of the same resource; Exact does not", () => {
    const v2 = [
      {
        operations: ["CREATE"],
        apiGroups: ["autoscaling"],
        apiVersions: ["v2"],
        resources: ["horizontalpodautoscalers"],
      },
    ];
    const a = attrs({ entry: entry("autoscaling", "v1", "horizontalpodautoscalers") });
    expect(calls({ rules: v2, matchPolicy: "Exact" }, a)).toBe(false);
    const invocation = shouldCallWebhook(ctx, hookWith({ rules: v2 }), a, requestOf(a));
    expect(invocation?.entry.info.version).toBe("v2");
    expect(invocation?.kind).toEqual({
      group: "autoscaling",
      version: "v2",
      kind: "HorizontalPodAutoscaler",
    });
  });

  it("never calls webhooks about admission configurations; sorts configurations by name", () => {
    const all = [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }];
    const local = new Storage(10);
    const source = new WebhookSource({ registry, storage: local } as unknown as ServerContext);
    for (const name of ["b-config", "a-config"]) {
      local.commit(WEBHOOK_CONFIGURATION_STORAGE_IDS.validating, name, {
        metadata: { name },
        webhooks: [{ name: `${name}.example.com`, rules: all, sideEffects: "None" }],
      });
    }
    expect(source.candidates("validating", attrs()).map((h) => h.name)).toEqual([
      "a-config.example.com",
      "b-config.example.com",
    ]);
    const config = attrs({
      entry: entry("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"),
      namespace: "",
    });
    expect(source.candidates("validating", config)).toEqual([]);
    expect(source.candidates("mutating", attrs())).toEqual([]);
  });
});

describe("selectors", () => {
  it("namespaceSelector reads the namespace's labels, a Namespace's own on its create", () => {
    expect(calls({ namespaceSelector: { matchLabels: { env: "prod" } } })).toBe(true);
    expect(calls({ namespaceSelector: { matchLabels: { env: "dev" } } })).toBe(false);
    const nsRule = [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["namespaces"] },
    ];
    const newNs = attrs({
      entry: entry("", "v1", "namespaces"),
      namespace: "",
      name: "fresh",
      object: { metadata: { name: "fresh", labels: { env: "dev" } } },
    });
    expect(
      calls({ rules: nsRule, namespaceSelector: { matchLabels: { env: "dev" } } }, newNs),
    ).toBe(true);
  });

  it("a selected request in a missing namespace is kube's 404", () => {
    const a = attrs({ namespace: "gone" });
    expect(() => calls({ namespaceSelector: { matchLabels: { env: "prod" } } }, a)).toThrow(
      'namespaces "gone" not found',
    );
  });

  it("objectSelector matches the new or the old object", () => {
    expect(calls({ objectSelector: { matchLabels: { app: "web" } } })).toBe(true);
    expect(calls({ objectSelector: { matchLabels: { app: "db" } } })).toBe(false);
    const update = attrs({
      operation: "UPDATE",
      object: { metadata: { labels: {} } },
      oldObject: { metadata: { labels: { app: "db" } } },
    });
    const rules = [
      { operations: ["UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ];
    expect(calls({ rules, objectSelector: { matchLabels: { app: "db" } } }, update)).toBe(true);
  });
});

describe("matchConditions", () => {
  it("call only when all are true; any false skips", () => {
    const cond = (expression: string): JsonObject => ({
      matchConditions: [{ name: "c", expression }],
    });
    expect(calls(cond("object.metadata.name == 'cm'"))).toBe(true);
    expect(calls(cond("request.userInfo.username == 'bob'"))).toBe(false);
    expect(
      calls({
        matchConditions: [
          { name: "a", expression: "object.metadata.nope == 'x'" },
          { name: "b", expression: "false" },
        ],
      }),
    ).toBe(false);
  });

  it("an error fails the request (403) under Fail and skips the webhook under Ignore", () => {
    const broken = { matchConditions: [{ name: "c", expression: "object.metadata.nope == 'x'" }] };
    expect(() => calls(broken)).toThrow(
      `configmaps "cm" is forbidden: expression 'object.metadata.nope == 'x'' resulted in error: no such key: nope`,
    );
    expect(calls({ ...broken, failurePolicy: "Ignore" })).toBe(false);
  });
});

describe("AdmissionReview", () => {
  const invocation = (): WebhookInvocation => {
    const a = attrs();
    const result = shouldCallWebhook(ctx, hookWith({}), a, requestOf(a));
    if (!result) throw new Error("not called");
    return result;
  };

  it("requests carry kube's fields, without empty ones", () => {
    expect(admissionRequestOf("u-1", attrs(), invocation())).toEqual({
      uid: "u-1",
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      requestKind: { group: "", version: "v1", kind: "ConfigMap" },
      requestResource: { group: "", version: "v1", resource: "configmaps" },
      name: "cm",
      namespace: "team-a",
      operation: "CREATE",
      userInfo: { username: "alice", groups: ["devs"] },
    });
  });

  it("answers are checked as kube's VerifyAdmissionResponse does", () => {
    const answer = (response: JsonObject, head: JsonObject = {}): JsonObject => ({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      ...head,
      response,
    });
    expect(() =>
      verifyAdmissionResponse("v1", "u", false, answer({ uid: "x", allowed: true })),
    ).toThrow('expected response.uid="u", got "x"');
    expect(() =>
      verifyAdmissionResponse(
        "v1",
        "u",
        false,
        answer({ uid: "u" }, { apiVersion: "admission.k8s.io/v1beta1" }),
      ),
    ).toThrow(
      "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview",
    );
    expect(() =>
      verifyAdmissionResponse("v1", "u", true, answer({ uid: "u", allowed: true, patch: "W10=" })),
    ).toThrow("webhook returned response.patch but not response.patchType");
    expect(() =>
      verifyAdmissionResponse("v1", "u", true, { apiVersion: "admission.k8s.io/v1" }),
    ).toThrow("webhook response was absent");
    // v1beta1 answers are not checked for uid or kind.
    const beta = verifyAdmissionResponse("v1beta1", "u", true, {
      response: { allowed: true, patchType: "JSONPatch", patch: "W10=", warnings: ["w"] },
    });
    expect(beta).toMatchObject({
      allowed: true,
      patch: "[]",
      patchType: "JSONPatch",
      warnings: ["w"],
    });
  });

  it("denials are worded as kube's ToStatusErr", () => {
    expect(
      webhookDenial("w.example.com", { code: 403, reason: "Forbidden", message: "no" }).status,
    ).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'admission webhook "w.example.com" denied the request: no',
      reason: "Forbidden",
      code: 403,
    });
    const bare = webhookDenial("w.example.com", { code: 200, reason: "Custom" }).status;
    expect(bare).toMatchObject({
      message: 'admission webhook "w.example.com" denied the request: Custom',
      code: 400,
    });
    expect(webhookDenial("w.example.com", undefined).message).toBe(
      'admission webhook "w.example.com" denied the request without explanation',
    );
  });

  it("a dryRun request to a webhook with side effects is kube's 400, before any call", async () => {
    const dry = attrs({ dryRun: true });
    const base = invocation();
    const withSideEffects = { ...base, webhook: { ...base.webhook, sideEffects: "Some" } };
    const err = await callAdmissionWebhook(ctx, withSideEffects, dry).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: 'admission webhook "hook.example.com" does not support dry run',
    });
  });
});

describe("reinvocation", () => {
  it("an IfNeeded webhook called before a change is due again, not one called after it", () => {
    const state = new ReinvocationState();
    state.record("a", false, true);
    state.record("b", true, false);
    state.record("c", false, true);
    expect(state.shouldReinvoke).toBe(true);
    expect(state.shouldReinvokeWebhook("a")).toBe(true);
    expect(state.shouldReinvokeWebhook("b")).toBe(false);
    expect(state.shouldReinvokeWebhook("c")).toBe(false);
  });

  it("a webhook's own change does not reinvoke it; no change reinvokes nothing", () => {
    const own = new ReinvocationState();
    own.record("a", true, true);
    expect(own.shouldReinvoke).toBe(true);
    expect(own.shouldReinvokeWebhook("a")).toBe(false);
    const none = new ReinvocationState();
    none.record("a", false, true);
    expect(none.shouldReinvoke).toBe(false);
  });
});
