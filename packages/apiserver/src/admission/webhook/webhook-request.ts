/**
 * What the webhook plugins share: the `request` matchConditions see, and audit annotations
 * keyed by webhook (kube's `<webhook name>/<key>`).
 */
import type { JsonObject } from "kubekit";
import type { AdmissionAttributes } from "../admission-attributes.js";
import { admissionRequestOf } from "./admission-review.js";
import type { WebhookInvocation } from "./webhook-matching.js";

/** The AdmissionRequest bound to `request` in matchConditions (no uid yet, no objects). */
export function conditionRequest(
  attrs: AdmissionAttributes,
): (invocation: WebhookInvocation) => JsonObject {
  return (invocation) => ({
    ...admissionRequestOf("", attrs, invocation),
    dryRun: attrs.dryRun,
    options: attrs.options,
  });
}

/** Adds a webhook's audit annotations under `<webhook name>/<key>`. */
export function addAuditAnnotations(
  into: Record<string, string>,
  webhookName: string,
  annotations: Readonly<Record<string, string>>,
): void {
  for (const [key, value] of Object.entries(annotations)) into[`${webhookName}/${key}`] = value;
}
