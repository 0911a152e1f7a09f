/**
 * Validating admission webhooks (kube's `ValidatingAdmissionWebhook` plugin,
 * `admission/plugin/webhook/validating/dispatcher.go`): every matching webhook is called in
 * parallel about the final object; the first denial or failure (under failurePolicy Fail) in
 * webhook order is the answer; warnings of every webhook are kept.
 */
import type { StatusError } from "kubekit";
import type { ServerContext } from "../../server/server-context.js";
import type {
  AdmissionAttributes,
  AdmissionResult,
  ValidatingAdmissionPlugin,
} from "../admission-attributes.js";
import { attachWarnings } from "../admission-warnings.js";
import { callAdmissionWebhook } from "./call-admission-webhook.js";
import { CallingWebhookError, webhookDenial } from "./webhook-errors.js";
import { shouldCallWebhook, type WebhookInvocation } from "./webhook-matching.js";
import { addAuditAnnotations, conditionRequest } from "./webhook-request.js";
import type { WebhookSource } from "./webhook-source.js";

interface CallOutcome {
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
  readonly error?: StatusError | unknown;
}

async function callValidating(
  ctx: ServerContext,
  invocation: WebhookInvocation,
  attrs: AdmissionAttributes,
): Promise<CallOutcome> {
  const hook = invocation.webhook;
  try {
    const response = await callAdmissionWebhook(ctx, invocation, attrs);
    const auditAnnotations: Record<string, string> = {};
    addAuditAnnotations(auditAnnotations, hook.name, response.auditAnnotations);
    const outcome = { warnings: response.warnings, auditAnnotations };
    if (response.allowed) return outcome;
    return { ...outcome, error: webhookDenial(hook.name, response.result) };
  } catch (err) {
    if (err instanceof CallingWebhookError) {
      // failurePolicy Ignore fails open; Fail answers kube's 500.
      if (hook.failurePolicy === "Ignore") return { warnings: [], auditAnnotations: {} };
      return { warnings: [], auditAnnotations: {}, error: err.toStatusError() };
    }
    return { warnings: [], auditAnnotations: {}, error: err };
  }
}

async function validateWithWebhooks(
  ctx: ServerContext,
  source: WebhookSource,
  attrs: AdmissionAttributes,
): Promise<AdmissionResult> {
  const requestOf = conditionRequest(attrs);
  const invocations: WebhookInvocation[] = [];
  for (const hook of source.candidates("validating", attrs)) {
    const invocation = shouldCallWebhook(ctx, hook, attrs, requestOf);
    if (invocation) invocations.push(invocation);
  }
  const outcomes = await Promise.all(invocations.map((i) => callValidating(ctx, i, attrs)));
  const warnings = outcomes.flatMap((o) => o.warnings);
  const auditAnnotations: Record<string, string> = {};
  for (const o of outcomes) Object.assign(auditAnnotations, o.auditAnnotations);
  const failed = outcomes.find((o) => o.error !== undefined);
  if (failed) throw attachWarnings(failed.error, warnings);
  return { warnings, auditAnnotations };
}

/** The validating webhooks of a server, read from `source`. */
export function createValidatingWebhookPlugin(
  ctx: ServerContext,
  source: WebhookSource,
): ValidatingAdmissionPlugin {
  return {
    name: "ValidatingAdmissionWebhook",
    handles: (attrs) => source.candidates("validating", attrs).length > 0,
    validate: (attrs) => validateWithWebhooks(ctx, source, attrs),
  };
}
