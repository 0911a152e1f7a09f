/**
 * Runs in-server controller work after the current write completes, once per key even when
 * requested many times, so controllers never commit from inside a storage listener (which
 * would reorder events for the listeners after them).
 */
export class DeferredWork {
  readonly #pending = new Map<string, () => void>();
  #scheduled = false;
  #stopped = false;

  /** Schedules `task` under `key`; a later request for the same key replaces the earlier one. */
  schedule(key: string, task: () => void): void {
    if (this.#stopped) return;
    this.#pending.set(key, task);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#run());
    }
  }

  /** Drops pending work and refuses new work (server stop). */
  stop(): void {
    this.#stopped = true;
    this.#pending.clear();
  }

  #run(): void {
    this.#scheduled = false;
    const tasks = [...this.#pending.values()];
    this.#pending.clear();
    for (const task of tasks) {
      if (this.#stopped) return;
      try {
        task();
      } catch {
        // A controller step that fails (e.g. the object changed meanwhile) is retried on the next change.
      }
    }
  }
}
