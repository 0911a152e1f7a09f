/**
 * admissionregistration.k8s.io/v1 MutatingWebhookConfigurations
 * (`pkg/registry/admissionregistration/mutatingwebhookconfiguration/strategy.go`): the v1
 * defaults (reinvocationPolicy Never among them) and kube's validation (admission-webhooks.ts);
 * the server's mutating admission webhooks read them from storage.
 *
 * @kind MutatingWebhookConfiguration
 * @validation as ValidatingWebhookConfiguration, plus reinvocationPolicy Never/IfNeeded
 * @update metadata.generation bumped on changes; what the stored object already had stays accepted
 */
import {
  defaultWebhookConfiguration,
  validateWebhookConfiguration,
  validateWebhookConfigurationUpdate,
} from "./admission-webhooks.js";
import type { KindStrategy } from "./kind-strategy.js";

/** The MutatingWebhookConfiguration strategy. */
export const mutatingWebhookConfigurationStrategy: KindStrategy = {
  policy: { tracksGeneration: true },
  applyDefaults: (obj) => defaultWebhookConfiguration(obj, true),
  validateCreate: (obj) => validateWebhookConfiguration(obj, true),
  validateUpdate: (next, old) => validateWebhookConfigurationUpdate(next, old, true),
};
