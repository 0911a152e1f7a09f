/**
 * What a {@link Manager} gives the runnables added to it (controller-runtime's injection of
 * the manager's logger, metrics and caches: `pkg/manager/internal.go` `Add`, and the
 * defaults `pkg/controller/controller.go` takes from the manager's controller options),
 * through an explicit hook each runnable class registers, never by reflection. Internal to
 * kubekit: not exported from the package.
 */
import type { Clock } from "../../core/clock.js";
import type { Logger } from "../../core/logger.js";
import type { ControllerMetricsProvider } from "../metrics/controller-metrics.js";

/** An informer a running runnable waits on, by name, with its sync state. */
export interface AwaitedInformer {
  /** The informer's name, as `/readyz` failures and errors name it. */
  readonly informer: string;
  hasSynced(): boolean;
}

/** The manager's settings a runnable uses unless its own options set them. */
export interface ManagerDefaults {
  readonly metrics: ControllerMetricsProvider;
  readonly logger: Logger;
  readonly clock: Clock;
  /**
   * Registers the informers the runnable `owner` waits on while it runs, so that the
   * manager's readiness fails until they synced; returns the function that unregisters them.
   */
  readonly awaitInformers: (owner: string, informers: readonly AwaitedInformer[]) => () => void;
}

const hooks = new WeakMap<object, (defaults: ManagerDefaults) => void>();

/** Makes `runnable` receive the {@link ManagerDefaults} of any manager it is added to. */
export function onManagerAdd(runnable: object, inject: (defaults: ManagerDefaults) => void): void {
  hooks.set(runnable, inject);
}

/** Gives `runnable` the manager's defaults if it registered a hook ({@link onManagerAdd}). */
export function injectManagerDefaults(runnable: object, defaults: ManagerDefaults): void {
  hooks.get(runnable)?.(defaults);
}
