/**
 * The built-in event handlers: the object's own key, its owners' keys, a map function's keys
 * (controller-runtime's `handler.EnqueueRequestForObject`, `EnqueueRequestForOwner` and
 * `EnqueueRequestsFromMapFunc`, `pkg/handler/enqueue*.go`), with the low priority
 * controller-runtime gives, on a priority queue, to initial-list objects and unchanged
 * updates (`addToQueueCreate`/`addToQueueUpdate` in `pkg/handler/eventhandler.go`).
 */
import { objectKey } from "../../core/object-key.js";
import { controllerOf, ownerReferenceGroup } from "../owner-reference.js";
import type { QueueAddOptions } from "../../workqueue/priority-queue.js";
import type { CreateEvent, EventHandler, ReconcileQueue, UpdateEvent } from "./event-handler.js";
import { LOW_PRIORITY } from "./event-handler.js";
import type { MetadataView } from "./metadata-view.js";

/**
 * Maps a watched object to the keys to reconcile (e.g. from a Pod to the key of the
 * ConfigMap it mounts). Called with the object of an add, delete or generic event, and with
 * both the old and the new object of an update (their keys are merged). Must not mutate the
 * object, which is the cache's. A throw is recovered by the controller (logged, counted as a
 * panic) and the event dropped.
 */
export type MapFunc<T> = (obj: T) => readonly string[];

/** The owner kind `Controller.watchOwned` and {@link enqueueForOwner} map objects to. */
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

/** Options of {@link enqueueForOwner}: the owner kind, and which references count. */
export interface EnqueueForOwnerOptions extends OwnerKind {
  /**
   * Only the controller reference (`controller: true`) counts (default true, what
   * controller-runtime's `Owns()` sets up with `OnlyControllerOwner`); `false`: every owner
   * reference of the group and kind (`EnqueueRequestForOwner` without it).
   */
  readonly onlyController?: boolean;
}

/**
 * The keys of the object's owners of `owner`'s group and kind: its controller reference only
 * (`onlyController`, the default), or all its references of that kind.
 */
export function ownerKeys(obj: MetadataView, owner: EnqueueForOwnerOptions): string[] {
  const refs =
    owner.onlyController === false
      ? (obj.metadata?.ownerReferences ?? [])
      : [controllerOf(obj)].filter((ref) => ref !== undefined);
  const namespace = owner.clusterScoped === true ? "" : (obj.metadata?.namespace ?? "");
  const keys: string[] = [];
  for (const ref of refs) {
    if (ref.kind !== owner.kind || ownerReferenceGroup(ref) !== owner.group) continue;
    const key = objectKey({ metadata: { name: ref.name, namespace } });
    if (!keys.includes(key)) keys.push(key);
  }
  return keys;
}

/** Low priority for an object of the initial list, default otherwise. */
function createOptions(event: CreateEvent<unknown>): QueueAddOptions | undefined {
  return event.isInInitialList ? { priority: LOW_PRIORITY } : undefined;
}

/** Low priority for an update that changed nothing (same resourceVersion), default otherwise. */
function updateOptions(event: UpdateEvent<MetadataView>): QueueAddOptions | undefined {
  const before = event.objectOld.metadata?.resourceVersion;
  return before !== undefined && before === event.objectNew.metadata?.resourceVersion
    ? { priority: LOW_PRIORITY }
    : undefined;
}

function addAll(queue: ReconcileQueue, keys: Iterable<string>, options?: QueueAddOptions): void {
  for (const key of keys) queue.add(key, options);
}

/**
 * Enqueues the key of each object (controller-runtime's `EnqueueRequestForObject`, what
 * `Controller.watch(informer)` and a builder's `for()` use): an update enqueues the new
 * object's key only; a deletion inferred from a relist enqueues its tombstone's key even when
 * the last state is unknown (a level-triggered reconcile then finds the object gone).
 */
export function enqueueForObject<T extends MetadataView>(): EventHandler<T> {
  return Object.freeze({
    create: (event: CreateEvent<T>, queue: ReconcileQueue) =>
      queue.add(objectKey(event.object), createOptions(event)),
    update: (event: UpdateEvent<T>, queue: ReconcileQueue) =>
      queue.add(objectKey(event.objectNew), updateOptions(event)),
    delete: (event: { readonly object: T }, queue: ReconcileQueue) =>
      queue.add(objectKey(event.object)),
    generic: (event: { readonly object: T }, queue: ReconcileQueue) =>
      queue.add(objectKey(event.object)),
    deletedWithUnknownState: (key: string, queue: ReconcileQueue) => queue.add(key),
  });
}

/**
 * Enqueues the keys `map` gives (controller-runtime's `EnqueueRequestsFromMapFunc`): for an
 * update, the keys of the old and of the new object, each once.
 */
export function enqueueFromMap<T extends MetadataView>(map: MapFunc<T>): EventHandler<T> {
  if (typeof map !== "function") throw new TypeError("enqueueFromMap: map must be a function");
  return Object.freeze({
    create: (event: CreateEvent<T>, queue: ReconcileQueue) =>
      addAll(queue, map(event.object), createOptions(event)),
    update: (event: UpdateEvent<T>, queue: ReconcileQueue) =>
      addAll(
        queue,
        new Set([...map(event.objectOld), ...map(event.objectNew)]),
        updateOptions(event),
      ),
    delete: (event: { readonly object: T }, queue: ReconcileQueue) =>
      addAll(queue, map(event.object)),
    generic: (event: { readonly object: T }, queue: ReconcileQueue) =>
      addAll(queue, map(event.object)),
  });
}

/**
 * Enqueues the keys of each object's owners of `owner`'s group and kind
 * (controller-runtime's `EnqueueRequestForOwner`): the controller owner only by default
 * (what `Controller.watchOwned` and a builder's `owns()` use), every owner reference of the
 * kind with `onlyController: false`. An update enqueues the owners of both the old and the
 * new object, so an owner that lost the object hears of it too.
 *
 * @throws {TypeError} when `owner.kind` is not a non-empty string or `owner.group` not a
 *   string (`""` is the core group), as controller-runtime refuses an owner type without a kind.
 */
export function enqueueForOwner<T extends MetadataView>(
  owner: EnqueueForOwnerOptions,
): EventHandler<T> {
  // The types say so already; a call from JavaScript or through a cast may not.
  const { group, kind } = (owner ?? {}) as Partial<OwnerKind>;
  if (typeof kind !== "string" || kind === "" || typeof group !== "string") {
    throw new TypeError(
      `enqueueForOwner needs the owner's group (a string, "" for the core group) and kind (a non-empty string)`,
    );
  }
  const options: EnqueueForOwnerOptions = {
    group,
    kind,
    ...(owner.clusterScoped !== undefined ? { clusterScoped: owner.clusterScoped } : {}),
    ...(owner.onlyController !== undefined ? { onlyController: owner.onlyController } : {}),
  };
  return enqueueFromMap<T>((obj) => ownerKeys(obj, options));
}
