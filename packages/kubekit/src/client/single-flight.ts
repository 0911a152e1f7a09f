/**
 * `SingleFlight`: one shared run of an async operation for concurrent callers that each have
 * their own AbortSignal (used by the discovery caches and the RESTMapper to load once).
 */

interface Flight<T> {
  readonly promise: Promise<T>;
  readonly controller: AbortController;
  waiters: number;
}

/**
 * Deduplicates concurrent runs of an operation: callers arriving while a run is in progress
 * join it instead of starting another.
 *
 * - Each caller's own signal only ends that caller's wait (rejecting with `signal.reason`);
 *   the shared run is aborted (through the signal it was given) only when every caller waiting
 *   on it has aborted, and callers arriving after that start a new run.
 * - Once a run settles, the next call starts a new run: results are not cached here.
 * - {@link forget} detaches the current run, so the next caller starts a new one; callers
 *   already waiting still get the detached run's outcome.
 */
export class SingleFlight<T> {
  #current: Flight<T> | undefined;

  /**
   * Joins the current run, or starts `operation` when none is in progress. `operation`
   * receives the shared run's signal.
   */
  run(operation: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    let flight = this.#current;
    if (flight === undefined) {
      const controller = new AbortController();
      let promise: Promise<T>;
      try {
        promise = operation(controller.signal);
      } catch (err) {
        promise = Promise.reject(err);
      }
      const started: Flight<T> = { promise, controller, waiters: 0 };
      flight = started;
      this.#current = started;
      const settle = (): void => {
        if (this.#current === started) this.#current = undefined;
      };
      promise.then(settle, settle);
    }
    return this.#wait(flight, signal);
  }

  /** Detaches the run in progress, if any (see the class documentation). */
  forget(): void {
    this.#current = undefined;
  }

  #wait(flight: Flight<T>, signal: AbortSignal | undefined): Promise<T> {
    flight.waiters++;
    if (signal === undefined) return flight.promise;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        flight.waiters--;
        if (flight.waiters === 0) {
          if (this.#current === flight) this.#current = undefined;
          flight.controller.abort(signal.reason);
        }
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      flight.promise.then(
        (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        (err: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(err);
        },
      );
    });
  }
}
