/**
 * Writing a CA bundle into the objects that call webhooks (what cert-manager's CA injector and
 * envtest's `WebhookInstallOptions.ModifyWebhookDefinitions` do): every webhook of a
 * Validating/MutatingWebhookConfiguration, and a CRD's conversion webhook.
 */
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
  WebhookClientConfig,
} from "kubernetes-types/admissionregistration/v1.js";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";

/** The objects {@link withCaBundle} writes a CA bundle into. */
export type WebhookCallingObject =
  ValidatingWebhookConfiguration | MutatingWebhookConfiguration | CustomResourceDefinition;

/** Options of {@link withCaBundle}. */
export interface CaBundleOptions {
  /**
   * Also point every `clientConfig` at this base URL (e.g. `https://127.0.0.1:9443`): a
   * `service` is replaced by `url: <baseUrl><service.path>` and a `url`'s origin by this one,
   * as envtest points webhooks at its local serving host and port.
   */
  readonly baseUrl?: string;
}

/** The CA bundle as a `caBundle` field holds it: base64 of the PEM (a PEM given is encoded). */
function caBundleOf(ca: string): string {
  return ca.includes("-----BEGIN") ? Buffer.from(ca).toString("base64") : ca;
}

function clientConfigWith(
  config: WebhookClientConfig,
  caBundle: string,
  options: CaBundleOptions,
): WebhookClientConfig {
  if (options.baseUrl === undefined) return { ...config, caBundle };
  const base = options.baseUrl.replace(/\/+$/, "");
  const path =
    config.service !== undefined
      ? (config.service.path ?? "")
      : config.url !== undefined
        ? new URL(config.url).pathname + new URL(config.url).search
        : "";
  return { url: `${base}${path}`, caBundle };
}

/**
 * A copy of `object` whose every webhook `clientConfig` carries `ca` as its `caBundle`:
 * each of `webhooks` of a Validating/MutatingWebhookConfiguration, or a CRD's
 * `spec.conversion.webhook.clientConfig`. `ca` is the CA's PEM (encoded here) or a
 * `caBundle` already base64-encoded. `object` itself is not changed.
 *
 * @throws {TypeError} for another kind, or a CRD whose conversion strategy is not `Webhook`
 *   with a `clientConfig`.
 */
export function withCaBundle<T extends WebhookCallingObject>(
  object: T,
  ca: string,
  options: CaBundleOptions = {},
): T {
  const caBundle = caBundleOf(ca);
  if (
    object.kind === "ValidatingWebhookConfiguration" ||
    object.kind === "MutatingWebhookConfiguration"
  ) {
    const configuration = object as ValidatingWebhookConfiguration | MutatingWebhookConfiguration;
    return {
      ...object,
      webhooks: (configuration.webhooks ?? []).map((webhook) => ({
        ...webhook,
        clientConfig: clientConfigWith(webhook.clientConfig, caBundle, options),
      })),
    };
  }
  if (object.kind === "CustomResourceDefinition") {
    const crd = object as CustomResourceDefinition;
    const webhook = crd.spec.conversion?.webhook;
    if (crd.spec.conversion?.strategy !== "Webhook" || webhook?.clientConfig === undefined) {
      throw new TypeError(
        `CustomResourceDefinition ${crd.metadata?.name ?? ""} has no conversion webhook clientConfig`,
      );
    }
    return {
      ...object,
      spec: {
        ...crd.spec,
        conversion: {
          ...crd.spec.conversion,
          webhook: {
            ...webhook,
            clientConfig: clientConfigWith(webhook.clientConfig, caBundle, options),
          },
        },
      },
    };
  }
  throw new TypeError(
    `withCaBundle takes a ValidatingWebhookConfiguration, MutatingWebhookConfiguration or CustomResourceDefinition, got kind ${JSON.stringify(object.kind ?? "")}`,
  );
}
