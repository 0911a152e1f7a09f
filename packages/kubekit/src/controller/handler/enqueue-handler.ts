/**
 * The informer handler behind a controller's watches: turns notifications into keys, after
 * the watch's predicates (controller-runtime's `handler.EnqueueRequestForObject`,
 * `EnqueueRequestsFromMapFunc` and `EnqueueRequestForOwner` with `OnlyControllerOwner`,
 * `pkg/handler`, with the tombstone handling of `pkg/internal/source/event_handler.go`).
 */
import type { ObjectWithMetadata } from "../../client/kube-object.js";
import type { ResourceEventHandler } from "../../cache/resource-event-handler.js";
import { DeletedFinalStateUnknown } from "../../cache/tombstone.js";
import type { Logger } from "../../core/logger.js";
import { objectKey } from "../../core/object-key.js";
import { controllerOf, ownerReferenceGroup } from "../owner-reference.js";
import type { Predicate } from "./predicate.js";

/**
 * Maps a watched object to the keys to reconcile (e.g. from a Pod to the key of the
 * ConfigMap it mounts). Called with the object of an add or delete, and with both the old and
 * the new object of an update (their keys are merged). Must not mutate the object, which is
 * the cache's. A throw is logged and the notification dropped.
 */
export type MapFunc<T> = (obj: T) => readonly string[];

/** The owner kind `Controller.watchOwned` maps objects to. */
export interface OwnerKind {
  /** The owner's API group (`""` for the core group), e.g. `"apps"`. */
  readonly group: string;
  /** The owner's kind, e.g. `"ReplicaSet"`. */
  readonly kind: string;
  /**
   * Whether the owner kind is cluster-scoped (default false: the owner lives in the
   * object's namespace, as owner references cannot cross namespaces). Owners of
   * cluster-scoped objects are always cluster-scoped.
   */
  readonly clusterScoped?: boolean;
}

/** The key of the object's controller owner when it is of `owner`'s group and kind. */
export function controllerOwnerKeys(obj: ObjectWithMetadata, owner: OwnerKind): string[] {
  const ref = controllerOf(obj);
  if (ref === undefined || ref.kind !== owner.kind || ownerReferenceGroup(ref) !== owner.group) {
    return [];
  }
  const namespace = owner.clusterScoped === true ? "" : (obj.metadata?.namespace ?? "");
  return [objectKey({ metadata: { name: ref.name, namespace } })];
}

/** What {@link enqueueHandler} builds a handler from. */
export interface EnqueueHandlerOptions<T> {
  /** The keys of an object. */
  readonly map: MapFunc<T>;
  /**
   * Whether `map` is the object's own key. Then an update enqueues the new object's key only
   * (controller-runtime's `EnqueueRequestForObject.Update` in `pkg/handler/enqueue.go`
   * enqueues `ObjectNew`, and `ObjectOld` only when there is no new object), and a tombstone
   * without a last known state still enqueues its own key (a custom map has no object to
   * map then). Otherwise an update enqueues the keys of both objects, as
   * `EnqueueRequestsFromMapFunc` and `EnqueueRequestForOwner` do.
   */
  readonly mapsToOwnKey: boolean;
  /** All must let a notification through (logical AND, as controller-runtime's list). */
  readonly predicates: readonly Predicate<T>[];
  readonly enqueue: (key: string) => void;
  readonly logger: Logger;
  /** Log context: the controller and the informer. */
  readonly context: Readonly<Record<string, string>>;
}

/**
 * An informer handler enqueueing the keys `map` gives for every notification the predicates
 * let through. Deletions inferred from a relist (tombstones) are mapped from their last
 * known state; a tombstone without one is predicated on nothing and enqueues its own key
 * when `mapsToOwnKey` (a level-triggered reconcile then finds the object gone), and is
 * dropped (logged at debug) otherwise.
 */
export function enqueueHandler<T>(options: EnqueueHandlerOptions<T>): ResourceEventHandler<T> {
  const { map, predicates, enqueue, logger, context } = options;
  const enqueueAll = (keys: Iterable<string>): void => {
    for (const key of keys) enqueue(key);
  };
  const guarded = (what: string, run: () => void): void => {
    try {
      run();
    } catch (error) {
      logger.error(`failed to map ${what} notification to keys; dropped`, { ...context, error });
    }
  };
  return {
    onAdd: (obj) =>
      guarded("an add", () => {
        if (predicates.every((p) => p.create?.(obj) ?? true)) enqueueAll(map(obj));
      }),
    onUpdate: (oldObj, newObj) =>
      guarded("an update", () => {
        if (!predicates.every((p) => p.update?.(oldObj, newObj) ?? true)) return;
        enqueueAll(options.mapsToOwnKey ? map(newObj) : new Set([...map(oldObj), ...map(newObj)]));
      }),
    onDelete: (obj) =>
      guarded("a delete", () => {
        const finalStateUnknown = obj instanceof DeletedFinalStateUnknown;
        const last: T | undefined = finalStateUnknown ? obj.obj : obj;
        if (last === undefined) {
          if (options.mapsToOwnKey && finalStateUnknown) enqueue(obj.key);
          else logger.debug("tombstone without a last known state dropped", context);
          return;
        }
        if (predicates.every((p) => p.delete?.(last, finalStateUnknown) ?? true)) {
          enqueueAll(map(last));
        }
      }),
  };
}
