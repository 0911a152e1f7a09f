/**
 * The cache layer's public part: `ListerWatcher`, `Reflector`, the FIFOs between reflector and
 * cache (the in-order `RealFIFO` and the classic `DeltaFIFO`), `Store`/`Indexer`,
 * `SharedIndexInformer` with its event handlers, listers, tombstones and `waitForCacheSync`.
 *
 * Internals (delta processing, the list pager the reflector uses, the mutation detector's
 * freezing, media-type constants, poll periods) are imported from their modules.
 *
 * @packageDocumentation
 */
export {
  ListDecodeError,
  listerWatcherFor,
  metadataListerWatcherFor,
  type ListPage,
  type ListerWatcher,
  type ListerWatcherTarget,
  type WatchStream,
} from "./lister-watcher.js";
export {
  Reflector,
  DEFAULT_MIN_WATCH_TIMEOUT_MS,
  DEFAULT_WATCH_LIST_END_TIMEOUT_MS,
  FAILURES_BEFORE_WARNING,
  INITIAL_EVENTS_END_ANNOTATION,
  type ReflectorError,
  type ReflectorOptions,
  type WatchErrorHandler,
} from "./reflector.js";
export {
  UnsupportedListKindError,
  VeryShortWatchError,
  WatchListIncompleteError,
} from "./reflector-errors.js";
export type { ReflectorStore } from "./reflector-store.js";
export type {
  BookmarkDelta,
  BookmarkInfo,
  DeletedDelta,
  Delta,
  DeltaType,
  Deltas,
  ObjectDelta,
  ReplacedAllDelta,
  ReplacedAllInfo,
  SyncAllDelta,
  SyncAllInfo,
} from "./delta.js";
export {
  QUEUE_CLOSED,
  type InformerQueue,
  type PopProcessFunc,
  type TransformFunc,
} from "./informer-queue.js";
export { DeltaFIFO, type DeltaFIFOOptions, type KnownObjects } from "./delta-fifo.js";
export { RealFIFO, type RealFIFOOptions } from "./real-fifo.js";
export type { IndexFunc, Indexer, Indexers, KeyFunc, Store } from "./store.js";
export {
  CacheIndexer,
  createIndexer,
  createStore,
  type IndexerOptions,
  type PreparedReplace,
  type StoreOptions,
} from "./indexer.js";
export { IndexerError, type IndexerErrorReason } from "./indexer-error.js";
export { NAMESPACE_INDEX, namespaceIndexFunc } from "./namespace-index.js";
export { DeletedFinalStateUnknown, deletionHandlingKey, type ObjectWithMeta } from "./tombstone.js";
export {
  SharedIndexInformer,
  type InformerReflectorOptions,
  type SharedIndexInformerOptions,
} from "./shared-index-informer.js";
export type { EventHandlerRegistration, ResourceEventHandler } from "./resource-event-handler.js";
export { InformerLifecycleError, type InformerLifecycleErrorReason } from "./informer-errors.js";
export { stripManagedFields } from "./strip-managed-fields.js";
export { Lister, NamespaceLister, type ListerSelector } from "./lister.js";
export { waitForCacheSync, type CacheSyncSource } from "./wait-for-cache-sync.js";
export type { LazyObject, LazyObjectMeta } from "./lazy-object.js";
export { lazyListerWatcherFor } from "./lazy/lazy-lister-watcher.js";
export { bodyOf, isLazyObject } from "./lazy/body-of.js";
export { withBodies, type SharedInformerView } from "./lazy/with-bodies.js";
export { LazyBodyParseError } from "./lazy/lazy-body-parse-error.js";
export { JsonScanError } from "./lazy/json-scan-error.js";
