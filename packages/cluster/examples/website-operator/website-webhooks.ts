/**
 * The Website's admission webhooks (webhook/website-webhooks.yaml registers them): a defaulting
 * webhook that sets `spec.replicas` from the tier, and a validating webhook that bounds the
 * replicas of a small site and warns about a named `spec.port`. Rules that read several fields
 * at once, which the CRD's schema cannot default or check; the schema keeps the rest
 * (`image` required, `replicas` 0..10, `tier` small or large, defaulted to small).
 *
 * Both are typed with the generated `Website` and served by a `WebhookServer` that
 * `websiteOperator({ webhookServer })` registers them in and runs with its Manager
 * (controller-runtime's `SetupWebhookWithManager`).
 */
import {
  type CustomDefaulter,
  type CustomValidator,
  type WebhookServer,
  mutatingWebhookFor,
  validatingWebhookFor,
} from "kubekit";
import type { Website } from "./generated/example.com/v1.js";

/** The path of the defaulting webhook (kubebuilder's `/mutate-<group>-<version>-<kind>`). */
export const WEBSITE_DEFAULTING_PATH = "/mutate-example-com-v1-website";

/** The path of the validating webhook (kubebuilder's `/validate-<group>-<version>-<kind>`). */
export const WEBSITE_VALIDATING_PATH = "/validate-example-com-v1-website";

/** The replicas a Website gets when it sets none: 1 for a small site, 3 for a large one. */
export function defaultReplicas(website: Website): number {
  return website.spec?.tier === "large" ? 3 : 1;
}

/** The most replicas a small site may ask for (a large one: the schema's maximum, 10). */
export const SMALL_MAX_REPLICAS = 3;

/** Defaults `spec.replicas` from the tier (the schema has already defaulted the tier). */
export const websiteDefaulter: CustomDefaulter<Website> = {
  default(website) {
    if (website.spec !== undefined) website.spec.replicas ??= defaultReplicas(website);
  },
};

/** The denial (thrown) or the warnings of a Website being created or updated. */
function checkWebsite(website: Website): string[] {
  const spec = website.spec;
  const replicas = spec?.replicas ?? defaultReplicas(website);
  if (spec?.tier !== "large" && replicas > SMALL_MAX_REPLICAS) {
    // Thrown errors deny with code 403 and this message, in kube's field error wording.
    throw new Error(
      `spec.replicas: Invalid value: ${replicas}: a small Website runs at most ${SMALL_MAX_REPLICAS} replicas; set spec.tier to large`,
    );
  }
  return typeof spec?.port === "string"
    ? [`spec.port: the named port "${spec.port}" is deprecated and ignored; set a port number`]
    : [];
}

/**
 * Denies a small Website with more than {@link SMALL_MAX_REPLICAS} replicas and warns about a
 * named port, on create and on update. A Website being deleted is not checked, so that its
 * finalizer can always be removed.
 */
export const websiteValidator: CustomValidator<Website> = {
  validateCreate: (website) => checkWebsite(website),
  validateUpdate: (_old, website) =>
    website.metadata?.deletionTimestamp !== undefined ? [] : checkWebsite(website),
};

/** Serves the Website's webhooks on `server` at their paths. */
export function registerWebsiteWebhooks(server: WebhookServer): void {
  server.register(WEBSITE_DEFAULTING_PATH, mutatingWebhookFor<Website>(websiteDefaulter));
  server.register(WEBSITE_VALIDATING_PATH, validatingWebhookFor<Website>(websiteValidator));
}
