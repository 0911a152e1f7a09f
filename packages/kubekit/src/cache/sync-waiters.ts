/**
 * Event-driven waiting for a sync condition (the role of client-go's `DoneChecker` channels):
 * an informer re-evaluates its waiters whenever its sync state may have changed.
 */

/**
 * The state a waiter checks: `true` (done: synced), `false` (done: will never sync, e.g. the
 * informer stopped), or `undefined` (keep waiting).
 */
export type SyncCheck = () => boolean | undefined;

interface Waiter {
  readonly check: SyncCheck;
  readonly settle: (result: boolean) => void;
}

/**
 * A set of pending waits, each settled the first time its check gives an answer after a
 * {@link SyncWaiters.notify}. Not exported from the package: owners call `notify()` after
 * every change that may settle a check.
 */
export class SyncWaiters {
  readonly #waiters = new Set<Waiter>();

  /**
   * Resolves with the check's answer as soon as it has one (immediately if it has one now),
   * or `false` when `signal` aborts first. Never rejects.
   */
  wait(check: SyncCheck, signal?: AbortSignal): Promise<boolean> {
    const now = check();
    if (now !== undefined) return Promise.resolve(now);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => waiter.settle(false);
      const waiter: Waiter = {
        check,
        settle: (result) => {
          this.#waiters.delete(waiter);
          signal?.removeEventListener("abort", onAbort);
          resolve(result);
        },
      };
      this.#waiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Re-evaluates every pending check, settling those that have an answer. O(1) when none wait. */
  notify(): void {
    if (this.#waiters.size === 0) return;
    for (const waiter of [...this.#waiters]) {
      const result = waiter.check();
      if (result !== undefined) waiter.settle(result);
    }
  }
}
