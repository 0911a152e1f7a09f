/**
 * One call of an admission webhook (the `callHook` / `callAttrMutatingHook` of kube's
 * `admission/plugin/webhook/validating/dispatcher.go` and `mutating/dispatcher.go`): the
 * dryRun check against `sideEffects`, the AdmissionReview in the webhook's preferred version,
 * the HTTPS call with `timeoutSeconds`, the checks of the answer. Failures of the call itself
 * are {@link CallingWebhookError}s (failurePolicy decides); a dryRun refusal is a 400.
 */
import { randomUUID } from "node:crypto";
import type { ServerContext } from "../../server/server-context.js";
import type { AdmissionAttributes } from "../admission-attributes.js";
import { callWebhook, WebhookCallError } from "../webhook-client/index.js";
import {
  admissionRequestOf,
  admissionReviewOf,
  InvalidAdmissionResponseError,
  reviewVersionFor,
  verifyAdmissionResponse,
  type VerifiedAdmissionResponse,
} from "./admission-review.js";
import { CallingWebhookError, dryRunUnsupported } from "./webhook-errors.js";
import type { WebhookInvocation } from "./webhook-matching.js";

/** Throws unless the webhook may see a dryRun request (sideEffects None or NoneOnDryRun). */
function checkDryRun(invocation: WebhookInvocation, attrs: AdmissionAttributes): void {
  if (!attrs.dryRun) return;
  const { name, sideEffects } = invocation.webhook;
  if (sideEffects === undefined) throw new CallingWebhookError(name, "Webhook SideEffects is nil");
  if (sideEffects !== "None" && sideEffects !== "NoneOnDryRun") throw dryRunUnsupported(name);
}

/**
 * Calls the webhook of `invocation` about `attrs` and returns its checked answer. Rejects
 * with a {@link CallingWebhookError} when it cannot be called or answers wrongly, with a
 * `StatusError` (400) for a dryRun request it must not see.
 */
export async function callAdmissionWebhook(
  ctx: ServerContext,
  invocation: WebhookInvocation,
  attrs: AdmissionAttributes,
): Promise<VerifiedAdmissionResponse> {
  checkDryRun(invocation, attrs);
  const hook = invocation.webhook;
  const version = reviewVersionFor(hook.admissionReviewVersions);
  if (!version) {
    throw new CallingWebhookError(
      hook.name,
      "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)",
    );
  }
  const uid = randomUUID();
  const request = admissionRequestOf(uid, attrs, invocation);
  const review = admissionReviewOf(version, request, attrs, invocation);
  let answer;
  try {
    answer = await callWebhook(ctx, hook.clientConfig, review, {
      timeoutMs: hook.timeoutSeconds * 1000,
    });
  } catch (err) {
    const reason = err instanceof WebhookCallError ? err.message : String(err);
    throw new CallingWebhookError(hook.name, `failed to call webhook: ${reason}`);
  }
  try {
    return verifyAdmissionResponse(version, uid, hook.type === "mutating", answer);
  } catch (err) {
    if (!(err instanceof InvalidAdmissionResponseError)) throw err;
    throw new CallingWebhookError(hook.name, `received invalid webhook response: ${err.message}`);
  }
}
