/**
 * A CRD's `spec.conversion` (`validateCustomResourceConversion` and
 * `validateConversionReviewVersions` in apiextensions-apiserver
 * `pkg/apis/apiextensions/validation/validation.go`). Paths are the internal type's, as kube
 * reports them: the v1 `webhook.clientConfig` is `webhookClientConfig` and
 * `webhook.conversionReviewVersions` is `conversionReviewVersions`.
 * An invalid `caBundle` is accepted on create and until the CRD is Established, as kube does.
 */
import type { FieldError, JsonObject, JsonValue } from "kubekit";
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isDns1035Label,
  isJsonObject,
} from "kubekit/apimachinery";
import { INVALID_CA_BUNDLE, isValidCABundle } from "./ca-bundle.js";
import { validateWebhookService, validateWebhookUrl } from "./webhook-client-config.js";

/** The ConversionReview versions kube understands (kube's `acceptedConversionReviewVersions`). */
const ACCEPTED_REVIEW_VERSIONS = ["v1", "v1beta1"];

/** The conversion review versions' errors at `path`. */
function validateConversionReviewVersions(
  versions: JsonValue[] | undefined,
  requireRecognized: boolean,
  path: string,
): FieldError[] {
  if (!versions || versions.length === 0) return [fieldRequired(path, "")];
  const errors: FieldError[] = [];
  const seen = new Set<JsonValue>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errors.push(fieldInvalid(`${path}[${i}]`, v, "duplicate version"));
      return;
    }
    seen.add(v);
    const name = typeof v === "string" ? v : "";
    for (const e of isDns1035Label(name)) errors.push(fieldInvalid(`${path}[${i}]`, v, e));
    if (ACCEPTED_REVIEW_VERSIONS.includes(name)) accepted = true;
  });
  if (requireRecognized && !accepted) {
    errors.push(
      fieldInvalid(
        path,
        versions,
        `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(", ")}`,
      ),
    );
  }
  return errors;
}

/** The client config of a Webhook conversion: exactly one of url and service, each valid. */
function validateClientConfig(
  config: JsonObject,
  path: string,
  allowInvalidCABundle: boolean,
): FieldError[] {
  const bundle = typeof config["caBundle"] === "string" ? config["caBundle"] : "";
  const errors =
    bundle !== "" && !allowInvalidCABundle && !isValidCABundle(bundle)
      ? [fieldInvalid(`${path}.caBundle`, bundle, INVALID_CA_BUNDLE)]
      : [];
  return [...validateTarget(config, path), ...errors];
}

/** Exactly one of url and service, each valid. */
function validateTarget(config: JsonObject, path: string): FieldError[] {
  const url = config["url"];
  const service = config["service"];
  const hasUrl = typeof url === "string";
  const hasService = isJsonObject(service);
  if (hasUrl === hasService)
    return [fieldRequired(path, "exactly one of url or service is required")];
  if (hasUrl) return validateWebhookUrl(`${path}.url`, url);
  const s = service as JsonObject;
  const str = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");
  // kube passes (name, namespace) to a (namespace, name) signature; kept as kube does it.
  return validateWebhookService(
    `${path}.service`,
    str(s["name"]),
    str(s["namespace"]),
    typeof s["path"] === "string" ? s["path"] : undefined,
    typeof s["port"] === "number" ? s["port"] : 443,
  );
}

/**
 * The errors of the v1 `conversion` block at `spec.conversion` (nothing when absent: the
 * defaulting sets strategy None first). `requireRecognized` is relaxed only on updates of a
 * CRD stored with unrecognized review versions; `allowInvalidCABundle` as kube's option.
 */
export function validateConversion(
  conversion: JsonObject | undefined,
  requireRecognized: boolean,
  allowInvalidCABundle: boolean,
): FieldError[] {
  if (!conversion) return [];
  const path = "spec.conversion";
  const errors: FieldError[] = [];
  const strategy = typeof conversion["strategy"] === "string" ? conversion["strategy"] : "";
  if (strategy === "") errors.push(fieldRequired(`${path}.strategy`, ""));
  else if (strategy !== "None" && strategy !== "Webhook") {
    errors.push(fieldNotSupported(`${path}.strategy`, strategy, ["None", "Webhook"]));
  }
  const webhook = isJsonObject(conversion["webhook"]) ? conversion["webhook"] : undefined;
  const clientConfig = isJsonObject(webhook?.["clientConfig"])
    ? (webhook["clientConfig"] as JsonObject)
    : undefined;
  const reviewVersions = Array.isArray(webhook?.["conversionReviewVersions"])
    ? (webhook["conversionReviewVersions"] as JsonValue[])
    : undefined;
  const configPath = `${path}.webhookClientConfig`;
  if (strategy === "Webhook") {
    if (!clientConfig) {
      errors.push(fieldRequired(configPath, "required when strategy is set to Webhook"));
    } else errors.push(...validateClientConfig(clientConfig, configPath, allowInvalidCABundle));
    errors.push(
      ...validateConversionReviewVersions(
        reviewVersions,
        requireRecognized,
        `${path}.conversionReviewVersions`,
      ),
    );
    return errors;
  }
  const detail = "should not be set when strategy is not set to Webhook";
  if (clientConfig) errors.push(fieldForbidden(configPath, detail));
  if (reviewVersions && reviewVersions.length > 0) {
    errors.push(fieldForbidden(`${path}.conversionReviewVersions`, detail));
  }
  return errors;
}
