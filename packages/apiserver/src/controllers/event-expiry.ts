import type { TimerHandle } from "kubekit";
import { EVENT_STORAGE_ID } from "../kinds/event.js";
import type { ServerContext } from "../server/server-context.js";
import type { StorageEvent } from "../storage/storage.js";

/** kube-apiserver's default `--event-ttl`: one hour. */
export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;

/**
 * Expires Events as kube-apiserver's `--event-ttl` does: every create and update of an Event
 * (core/v1 and events.k8s.io share the storage) gives it a lease of `ttlMs` on the server's
 * clock (pkg/registry/core/event/storage/storage.go: `TTLFunc` answers the TTL on create and
 * update alike), and an Event whose lease ran out is removed from storage as etcd removes a
 * key whose lease expired: a plain delete that watchers see as DELETED, without finalizers
 * or graceful deletion. Deadlines are kept in write order, which with one TTL and a clock
 * that never goes back is deadline order, under one timer for the earliest.
 */
export class EventExpiry {
  /** Event key → its deadline, earliest first (a rewritten key moves to the end). */
  readonly #deadlines = new Map<string, number>();
  #timer: TimerHandle | undefined;
  #stopped = false;

  readonly #ctx: ServerContext;
  readonly #ttlMs: number;

  /** `ttlMs` must be a positive number of milliseconds (`Infinity`: Events never expire). */
  constructor(ctx: ServerContext, ttlMs: number) {
    if (!(ttlMs > 0)) throw new RangeError(`event TTL must be positive, got ${ttlMs} ms`);
    this.#ctx = ctx;
    this.#ttlMs = ttlMs;
  }

  /** Storage listener: (re)starts the lease of a written Event, forgets a deleted one. */
  onEvent(event: StorageEvent): void {
    if (event.resource !== EVENT_STORAGE_ID) return;
    this.#deadlines.delete(event.key);
    if (event.type === "DELETED" || this.#ttlMs === Infinity) return;
    this.#deadlines.set(event.key, this.#ctx.clock.now() + this.#ttlMs);
    this.#arm();
  }

  /** Stops expiring (server stop): the timer is cancelled. */
  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #arm(): void {
    if (this.#timer || this.#stopped) return;
    const first = this.#deadlines.values().next();
    if (first.done === true) return;
    this.#timer = this.#ctx.clock.setTimer(first.value - this.#ctx.clock.now(), () => {
      this.#timer = undefined;
      this.#expireDue();
      this.#arm();
    });
  }

  #expireDue(): void {
    const now = this.#ctx.clock.now();
    for (const [key, deadline] of this.#deadlines) {
      if (deadline > now || this.#stopped) return;
      this.#deadlines.delete(key);
      if (this.#ctx.storage.get(EVENT_STORAGE_ID, key))
        this.#ctx.storage.commit(EVENT_STORAGE_ID, key, null);
    }
  }
}
