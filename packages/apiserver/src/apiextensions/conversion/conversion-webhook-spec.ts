/**
 * A CRD's `spec.conversion` read for serving (`webhookClientConfigForCRD` in
 * apiextensions-apiserver `pkg/apiserver/conversion/webhook_converter.go`). The block was
 * validated when the CRD was written (`crd-validation/conversion-validation.ts`).
 */
import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import type { WebhookClientConfig } from "../../admission/webhook-client/webhook-client-config.js";
import type { CustomResourceConversionWebhook } from "../../registry/served-resource.js";

function stringOf(value: JsonValue | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** `clientConfig` as the webhook client takes it; a whitespace-only `caBundle` counts as none. */
function clientConfigOf(config: JsonObject): WebhookClientConfig {
  const url = stringOf(config["url"]);
  const bundle = stringOf(config["caBundle"]);
  const caBundle =
    bundle !== undefined && Buffer.from(bundle, "base64").toString().trim() !== ""
      ? bundle
      : undefined;
  const service = isJsonObject(config["service"]) ? config["service"] : undefined;
  return {
    ...(url !== undefined ? { url } : {}),
    ...(service
      ? {
          service: {
            namespace: stringOf(service["namespace"]) ?? "",
            name: stringOf(service["name"]) ?? "",
            ...(typeof service["path"] === "string" ? { path: service["path"] } : {}),
            port: typeof service["port"] === "number" ? service["port"] : 443,
          },
        }
      : {}),
    ...(caBundle !== undefined ? { caBundle } : {}),
  };
}

/** The conversion webhook of a CRD spec; undefined unless `spec.conversion.strategy` is `Webhook`. */
export function conversionWebhookOf(spec: JsonObject): CustomResourceConversionWebhook | undefined {
  const conversion = isJsonObject(spec["conversion"]) ? spec["conversion"] : undefined;
  if (conversion?.["strategy"] !== "Webhook") return undefined;
  const webhook = isJsonObject(conversion["webhook"]) ? conversion["webhook"] : {};
  const clientConfig = isJsonObject(webhook["clientConfig"]) ? webhook["clientConfig"] : {};
  const versions = Array.isArray(webhook["conversionReviewVersions"])
    ? webhook["conversionReviewVersions"].filter((v): v is string => typeof v === "string")
    : [];
  return { clientConfig: clientConfigOf(clientConfig), conversionReviewVersions: versions };
}
