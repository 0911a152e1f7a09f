/**
 * The embedded server's webhook client, as kube-apiserver calls admission and conversion
 * webhooks (`staging/src/k8s.io/apiserver/pkg/util/webhook/`): see {@link callWebhook}.
 *
 * Pointing a webhook Service at a local server (tests): create a Service **without selector**
 * (so no controller manages its endpoints) and an EndpointSlice labelled
 * `kubernetes.io/service-name: <service>` with an endpoint address `127.0.0.1` and a port
 * whose `name` is the Service port's name (both unnamed: `""`) and whose `port` is the local
 * server's port. The client then dials `127.0.0.1:<port>` and verifies the server certificate
 * against `caBundle` for the name `<service>.<namespace>.svc`, exactly as kube-apiserver does
 * for a webhook Service; the serving certificate needs that DNS name. See docs/webhooks.md.
 */
import type { JsonObject, JsonValue } from "kubekit";
import type { ServerContext } from "../../server/server-context.js";
import type { WebhookClientConfig } from "./webhook-client-config.js";

export type { WebhookClientConfig } from "./webhook-client-config.js";
export { WebhookCallError, type WebhookCallFailure } from "./webhook-call-error.js";

/**
 * POSTs `body` as JSON over HTTPS (verified against caBundle; the Service resolved through
 * its EndpointSlices, as kube-apiserver does with its service resolver), returns the parsed
 * JSON response.
 *
 * Guarantees: HTTPS only; `caBundle` (base64 PEM) is the only trust anchor when given, the
 * system roots otherwise; the URL carries `?timeout=<Go duration>` as client-go sends it; the
 * request is aborted when `timeoutMs` passes on the server's clock or `signal` aborts; the
 * answer is read up to `maxResponseBytes` (default 3 MiB) and parsed as JSON; statuses
 * 200–206 succeed. Rejects with a {@link WebhookCallError} only, whose message is kube's
 * wording (`Post "https://…?timeout=10s": context deadline exceeded`, `… connect: connection
 * refused`, `service "NAME" not found`, `no endpoints available for service "NAME"`, …) and
 * quotes at most a few KiB of the answer, never the request body or a credential.
 */
export async function callWebhook(
  ctx: ServerContext,
  config: WebhookClientConfig,
  body: JsonObject,
  options: {
    readonly timeoutMs: number;
    readonly signal?: AbortSignal;
    /** The largest answer accepted, in bytes; default 3 MiB. */
    readonly maxResponseBytes?: number;
  },
): Promise<JsonValue> {
  const { postWebhook } = await import("./post-webhook.js");
  return postWebhook(ctx, config, body, options);
}
