/**
 * Why a webhook call failed: `timeout` (the deadline passed), `refused` (no connection),
 * `tls` (handshake or certificate verification), `status` (an HTTP status other than 200),
 * `malformed` (a body that is not a JSON value, or too large), `resolve` (the Service, its
 * endpoints or the URL could not be resolved).
 */
export type WebhookCallFailure = "timeout" | "refused" | "tls" | "status" | "malformed" | "resolve";

/**
 * A failed webhook call. The message is kube's wording of the failure itself (e.g.
 * `Post "https://svc.ns.svc:443/path?timeout=10s": context deadline exceeded`); callers
 * compose their prefix (`failed calling webhook "NAME": ...`).
 */
export class WebhookCallError extends Error {
  readonly failure: WebhookCallFailure;
  /** The HTTP status, for `status` failures. */
  readonly statusCode: number | undefined;

  constructor(failure: WebhookCallFailure, message: string, statusCode?: number) {
    super(message);
    this.name = "WebhookCallError";
    this.failure = failure;
    this.statusCode = statusCode;
  }
}
