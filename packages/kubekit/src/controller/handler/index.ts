/**
 * How a {@link Controller}'s sources turn events into keys, and which events count
 * (controller-runtime's `pkg/handler` and `pkg/predicate`; the choice below is the one
 * `pkg/handler/doc.go` describes). Which to use when:
 *
 * - {@link enqueueForObject} (`controller.watch(informer)`, a builder's `for()`): the kind
 *   the controller reconciles. Each event enqueues the object's own key, a deletion
 *   inferred from a relist its tombstone's key (`EnqueueRequestForObject`).
 * - {@link enqueueForOwner} (`controller.watchOwned(informer, { group, kind })`, `owns()`):
 *   objects the controller creates and marks with a controller ownerReference (a
 *   ReplicaSet's Pods). A change enqueues the owner's key, for both the old and the new
 *   object of an update (`EnqueueRequestForOwner` with `OnlyControllerOwner`);
 *   `onlyController: false` maps to every owner of the kind.
 * - {@link enqueueFromMap} (`controller.watch(informer, map)`): any other relation, such as
 *   from a Secret to the objects that mount it; `map` returns the keys
 *   (`EnqueueRequestsFromMapFunc`).
 * - An {@link EventHandler} of your own for anything else (a delay, a priority).
 *
 * Predicates (the `predicates` option of a watch or source) drop events before the handler
 * sees them; every predicate of a watch must let an event through. Use
 * {@link generationChanged} on the reconciled kind to ignore status-only writes (the
 * controller's own included), {@link resourceVersionChanged} to drop resyncs,
 * {@link labelsChanged} or {@link annotationsChanged} when the reconcile reads those,
 * {@link labelSelectorPredicate} to scope a watch to some objects, and {@link and},
 * {@link or} and {@link not} (controller-runtime's `And`, `Or`, `Not`) to combine them. The
 * change predicates filter updates only.
 *
 * On a controller with the priority queue, the built-in handlers add the objects of an
 * informer's initial list and unchanged updates (resyncs) at {@link LOW_PRIORITY}, so that
 * changes made by users are reconciled first.
 *
 * @packageDocumentation
 */
export {
  LOW_PRIORITY,
  type CreateEvent,
  type DeleteEvent,
  type EventHandler,
  type GenericEvent,
  type ReconcileQueue,
  type UpdateEvent,
} from "./event-handler.js";
export {
  type EnqueueForOwnerOptions,
  type MapFunc,
  type OwnerKind,
  enqueueForObject,
  enqueueForOwner,
  enqueueFromMap,
} from "./enqueue-handler.js";
export type { MetadataView } from "./metadata-view.js";
export {
  type Predicate,
  generationChanged,
  resourceVersionChanged,
  labelsChanged,
  annotationsChanged,
  labelSelectorPredicate,
  and,
  or,
  not,
} from "./predicate.js";
