import { describe, expect, it } from "vitest";
import type { JsonObject } from "kubekit";
import { mutatingWebhookConfigurationStrategy } from "../../../../packages/apiserver/src/kinds/mutating-webhook-configuration.js";
import { validatingWebhookConfigurationStrategy } from "../../../../packages/apiserver/src/kinds/validating-webhook-configuration.js";
import { hooksOf, messages } from "./kind-test-helpers.js";

/**
 * admissionregistration.k8s.io/v1 webhook configurations: the v1 defaults and
 * `pkg/apis/admissionregistration/validation/validation.go`.
 */

const validating = hooksOf(validatingWebhookConfigurationStrategy);
const mutating = hooksOf(mutatingWebhookConfigurationStrategy);

function hook(fields: JsonObject = {}): JsonObject {
  return {
    name: "check.example.com",
    clientConfig: { url: "https://hooks.example.com/check" },
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...fields,
  };
}

function config(...webhooks: JsonObject[]): JsonObject {
  return { metadata: { name: "hooks" }, webhooks };
}

describe("webhook configurations", () => {
  it("default failurePolicy, matchPolicy, selectors, timeout, scope, service port, reinvocation", () => {
    const service = { namespace: "ns", name: "svc" };
    const defaulted = mutating.applyDefaults(config(hook({ clientConfig: { service } })));
    expect((defaulted["webhooks"] as JsonObject[])[0]).toMatchObject({
      failurePolicy: "Fail",
      matchPolicy: "Equivalent",
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      reinvocationPolicy: "Never",
      rules: [{ scope: "*" }],
      clientConfig: { service: { namespace: "ns", name: "svc", port: 443 } },
    });
    const plain = validating.applyDefaults(config(hook()));
    expect((plain["webhooks"] as JsonObject[])[0]).not.toHaveProperty("reinvocationPolicy");
  });

  it("accepts a valid configuration", () => {
    expect(validating.validateCreate(validating.applyDefaults(config(hook())))).toEqual([]);
    expect(mutating.validateCreate(mutating.applyDefaults(config(hook())))).toEqual([]);
  });

  it("requires fully qualified unique names, sideEffects and admissionReviewVersions", () => {
    const bad = config(
      hook({ name: "short", sideEffects: null, admissionReviewVersions: [] }),
      hook({ name: "check.example.com" }),
      hook({
        name: "check.example.com",
        sideEffects: "Some",
        admissionReviewVersions: ["v2", "v2"],
      }),
    );
    expect(messages(validating.validateCreate(bad))).toEqual([
      'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
      "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
      "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
      'webhooks[2].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[2].admissionReviewVersions[1]: Invalid value: "v2": duplicate version',
      'webhooks[2].admissionReviewVersions: Invalid value: ["v2","v2"]: must include at least one of v1, v1beta1',
      'webhooks[2].name: Duplicate value: "check.example.com"',
    ]);
  });

  it("checks clientConfig: exactly one of url and service, https without user, query or fragment", () => {
    const errors = (clientConfig: JsonObject): string[] =>
      messages(validating.validateCreate(config(hook({ clientConfig }))));
    expect(errors({})).toEqual([
      "webhooks[0].clientConfig: Required value: exactly one of url or service is required",
    ]);
    expect(errors({ url: "http://a.example.com/x?q=1" })).toEqual([
      `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
    ]);
    expect(errors({ service: { namespace: "ns", name: "", port: 0 } })).toEqual([
      "webhooks[0].clientConfig.service.name: Required value: service name is required",
      "webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive",
    ]);
  });

  it("checks rules, policies, the timeout and matchConditions", () => {
    const bad = hook({
      rules: [
        {
          operations: ["PATCH"],
          apiGroups: [],
          apiVersions: ["*", "v1"],
          resources: ["*", "pods"],
        },
      ],
      failurePolicy: "Sometimes",
      timeoutSeconds: 31,
      matchConditions: [
        { name: "ok", expression: "true" },
        { name: "ok", expression: "object.metadata.name" },
        { name: "", expression: "" },
      ],
    });
    expect(messages(validating.validateCreate(config(bad)))).toEqual([
      'webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      "webhooks[0].rules[0].apiGroups: Required value",
      'webhooks[0].rules[0].apiVersions: Invalid value: ["*","v1"]: if \'*\' is present, must not specify other API versions',
      'webhooks[0].rules[0].resources: Invalid value: ["*","pods"]: if \'*\' is present, must not specify other resources without subresources',
      'webhooks[0].failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
      "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
      'webhooks[0].matchConditions[1].expression: Invalid value: "object.metadata.name": must evaluate to bool',
      'webhooks[0].matchConditions[1].name: Duplicate value: "ok"',
      "webhooks[0].matchConditions[2].expression: Required value",
      "webhooks[0].matchConditions[2].name: Required value",
    ]);
    expect(
      messages(mutating.validateCreate(config(hook({ reinvocationPolicy: "Always" })))),
    ).toEqual([
      'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
    ]);
  });

  it("an update keeps accepting what the stored object already had", () => {
    const legacy = config(hook({ sideEffects: "Unknown" }), hook({ sideEffects: "Unknown" }));
    expect(messages(validating.validateUpdate(legacy, legacy))).toEqual([]);
    expect(messages(validating.validateCreate(legacy))).toHaveLength(3);
  });

  it("tracks generation", () => {
    expect(validatingWebhookConfigurationStrategy.policy).toEqual({ tracksGeneration: true });
    expect(mutatingWebhookConfigurationStrategy.policy).toEqual({ tracksGeneration: true });
  });
});
