import type { Storage, StorageEvent } from "../storage/storage.js";
import { EventFrames } from "./event-frames.js";

/** What the fan-out needs of a live watch: where it listens, and how it takes events and writes. */
export interface FanOutWatcher {
  /** The storage resource it watches (`ResourceEntry.storageId`). */
  readonly resource: string;
  /** The namespace it is limited to; `""` for every namespace (and cluster-scoped resources). */
  readonly namespace: string;
  /** Takes one committed change of its resource and namespace; `frames` is shared by every watcher of it. */
  onStorageEvent(event: StorageEvent, frames: EventFrames): void;
  /** Writes the frames it holds to its connection. */
  flush(): void;
}

/**
 * Delivers storage changes to the watches of one server: ONE storage subscription for every
 * watch, dispatching each change only to the watches of its resource and namespace (a
 * change is never offered to watches of other resources), with the encoded frames of the
 * change shared by all of them ({@link EventFrames}).
 *
 * Writes are batched per event-loop turn: a watch queues its frames and {@link scheduleFlush}
 * writes every queued watch once, on `setImmediate`. Changes committed in the same turn then
 * reach each connection in one write (one system call) instead of one per change, as
 * kube-apiserver's watch server flushes only when no further event is queued
 * (`serveWatch` in `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go`). Order is
 * kept: a watch writes its frames in the order it queued them.
 */
export class WatchFanOut {
  /** resource → namespace (`""`: all) → watchers. */
  readonly #watchers = new Map<string, Map<string, Set<FanOutWatcher>>>();
  #count = 0;
  #unsubscribe: (() => void) | undefined;
  readonly #queued = new Set<FanOutWatcher>();
  #flushScheduled = false;

  /** Watches listening now. */
  get size(): number {
    return this.#count;
  }

  /**
   * Starts delivering the changes of `watcher.resource` (in `watcher.namespace`) committed
   * to `storage` from now on; returns the function that stops it. The storage subscription
   * is held while at least one watcher listens.
   */
  follow(storage: Storage, watcher: FanOutWatcher): () => void {
    let byNamespace = this.#watchers.get(watcher.resource);
    if (!byNamespace) {
      byNamespace = new Map();
      this.#watchers.set(watcher.resource, byNamespace);
    }
    let set = byNamespace.get(watcher.namespace);
    if (!set) {
      set = new Set();
      byNamespace.set(watcher.namespace, set);
    }
    set.add(watcher);
    this.#count++;
    this.#unsubscribe ??= storage.subscribe((event) => this.#dispatch(event));
    let following = true;
    return () => {
      if (!following) return;
      following = false;
      this.#unfollow(watcher);
    };
  }

  /** Writes `watcher`'s queued frames at the end of this event-loop turn (once, however often asked). */
  scheduleFlush(watcher: FanOutWatcher): void {
    this.#queued.add(watcher);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => this.#flushQueued());
  }

  #unfollow(watcher: FanOutWatcher): void {
    const byNamespace = this.#watchers.get(watcher.resource);
    const set = byNamespace?.get(watcher.namespace);
    if (!byNamespace || !set?.delete(watcher)) return;
    if (set.size === 0) byNamespace.delete(watcher.namespace);
    if (byNamespace.size === 0) this.#watchers.delete(watcher.resource);
    this.#count--;
    if (this.#count === 0) {
      this.#unsubscribe?.();
      this.#unsubscribe = undefined;
    }
  }

  #dispatch(event: StorageEvent): void {
    const byNamespace = this.#watchers.get(event.resource);
    if (!byNamespace) return;
    const frames = new EventFrames(event);
    const all = byNamespace.get("");
    // Keys of namespaced objects are `namespace/name`; looked up before any delivery, which
    // may end watches (and so change the map).
    const slash = byNamespace.size > (all ? 1 : 0) ? event.key.indexOf("/") : -1;
    const inNamespace = slash < 0 ? undefined : byNamespace.get(event.key.slice(0, slash));
    if (all) for (const w of all) w.onStorageEvent(event, frames);
    if (inNamespace) for (const w of inNamespace) w.onStorageEvent(event, frames);
  }

  #flushQueued(): void {
    this.#flushScheduled = false;
    const queued = [...this.#queued];
    this.#queued.clear();
    for (const w of queued) w.flush();
  }
}
