/**
 * admissionregistration.k8s.io/v1 ValidatingWebhookConfigurations
 * (`pkg/registry/admissionregistration/validatingwebhookconfiguration/strategy.go`): the v1
 * defaults and kube's validation (admission-webhooks.ts); the server's validating admission
 * webhooks read them from storage.
 *
 * @kind ValidatingWebhookConfiguration
 * @validation webhook names fully qualified and unique; rules; failurePolicy, matchPolicy; sideEffects None/NoneOnDryRun; timeoutSeconds 1..30; selectors; exactly one of url (https, no user, query or fragment) and service; admissionReviewVersions; matchConditions
 * @update metadata.generation bumped on changes; what the stored object already had stays accepted
 */
import {
  defaultWebhookConfiguration,
  validateWebhookConfiguration,
  validateWebhookConfigurationUpdate,
} from "./admission-webhooks.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The ValidatingWebhookConfiguration strategy. */
export const validatingWebhookConfigurationStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  applyDefaults: (obj) => defaultWebhookConfiguration(obj, false),
  validateCreate: (obj) => validateWebhookConfiguration(obj, false),
  validateUpdate: (next, old) => validateWebhookConfigurationUpdate(next, old, false),
};
