/**
 * Where a webhook is served (`admissionregistration.k8s.io/v1` `WebhookClientConfig`, the
 * same shape as a CRD's `spec.conversion.webhook.clientConfig`): exactly one of `url` and
 * `service`. `caBundle` is the PEM bundle **base64-encoded, as the API object carries it**
 * (`[]byte` in Go is base64 in JSON); pass the field as read from the object.
 */
export interface WebhookClientConfig {
  readonly url?: string;
  readonly service?: {
    readonly namespace: string;
    readonly name: string;
    readonly path?: string;
    readonly port?: number;
  };
  readonly caBundle?: string;
}
