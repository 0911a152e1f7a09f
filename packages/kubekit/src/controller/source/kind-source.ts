/**
 * An informer as a controller's source (controller-runtime's `source.Kind` / `source.Informer`,
 * `pkg/internal/source/kind.go`).
 */
import type { EventHandlerRegistration } from "../../cache/resource-event-handler.js";
import type { SharedIndexInformer } from "../../cache/shared-index-informer.js";
import type { EventHandler } from "../handler/event-handler.js";
import type { Predicate } from "../handler/predicate.js";
import { informerEventHandler } from "./informer-event-handler.js";
import type { Source } from "./source.js";

/** What a controller needs of an informer: a `SharedIndexInformer` (e.g. from a factory). */
export type WatchedInformer<T> = Pick<SharedIndexInformer<T>, "name" | "addEventHandler">;

/** Options of {@link kindSource}. */
export interface KindSourceOptions<T> {
  /** Filters of the notifications; all must let one through (default: none, all pass). */
  readonly predicates?: readonly Predicate<T>[];
}

/**
 * A syncing {@link Source} of `informer`'s notifications, filtered by the predicates and
 * turned into keys by `handler` (e.g. `enqueueForObject()`, `enqueueForOwner(...)`). `start`
 * registers a handler on the informer (removed when the controller stops); the source has
 * synced once the informer has and the handler has received every initial object. Named
 * after the informer. The informer is not started by the source: start its factory (or add
 * it to the manager).
 *
 * @throws {InformerLifecycleError} (from `start`) `Stopped` when the informer has stopped.
 */
export function kindSource<T>(
  informer: WatchedInformer<T>,
  handler: EventHandler<T>,
  options: KindSourceOptions<T> = {},
): Source {
  const predicates = [...(options.predicates ?? [])];
  let registration: EventHandlerRegistration | undefined;
  return Object.freeze({
    name: informer.name,
    start(queue, signal, context) {
      if (registration !== undefined) {
        throw new Error(`source ${informer.name} was already started`);
      }
      if (signal.aborted) return;
      const started = informer.addEventHandler(
        informerEventHandler(handler, predicates, queue, context.recover),
      );
      registration = started;
      signal.addEventListener("abort", () => started.remove(), { once: true });
    },
    hasSynced: () => registration?.hasSynced() ?? false,
    waitForSync: async (signal: AbortSignal) =>
      registration !== undefined && (await registration.waitForSync(signal)),
  } satisfies Source);
}
