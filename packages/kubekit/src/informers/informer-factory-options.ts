/**
 * The options every informer factory (typed, dynamic, metadata) takes.
 */
import type { SharedIndexInformerOptions } from "../cache/shared-index-informer.js";
import type { ListOptions } from "../rest/request-options.js";

/**
 * Settings passed to every informer a factory creates: the queue kind, clock, logger,
 * reflector tuning and the mutation detector of {@link SharedIndexInformerOptions}.
 */
export type InformerTuning = Pick<
  SharedIndexInformerOptions<unknown>,
  "queue" | "clock" | "logger" | "reflector" | "detectMutations"
>;

/** The options shared by the informer factories (client-go's `SharedInformerOption`s). */
export interface InformerFactoryOptions {
  /**
   * The resync period of every informer, in ms (client-go's `defaultResync`); 0 or absent:
   * never resync.
   */
  readonly resyncPeriodMs?: number;
  /**
   * Watch only this namespace (client-go's `WithNamespace`); absent or `""`: every
   * namespace. Ignored for cluster-scoped resources the factory knows as such.
   */
  readonly namespace?: string;
  /**
   * Rewrites the options of every list **and** watch request of every informer (client-go's
   * `WithTweakListOptions`), e.g. to add a label selector. It must return new options and
   * should leave resourceVersion, limit, continue and the watch options alone.
   */
  readonly tweakListOptions?: (options: ListOptions) => ListOptions;
  /**
   * Per-resource resync periods in ms, replacing `resyncPeriodMs` for those resources
   * (client-go's `WithCustomResyncConfig`), keyed by `group/version/resource`: e.g.
   * `{ "apps/v1/deployments": 30_000, "/v1/pods": 0 }` (the core group's key starts with `/`).
   */
  readonly customResyncMs?: Readonly<Record<string, number>>;
  /** Settings of every informer the factory creates. */
  readonly informerOptions?: InformerTuning;
}
