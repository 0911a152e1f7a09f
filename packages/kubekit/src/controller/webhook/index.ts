/**
 * Webhook servers (controller-runtime's `pkg/webhook`): admission webhooks that validate or
 * default objects and conversion webhooks of custom resources, served over HTTPS to the API
 * server. Which piece to use when:
 *
 * - {@link WebhookServer}: the HTTPS server; register handlers by path, add it to a
 *   {@link Manager} (it runs on every replica) or `start` it. Certificates from a directory
 *   (reloaded when they change) or from memory.
 * - {@link validatingWebhookFor}: a validating webhook of one kind from `validateCreate`,
 *   `validateUpdate` and `validateDelete` (controller-runtime's `CustomValidator`).
 * - {@link mutatingWebhookFor}: a defaulting webhook of one kind from a `default` function
 *   that changes the object; the JSON Patch is computed ({@link createJsonPatch}).
 * - {@link admissionHandler}: any admission webhook, from a function of the whole
 *   {@link AdmissionRequest} to an {@link AdmissionResult}.
 * - {@link conversionWebhook}: a CRD conversion webhook, one function for every pair of
 *   versions or a hub and its spokes.
 * - {@link WebhookHandler}: what `register` takes, to serve another review type.
 *
 * For tests, `@kubekit/cluster` generates the certificates (`generateWebhookCertificates`) and
 * writes the `caBundle` into webhook configurations.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_WEBHOOK_PORT,
  DEFAULT_WEBHOOK_SHUTDOWN_MS,
  WebhookServer,
  type WebhookServerOptions,
} from "./webhook-server.js";
export type { WebhookAnswer, WebhookHandler, WebhookRequest } from "./webhook-handler.js";
export type {
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReviewVersion,
  AdmissionStatus,
  AdmissionUserInfo,
} from "./admission-review.js";
export {
  admissionHandler,
  type AdmissionFunction,
  type AdmissionResult,
} from "./admission-handler.js";
export {
  validatingWebhookFor,
  type CustomValidator,
  type ValidationWarnings,
} from "./validating-webhook.js";
export { mutatingWebhookFor, type CustomDefaulter } from "./mutating-webhook.js";
export {
  conversionWebhook,
  type ConversionFunction,
  type ConversionSpoke,
  type ConversionWebhookOptions,
} from "./conversion-webhook.js";
export { DEFAULT_CERTIFICATE_POLL_MS } from "./certificate-watcher.js";
export { DEFAULT_MAX_WEBHOOK_REQUEST_BYTES } from "./webhook-request-body.js";
export { WEBHOOK_LATENCY_BUCKETS } from "./webhook-metrics.js";
