/**
 * Event filters of a controller's watches (controller-runtime's `pkg/predicate`): which
 * informer notifications enqueue anything.
 */
import type { LabelSelectorSpec } from "../../core/label-selector.js";
import { LabelSelector } from "../../core/label-selector.js";
import type { MetadataView } from "./metadata-view.js";

/**
 * Decides, per kind of notification, whether it may enqueue keys. A missing method lets
 * every notification of that kind through. Methods must be pure and fast (they run on the
 * informer's handler path) and must not mutate the objects, which are the cache's.
 */
export interface Predicate<T> {
  /** An object appeared in the cache (including the initial list). */
  create?(obj: T): boolean;
  /** A cached object changed, or was re-delivered by a resync or relist (same object twice). */
  update?(oldObj: T, newObj: T): boolean;
  /**
   * An object left the cache. `finalStateUnknown` is true when the deletion was inferred from
   * a relist; `obj` is then the last state the cache knew, which may be stale.
   */
  delete?(obj: T, finalStateUnknown: boolean): boolean;
  /** An object from a source that is not an informer (a `channelSource`'s item). */
  generic?(obj: T): boolean;
}

/** Whether two label or annotation maps hold the same entries (absent = empty, as Go's `maps.Equal` on nil). */
function sameEntries(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const left = a ?? {};
  const right = b ?? {};
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((k) => Object.hasOwn(right, k) && left[k] === right[k]);
}

/**
 * Lets an update through only when `metadata.generation` changed (controller-runtime's
 * `GenerationChangedPredicate`); creations and deletions pass.
 *
 * Caveats: the API server bumps the generation on spec changes of most kinds (and of custom
 * resources with a status subresource), not on status or metadata-only writes, so a
 * controller filtering with it does not react to, nor repair, a status someone else
 * overwrote. Some kinds also bump it on other writes (a Deployment's annotations). Resyncs
 * (same object twice) are filtered out too.
 */
export const generationChanged: Predicate<MetadataView> = Object.freeze({
  update: (oldObj: MetadataView, newObj: MetadataView): boolean =>
    oldObj.metadata?.generation !== newObj.metadata?.generation,
});

/**
 * Lets an update through only when `metadata.resourceVersion` changed
 * (controller-runtime's `ResourceVersionChangedPredicate`): drops resyncs and relists of
 * unchanged objects. Creations and deletions pass.
 */
export const resourceVersionChanged: Predicate<MetadataView> = Object.freeze({
  update: (oldObj: MetadataView, newObj: MetadataView): boolean =>
    oldObj.metadata?.resourceVersion !== newObj.metadata?.resourceVersion,
});

/**
 * Lets an update through only when `metadata.labels` changed (controller-runtime's
 * `LabelChangedPredicate`; absent and empty count as equal). Creations and deletions pass.
 */
export const labelsChanged: Predicate<MetadataView> = Object.freeze({
  update: (oldObj: MetadataView, newObj: MetadataView): boolean =>
    !sameEntries(oldObj.metadata?.labels, newObj.metadata?.labels),
});

/**
 * Lets an update through only when `metadata.annotations` changed (controller-runtime's
 * `AnnotationChangedPredicate`; absent and empty count as equal). Creations and deletions
 * pass.
 */
export const annotationsChanged: Predicate<MetadataView> = Object.freeze({
  update: (oldObj: MetadataView, newObj: MetadataView): boolean =>
    !sameEntries(oldObj.metadata?.annotations, newObj.metadata?.annotations),
});

/**
 * Lets through only notifications whose object's labels match `selector`
 * (controller-runtime's `LabelSelectorPredicate`): the object for creations and deletions,
 * the new object for updates, the item for generic events. `selector` is selector text (`app=web,tier!=db`), a
 * metav1.LabelSelector (`{ matchLabels, matchExpressions }`; `{}` matches everything) or a
 * parsed {@link LabelSelector}.
 *
 * Caveat: an update that takes an object out of the selector is dropped, so the controller
 * does not hear that the object left its scope; use it for scoping, not for cleanup.
 *
 * @throws {SelectorParseError} when the selector text or structure is invalid.
 */
export function labelSelectorPredicate(
  selector: string | LabelSelectorSpec | LabelSelector,
): Predicate<MetadataView> {
  const parsed =
    selector instanceof LabelSelector
      ? selector
      : typeof selector === "string"
        ? LabelSelector.parse(selector)
        : LabelSelector.fromLabelSelector(selector);
  const matches = (obj: MetadataView): boolean => parsed.matches(obj.metadata?.labels);
  return Object.freeze({
    create: matches,
    update: (_oldObj: MetadataView, newObj: MetadataView) => matches(newObj),
    delete: matches,
    generic: matches,
  });
}

/**
 * A predicate that lets a notification through only when every one of `predicates` does
 * (controller-runtime's `predicate.And`), e.g. as one operand of {@link or} or {@link not}
 * (a watch's `predicates` list already requires all of them). A predicate without the
 * method lets that kind through. No predicates: lets everything through.
 */
export function and<T>(...predicates: readonly Predicate<T>[]): Predicate<T> {
  const list = [...predicates];
  return Object.freeze({
    create: (obj: T) => list.every((p) => p.create?.(obj) ?? true),
    update: (oldObj: T, newObj: T) => list.every((p) => p.update?.(oldObj, newObj) ?? true),
    delete: (obj: T, finalStateUnknown: boolean) =>
      list.every((p) => p.delete?.(obj, finalStateUnknown) ?? true),
    generic: (obj: T) => list.every((p) => p.generic?.(obj) ?? true),
  });
}

/**
 * A predicate that lets a notification through when at least one of `predicates` does
 * (controller-runtime's `predicate.Or`), e.g. `or(generationChanged, labelsChanged)`. A
 * predicate without the method lets that kind through, so it makes the whole `or` let it
 * through. No predicates: lets nothing through.
 */
export function or<T>(...predicates: readonly Predicate<T>[]): Predicate<T> {
  const list = [...predicates];
  return Object.freeze({
    create: (obj: T) => list.some((p) => p.create?.(obj) ?? true),
    update: (oldObj: T, newObj: T) => list.some((p) => p.update?.(oldObj, newObj) ?? true),
    delete: (obj: T, finalStateUnknown: boolean) =>
      list.some((p) => p.delete?.(obj, finalStateUnknown) ?? true),
    generic: (obj: T) => list.some((p) => p.generic?.(obj) ?? true),
  });
}

/**
 * A predicate that lets through exactly what `predicate` drops (controller-runtime's
 * `predicate.Not`); a kind `predicate` has no method for is dropped.
 */
export function not<T>(predicate: Predicate<T>): Predicate<T> {
  return Object.freeze({
    create: (obj: T) => !(predicate.create?.(obj) ?? true),
    update: (oldObj: T, newObj: T) => !(predicate.update?.(oldObj, newObj) ?? true),
    delete: (obj: T, finalStateUnknown: boolean) =>
      !(predicate.delete?.(obj, finalStateUnknown) ?? true),
    generic: (obj: T) => !(predicate.generic?.(obj) ?? true),
  });
}
