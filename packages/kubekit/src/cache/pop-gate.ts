/**
 * The waiting room shared by the informer queues: serializes pops so that one item is
 * processed at a time, and parks pops until there is something to take.
 */

interface Waiter {
  readonly ready: () => boolean;
  readonly grant: () => void;
}

/**
 * A single-holder lock whose acquisition also waits for a readiness condition (the role of
 * client-go's FIFO lock plus condition variable). Waiters are served in arrival order.
 * Not exported from the package: queues call {@link PopGate.notify} after every change that
 * may make a waiter ready.
 */
export class PopGate {
  #held = false;
  readonly #waiters: Waiter[] = [];

  /**
   * Resolves once the gate is free and `ready()` is true, holding the gate from that moment
   * (the condition cannot be invalidated by another pop before the caller runs). Rejects with
   * `signal.reason` if `signal` aborts first, without holding the gate.
   */
  acquire(ready: () => boolean, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (!this.#held && this.#waiters.length === 0 && ready()) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        ready,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Frees the gate and hands it to the first waiter that is ready. */
  release(): void {
    this.#held = false;
    this.notify();
  }

  /** Re-checks waiters after a change; hands the gate to the first ready one if it is free. */
  notify(): void {
    if (this.#held) return;
    const i = this.#waiters.findIndex((w) => w.ready());
    if (i < 0) return;
    const [waiter] = this.#waiters.splice(i, 1);
    if (waiter === undefined) return;
    this.#held = true;
    waiter.grant();
  }
}
