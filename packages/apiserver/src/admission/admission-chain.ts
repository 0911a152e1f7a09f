/**
 * The admission chain the write path runs (kube's `admission.chainAdmissionHandler` with the
 * default plugin order of `staging/src/k8s.io/apiserver/pkg/server/plugins.go`): mutating
 * plugins in order (mutating webhooks, which re-invoke themselves as `reinvocationPolicy`
 * asks), then — after the kind's validation, run by the store between the two — every
 * validating plugin (ValidatingAdmissionPolicy, validating webhooks) in parallel. The first
 * denial in plugin order is the answer; every plugin's warnings are kept, denied or not.
 */
import type { JsonObject } from "kubekit";
import type { ServerContext } from "../server/server-context.js";
import type {
  AdmissionAttributes,
  MutatingAdmissionPlugin,
  ValidatingAdmissionPlugin,
} from "./admission-attributes.js";
import { attachedWarnings } from "./admission-warnings.js";
import { createMutatingWebhookPlugin } from "./webhook/mutating-webhook-plugin.js";
import { createValidatingWebhookPlugin } from "./webhook/validating-webhook-plugin.js";
import { WebhookSource } from "./webhook/webhook-source.js";
import { createValidatingAdmissionPolicyPlugin } from "./policy/index.js";

/** The mutating and validating plugins of one server, run in kube's order. */
export class AdmissionChain {
  readonly #mutating: readonly MutatingAdmissionPlugin[];
  readonly #validating: readonly ValidatingAdmissionPlugin[];

  constructor(
    mutating: readonly MutatingAdmissionPlugin[],
    validating: readonly ValidatingAdmissionPlugin[],
  ) {
    this.#mutating = mutating;
    this.#validating = validating;
  }

  /** Whether a mutating plugin could apply to `attrs` (cheap, synchronous). */
  handlesMutation(attrs: AdmissionAttributes): boolean {
    return this.#mutating.some((p) => p.handles(attrs));
  }

  /** Whether a validating plugin could apply to `attrs` (cheap, synchronous). */
  handlesValidation(attrs: AdmissionAttributes): boolean {
    return this.#validating.some((p) => p.handles(attrs));
  }

  /**
   * Runs the mutating plugins in order, each on the previous one's object; returns the
   * object to go on with. Warnings are appended to `warnings` as they come, so a denial
   * still carries the earlier ones. Rejects with a plugin's `StatusError` to deny.
   */
  async mutate(attrs: AdmissionAttributes, warnings: string[]): Promise<JsonObject | undefined> {
    let current = attrs;
    for (const plugin of this.#mutating) {
      if (!plugin.handles(current)) continue;
      let result;
      try {
        result = await plugin.admit(current);
      } catch (err) {
        warnings.push(...attachedWarnings(err));
        throw err;
      }
      warnings.push(...result.warnings);
      if (result.object !== current.object) current = { ...current, object: result.object };
    }
    return current.object;
  }

  /**
   * Runs every validating plugin that handles `attrs` in parallel; rejects with the first
   * denial in plugin order once all have answered. Warnings of all of them are appended.
   */
  async validate(attrs: AdmissionAttributes, warnings: string[]): Promise<void> {
    const plugins = this.#validating.filter((p) => p.handles(attrs));
    const outcomes = await Promise.allSettled(plugins.map((p) => p.validate(attrs)));
    let denial: { reason: unknown } | undefined;
    for (const outcome of outcomes) {
      if (outcome.status === "fulfilled") warnings.push(...outcome.value.warnings);
      else {
        warnings.push(...attachedWarnings(outcome.reason));
        denial ??= { reason: outcome.reason };
      }
    }
    if (denial) throw denial.reason;
  }
}

const CHAINS = new WeakMap<ServerContext, AdmissionChain>();

/**
 * The admission chain of a server: its mutating and validating webhooks (configurations
 * read from its storage) and ValidatingAdmissionPolicy. One per server context, built on
 * first use.
 */
export function admissionChainOf(ctx: ServerContext): AdmissionChain {
  let chain = CHAINS.get(ctx);
  if (!chain) {
    const source = new WebhookSource(ctx);
    chain = new AdmissionChain(
      [createMutatingWebhookPlugin(ctx, source)],
      [createValidatingAdmissionPolicyPlugin(ctx), createValidatingWebhookPlugin(ctx, source)],
    );
    CHAINS.set(ctx, chain);
  }
  return chain;
}
