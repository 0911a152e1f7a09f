/**
 * One webhook of a Validating/MutatingWebhookConfiguration as the dispatcher uses it (kube's
 * `webhook.WebhookAccessor`, `staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/accessors.go`):
 * its fields with the v1 defaults applied (`pkg/apis/admissionregistration/v1/defaults.go`:
 * failurePolicy Fail, matchPolicy Equivalent, timeoutSeconds 10, empty selectors, scope `*`,
 * reinvocationPolicy Never), its selectors parsed and its matchConditions compiled once.
 */
import { LabelSelector, type JsonObject, type JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import type { WebhookClientConfig } from "../webhook-client/index.js";
import { compileMatchConditions, type CompiledMatchConditions } from "./match-conditions.js";

/** A webhook ready to match and call. */
export interface CompiledWebhook {
  /** `mutating` or `validating`. */
  readonly type: "mutating" | "validating";
  readonly name: string;
  readonly configurationName: string;
  /** Unique among the server's webhooks: `<configuration>/<index>` (reinvocation tracks it). */
  readonly uid: string;
  /** `rules[]` (`RuleWithOperations`) as stored. */
  readonly rules: readonly JsonObject[];
  readonly matchPolicy: "Exact" | "Equivalent";
  /** Undefined when the selector does not parse (the request then fails as kube's does). */
  readonly namespaceSelector: LabelSelector | undefined;
  readonly objectSelector: LabelSelector | undefined;
  readonly selectorError: string | undefined;
  readonly matchConditions: CompiledMatchConditions;
  readonly failurePolicy: "Fail" | "Ignore";
  /** Undefined when not set (only possible for objects stored before validation). */
  readonly sideEffects: string | undefined;
  readonly timeoutSeconds: number;
  readonly admissionReviewVersions: readonly string[];
  readonly clientConfig: WebhookClientConfig;
  readonly reinvocationPolicy: "Never" | "IfNeeded";
}

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function rulesOf(value: JsonValue | undefined): JsonObject[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

function selectorOf(value: JsonValue | undefined): LabelSelector {
  if (!isJsonObject(value)) return LabelSelector.everything();
  return LabelSelector.fromLabelSelector(
    value as Parameters<typeof LabelSelector.fromLabelSelector>[0],
  );
}

function clientConfigOf(value: JsonValue | undefined): WebhookClientConfig {
  if (!isJsonObject(value)) return {};
  const service = isJsonObject(value["service"]) ? value["service"] : undefined;
  return {
    ...(typeof value["url"] === "string" ? { url: value["url"] } : {}),
    ...(service
      ? {
          service: {
            namespace: String(service["namespace"] ?? ""),
            name: String(service["name"] ?? ""),
            ...(typeof service["path"] === "string" ? { path: service["path"] } : {}),
            ...(typeof service["port"] === "number" ? { port: service["port"] } : {}),
          },
        }
      : {}),
    ...(typeof value["caBundle"] === "string" ? { caBundle: value["caBundle"] } : {}),
  };
}

/** The selectors of a webhook, or the error that parsing them gave. */
function selectors(
  hook: JsonObject,
): Pick<CompiledWebhook, "namespaceSelector" | "objectSelector" | "selectorError"> {
  try {
    return {
      namespaceSelector: selectorOf(hook["namespaceSelector"]),
      objectSelector: selectorOf(hook["objectSelector"]),
      selectorError: undefined,
    };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { namespaceSelector: undefined, objectSelector: undefined, selectorError: message };
  }
}

/** The webhooks of a stored configuration, in their order, with the v1 defaults. */
export function compileWebhooks(
  type: "mutating" | "validating",
  configuration: JsonObject,
): CompiledWebhook[] {
  const configurationName = String(
    (isJsonObject(configuration["metadata"]) && configuration["metadata"]["name"]) || "",
  );
  const hooks = Array.isArray(configuration["webhooks"]) ? configuration["webhooks"] : [];
  return hooks.filter(isJsonObject).map((hook, index) => {
    const failurePolicy = hook["failurePolicy"] === "Ignore" ? "Ignore" : "Fail";
    return {
      type,
      name: String(hook["name"] ?? ""),
      configurationName,
      uid: `${configurationName}/${index}`,
      rules: rulesOf(hook["rules"]),
      matchPolicy: hook["matchPolicy"] === "Exact" ? "Exact" : "Equivalent",
      ...selectors(hook),
      matchConditions: compileMatchConditions(hook["matchConditions"], failurePolicy),
      failurePolicy,
      sideEffects: typeof hook["sideEffects"] === "string" ? hook["sideEffects"] : undefined,
      timeoutSeconds: typeof hook["timeoutSeconds"] === "number" ? hook["timeoutSeconds"] : 10,
      admissionReviewVersions: strings(hook["admissionReviewVersions"]),
      clientConfig: clientConfigOf(hook["clientConfig"]),
      reinvocationPolicy: hook["reinvocationPolicy"] === "IfNeeded" ? "IfNeeded" : "Never",
    };
  });
}
