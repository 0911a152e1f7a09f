/**
 * How a {@link Controller}'s watches turn informer notifications into keys, and which
 * notifications count (controller-runtime's `pkg/handler` and `pkg/predicate`; the choice
 * below is the one `pkg/handler/doc.go` describes). Which to use when:
 *
 * - `controller.watch(informer)`: the kind the controller reconciles. Each notification
 *   enqueues the object's own key, a deletion inferred from a relist its tombstone's key
 *   (`EnqueueRequestForObject`, what a builder's `For()` sets up).
 * - `controller.watchOwned(informer, { group, kind })`: objects the controller creates and
 *   marks with a controller ownerReference (a ReplicaSet's Pods). A change enqueues the
 *   owner's key, for both the old and the new object of an update (`EnqueueRequestForOwner`
 *   with `OnlyControllerOwner`, what `Owns()` sets up).
 * - `controller.watch(informer, map)` with a {@link MapFunc}: any other relation, such as
 *   from a Secret to the objects that mount it; `map` returns the keys
 *   (`EnqueueRequestsFromMapFunc`, what `Watches()` takes).
 *
 * Predicates (the `predicates` option of either watch) drop notifications before they are
 * mapped; every predicate of a watch must let a notification through. Use
 * {@link generationChanged} on the reconciled kind to ignore status-only writes (the
 * controller's own included), {@link resourceVersionChanged} to drop resyncs,
 * {@link labelsChanged} or {@link annotationsChanged} when the reconcile reads those,
 * {@link labelSelectorPredicate} to scope a watch to some objects, and {@link allPredicate},
 * {@link anyPredicate} and {@link notPredicate} (controller-runtime's `And`, `Or`, `Not`) to
 * combine them. The change predicates filter updates only.
 *
 * The handler that applies them (`enqueue-handler.ts`) is internal: the watch methods build it.
 *
 * @packageDocumentation
 */
export type { MapFunc, OwnerKind } from "./enqueue-handler.js";
export {
  type Predicate,
  generationChanged,
  resourceVersionChanged,
  labelsChanged,
  annotationsChanged,
  labelSelectorPredicate,
  allPredicate,
  anyPredicate,
  notPredicate,
} from "./predicate.js";
