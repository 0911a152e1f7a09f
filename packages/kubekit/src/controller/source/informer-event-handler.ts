/**
 * The informer handler behind a kind source: applies the predicates, then the event handler
 * (controller-runtime's `pkg/internal/source/event_handler.go`, with its tombstone handling).
 */
import type { ResourceEventHandler } from "../../cache/resource-event-handler.js";
import { DeletedFinalStateUnknown } from "../../cache/tombstone.js";
import type { EventHandler, ReconcileQueue } from "../handler/event-handler.js";
import type { Predicate } from "../handler/predicate.js";

/**
 * Called with what a predicate or handler threw (the event is dropped): the controller logs
 * it and counts a panic.
 */
export type RecoverFunc = (error: unknown, event: string) => void;

/**
 * An informer handler delivering the events every predicate lets through to `handler`.
 * Deletions inferred from a relist (tombstones) are predicated on and handled with their last
 * known state; a tombstone without one skips the predicates and goes to the handler's
 * `deletedWithUnknownState`, if any. What a predicate or the handler throws goes to
 * `recover` and the event is dropped.
 */
export function informerEventHandler<T>(
  handler: EventHandler<T>,
  predicates: readonly Predicate<T>[],
  queue: ReconcileQueue,
  recover: RecoverFunc,
): ResourceEventHandler<T> {
  const guarded = (event: string, run: () => void): void => {
    try {
      run();
    } catch (error) {
      recover(error, event);
    }
  };
  return {
    onAdd: (object, isInInitialList) =>
      guarded("create", () => {
        if (predicates.every((p) => p.create?.(object) ?? true)) {
          handler.create?.({ object, isInInitialList }, queue);
        }
      }),
    onUpdate: (objectOld, objectNew) =>
      guarded("update", () => {
        if (predicates.every((p) => p.update?.(objectOld, objectNew) ?? true)) {
          handler.update?.({ objectOld, objectNew }, queue);
        }
      }),
    onDelete: (obj) =>
      guarded("delete", () => {
        const finalStateUnknown = obj instanceof DeletedFinalStateUnknown;
        const object: T | undefined = finalStateUnknown ? obj.obj : obj;
        if (object === undefined) {
          if (finalStateUnknown) handler.deletedWithUnknownState?.(obj.key, queue);
          return;
        }
        if (predicates.every((p) => p.delete?.(object, finalStateUnknown) ?? true)) {
          handler.delete?.({ object, finalStateUnknown }, queue);
        }
      }),
  };
}
