import type { JsonObject } from "kubekit";
import { objectJson } from "../encoding/object-encoding.js";

/** A change committed to storage, as watchers and the history see it. */
export interface StorageEvent {
  /** The revision this change was committed at. */
  readonly rv: number;
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  /** The resource the object belongs to (`group/plural`). */
  readonly resource: string;
  /** The object key: `namespace/name`, or `name` for cluster-scoped objects. */
  readonly key: string;
  /** The new state; for DELETED the last state, stamped with the deletion's revision. */
  readonly object: JsonObject;
  /** The state before the change; `undefined` for ADDED. */
  readonly previous: JsonObject | undefined;
}

/** A key range of one resource at one revision (see {@link Storage.range}). */
export interface StorageRange {
  readonly entries: Iterable<[string, JsonObject]>;
  /** How many keys of the range come after `key`. */
  countAfter(key: string): number;
}

/** Thrown when a revision is older than the retained history. */
export class RevisionCompactedError extends Error {
  constructor(
    readonly requested: number,
    readonly oldestAvailable: number,
  ) {
    super(`revision ${requested} has been compacted (oldest available ${oldestAvailable})`);
  }
}

class ResourceItems {
  readonly items = new Map<string, JsonObject>();
  #sorted: string[] | undefined = [];

  set(key: string, obj: JsonObject): void {
    if (!this.items.has(key)) this.#sorted = undefined;
    this.items.set(key, obj);
  }

  delete(key: string): void {
    if (this.items.delete(key)) this.#sorted = undefined;
  }

  /** Keys in storage order (byte-wise, like etcd keys). */
  sortedKeys(): readonly string[] {
    if (!this.#sorted) this.#sorted = [...this.items.keys()].sort(compareKeys);
    return this.#sorted;
  }
}

/** Byte-wise comparison of keys, the order etcd lists them in. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The embedded server's etcd: every object of every resource, one global revision counter
 * that every write (deletes included) increments, and a bounded history of changes that
 * backs watch replay and consistent pagination.
 *
 * Objects handed out are the stored instances and must never be mutated: a write stores
 * a new object.
 */
export class Storage {
  #revision: number;
  readonly #resources = new Map<string, ResourceItems>();
  #history: StorageEvent[] = [];
  #historyStart = 0;
  /** Events with `rv >= oldestRetained` are all in the history. */
  #oldestRetained: number;
  readonly #listeners = new Set<(event: StorageEvent) => void>();
  readonly #historyCapacity: number;

  constructor(historyCapacity: number) {
    this.#historyCapacity = historyCapacity;
    this.#revision = 1;
    this.#oldestRetained = 2;
  }

  /** The current revision (the RV of the last write). */
  get currentRevision(): number {
    return this.#revision;
  }

  /** The oldest revision `R` from which changes can still be replayed (every event after R is kept). */
  get oldestReplayable(): number {
    return this.#oldestRetained - 1;
  }

  get(resource: string, key: string): JsonObject | undefined {
    return this.#resources.get(resource)?.items.get(key);
  }

  /** Number of objects of a resource. */
  count(resource: string): number {
    return this.#resources.get(resource)?.items.size ?? 0;
  }

  /** Current objects of a resource, in key order. */
  *current(resource: string, startAfter?: string): Iterable<[string, JsonObject]> {
    const items = this.#resources.get(resource);
    if (!items) return;
    const keys = items.sortedKeys();
    let i = startAfter === undefined ? 0 : upperBound(keys, startAfter);
    for (; i < keys.length; i++) {
      const key = keys[i] as string;
      yield [key, items.items.get(key) as JsonObject];
    }
  }

  /** Current objects of a resource whose key starts with `prefix` (e.g. `"ns/"`), in key order. */
  *withPrefix(resource: string, prefix: string): Iterable<[string, JsonObject]> {
    const items = this.#resources.get(resource);
    if (!items) return;
    const keys = items.sortedKeys();
    for (let i = lowerBound(keys, prefix); i < keys.length; i++) {
      const key = keys[i] as string;
      if (!key.startsWith(prefix)) return;
      yield [key, items.items.get(key) as JsonObject];
    }
  }

  /**
   * A key range of a resource as of revision `rv` (the current state when `rv` is current):
   * keys starting with `prefix` (all when empty) and after `startAfter`, in key order, with
   * the count of range keys after a given key — both without copying the current state, so
   * paging through a large collection stays linear.
   * Throws {@link RevisionCompactedError} when history no longer covers `rv`.
   */
  range(
    resource: string,
    rv: number,
    prefix: string,
    startAfter: string | undefined,
  ): StorageRange {
    if (rv < this.#revision) {
      const snapshot = this.snapshotAt(resource, rv, startAfter).filter(([key]) =>
        key.startsWith(prefix),
      );
      const keys = snapshot.map(([key]) => key);
      return { entries: snapshot, countAfter: (key) => keys.length - upperBound(keys, key) };
    }
    const items = this.#resources.get(resource);
    if (!items) return { entries: [], countAfter: () => 0 };
    const keys = items.sortedKeys();
    const from = Math.max(
      lowerBound(keys, prefix),
      startAfter === undefined ? 0 : upperBound(keys, startAfter),
    );
    const to = prefix === "" ? keys.length : lowerBound(keys, `${prefix}\uffff`);
    function* entries(): Iterable<[string, JsonObject]> {
      for (let i = from; i < to; i++) {
        const key = keys[i] as string;
        yield [key, items?.items.get(key) as JsonObject];
      }
    }
    return { entries: entries(), countAfter: (key) => Math.max(0, to - upperBound(keys, key)) };
  }

  /**
   * Objects of a resource as they were at revision `rv`, in key order, starting after
   * `startAfter`. Throws {@link RevisionCompactedError} when history no longer covers `rv`.
   */
  snapshotAt(resource: string, rv: number, startAfter?: string): Array<[string, JsonObject]> {
    if (rv >= this.#revision) return [...this.current(resource, startAfter)];
    this.assertReplayable(rv);
    const before = new Map<string, JsonObject | undefined>();
    for (const event of this.eventsAfter(rv)) {
      if (event.resource !== resource || before.has(event.key)) continue;
      before.set(event.key, event.previous);
    }
    const out: Array<[string, JsonObject]> = [];
    for (const [key, obj] of this.current(resource, startAfter)) {
      if (!before.has(key)) out.push([key, obj]);
    }
    for (const [key, obj] of before) {
      if (obj && (startAfter === undefined || key > startAfter)) out.push([key, obj]);
    }
    out.sort((a, b) => compareKeys(a[0], b[0]));
    return out;
  }

  /** Throws {@link RevisionCompactedError} unless every change after `rv` is retained. */
  assertReplayable(rv: number): void {
    if (rv + 1 < this.#oldestRetained)
      throw new RevisionCompactedError(rv, this.#oldestRetained - 1);
  }

  /** Changes committed after revision `rv`, oldest first (call {@link assertReplayable} first). */
  *eventsAfter(rv: number): Iterable<StorageEvent> {
    // Binary search the history for the first event with rv > given rv.
    let lo = this.#historyStart;
    let hi = this.#history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#history[mid] as StorageEvent).rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.#history.length; i++) yield this.#history[i] as StorageEvent;
  }

  /**
   * Commits a write: `next` is the new state (its `metadata.resourceVersion` is set here),
   * `null` deletes. Returns the stored object (for a delete, the last state stamped with
   * the deletion's revision). The object is JSON-encoded first: when that throws, nothing
   * is committed and the error propagates.
   */
  commit(resource: string, key: string, next: JsonObject | null): StorageEvent {
    let items = this.#resources.get(resource);
    if (!items) {
      items = new ResourceItems();
      this.#resources.set(resource, items);
    }
    const previous = items.items.get(key);
    if (!next && !previous) throw new Error(`storage: delete of missing ${resource} ${key}`);
    const rv = this.#revision + 1;
    const base = next ?? (previous as JsonObject);
    const object: JsonObject = {
      ...base,
      metadata: { ...(base["metadata"] as JsonObject), resourceVersion: String(rv) },
    };
    // Encode before anything changes: an object that cannot be serialized is never stored
    // (it would fail every read and watch of its resource), and the text is cached for them.
    objectJson(object);
    this.#revision = rv;
    if (next) items.set(key, object);
    else items.delete(key);
    const event: StorageEvent = {
      rv,
      type: !next ? "DELETED" : previous ? "MODIFIED" : "ADDED",
      resource,
      key,
      object,
      previous,
    };
    this.#record(event);
    for (const listener of this.#listeners) listener(event);
    return event;
  }

  /** Removes every object of a resource without events (used when a CRD disappears). */
  dropResource(resource: string): void {
    this.#resources.delete(resource);
  }

  /** Subscribes to every committed change, synchronously; returns the unsubscribe function. */
  subscribe(listener: (event: StorageEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets all history: any revision before the current one becomes too old. */
  compact(): void {
    this.#history = [];
    this.#historyStart = 0;
    this.#oldestRetained = this.#revision + 1;
  }

  #record(event: StorageEvent): void {
    this.#history.push(event);
    const size = this.#history.length - this.#historyStart;
    if (size > this.#historyCapacity) {
      const dropped = this.#history[this.#historyStart] as StorageEvent;
      this.#history[this.#historyStart] = undefined as unknown as StorageEvent;
      this.#historyStart++;
      this.#oldestRetained = dropped.rv + 1;
      if (this.#historyStart > 4096 && this.#historyStart * 2 > this.#history.length) {
        this.#history = this.#history.slice(this.#historyStart);
        this.#historyStart = 0;
      }
    }
  }
}

function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function upperBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
