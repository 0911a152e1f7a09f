/**
 * The webhooks of a server's stored configurations (kube's `configuration.NewMutatingWebhookConfigurationManager`
 * and its validating twin): every MutatingWebhookConfiguration / ValidatingWebhookConfiguration,
 * sorted by configuration name, each one's webhooks in their order. A configuration is
 * compiled once per resourceVersion; a write no configuration could concern costs a count.
 */
import type { JsonObject } from "kubekit";
import { metadataOf } from "kubekit/apimachinery";
import type { ServerContext } from "../../server/server-context.js";
import type { AdmissionAttributes } from "../admission-attributes.js";
import { isExemptAdmissionConfigurationResource } from "../policy/match-resources.js";
import { compileWebhooks, type CompiledWebhook } from "./compiled-webhook.js";
import { matchingEntry } from "./webhook-matching.js";

/** Where the configurations are stored (`group/plural`). */
export const WEBHOOK_CONFIGURATION_STORAGE_IDS = {
  mutating: "admissionregistration.k8s.io/mutatingwebhookconfigurations",
  validating: "admissionregistration.k8s.io/validatingwebhookconfigurations",
} as const;

interface CachedConfiguration {
  readonly resourceVersion: string;
  readonly webhooks: readonly CompiledWebhook[];
}

/** The compiled webhooks of one server, read from its storage. */
export class WebhookSource {
  readonly #ctx: ServerContext;
  readonly #cache = {
    mutating: new Map<string, CachedConfiguration>(),
    validating: new Map<string, CachedConfiguration>(),
  };
  readonly #lists = {
    mutating: { revision: -1, webhooks: [] as readonly CompiledWebhook[] },
    validating: { revision: -1, webhooks: [] as readonly CompiledWebhook[] },
  };

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  /** Whether any configuration of this type is stored (cheap). */
  any(type: "mutating" | "validating"): boolean {
    return this.#ctx.storage.count(WEBHOOK_CONFIGURATION_STORAGE_IDS[type]) > 0;
  }

  /** Every webhook of this type in kube's order: configurations by name, then webhook order. */
  webhooks(type: "mutating" | "validating"): readonly CompiledWebhook[] {
    if (!this.any(type)) return [];
    const list = this.#lists[type];
    const revision = this.#ctx.storage.currentRevision;
    if (list.revision === revision) return list.webhooks;
    const cache = this.#cache[type];
    // Storage keys of cluster-scoped objects are their names; kube sorts by name (byte order).
    const stored = [...this.#ctx.storage.current(WEBHOOK_CONFIGURATION_STORAGE_IDS[type])].sort(
      ([a], [b]) => (a < b ? -1 : a > b ? 1 : 0),
    );
    const seen = new Set<string>();
    const webhooks: CompiledWebhook[] = [];
    for (const [key, obj] of stored) {
      seen.add(key);
      webhooks.push(...this.#compiled(type, cache, key, obj));
    }
    for (const key of cache.keys()) if (!seen.has(key)) cache.delete(key);
    this.#lists[type] = { revision, webhooks };
    return webhooks;
  }

  /**
   * The webhooks of this type whose rules match `attrs` (selectors and matchConditions are
   * the dispatcher's): none for the admission configuration resources themselves, which
   * webhooks never see (kube's `IsExemptAdmissionConfigurationResource`).
   */
  candidates(type: "mutating" | "validating", attrs: AdmissionAttributes): CompiledWebhook[] {
    if (!this.any(type) || isExemptAdmissionConfigurationResource(attrs)) return [];
    return this.webhooks(type).filter(
      (hook) => matchingEntry(this.#ctx, hook, attrs) !== undefined,
    );
  }

  #compiled(
    type: "mutating" | "validating",
    cache: Map<string, CachedConfiguration>,
    key: string,
    obj: JsonObject,
  ): readonly CompiledWebhook[] {
    const resourceVersion = String(metadataOf(obj)?.["resourceVersion"] ?? "");
    const cached = cache.get(key);
    if (cached?.resourceVersion === resourceVersion) return cached.webhooks;
    const webhooks = compileWebhooks(type, obj);
    cache.set(key, { resourceVersion, webhooks });
    return webhooks;
  }
}
