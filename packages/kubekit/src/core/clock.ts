/**
 * Time as an injectable dependency: every delay, timeout, rate limit, resync and lease in
 * kubekit goes through a {@link Clock}, so tests can run on {@link FakeClock} instead of
 * sleeping.
 *
 * The process-lifetime rule: a pending wait that belongs to live work (a rate limiter's
 * token, a `Retry-After` sleep, a reflector's backoff, resync and relist timers, a delaying
 * queue's next item, a lease renewal) keeps the process alive, exactly as a pending socket
 * does; stopping that work (its `AbortSignal`, `stop()`, `shutDown()`) cancels the wait, so a
 * process whose work is all stopped exits by itself. A library never decides a process's
 * fate: it neither exits it nor lets it die under work that is still pending.
 */

/** A scheduled callback that can be cancelled. */
export interface TimerHandle {
  /** Prevents the callback from running; a no-op once it ran or was cancelled. */
  cancel(): void;
}

/** A source of time and timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `callback` once, `ms` milliseconds from now (negative or NaN counts as 0). */
  setTimer(ms: number, callback: () => void): TimerHandle;
  /**
   * Resolves after `ms` milliseconds. Rejects with `signal.reason` when `signal` is already
   * aborted or aborts first (the timer is then cancelled).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function normalizeDelay(ms: number): number {
  return Number.isNaN(ms) || ms < 0 ? 0 : ms;
}

/** A sleep built on a clock's timers, honouring an abort signal. */
function sleepOn(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      handle.cancel();
      reject(signal?.reason);
    };
    const handle = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The longest delay Node's setTimeout honours; longer timers are chained. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The system clock (`Date.now`, `setTimeout`). Its timers are ordinary (ref'd) Node timers:
 * a pending timer or sleep keeps the process alive until it fires or is cancelled, so the
 * work waiting on it is never cut short by the process exiting under it. Whoever arms a
 * timer cancels it when its work stops (the module's process-lifetime rule). Delays beyond
 * Node's 24.8-day limit are honoured by chaining timers.
 */
export const realClock: Clock = {
  now(): number {
    return Date.now();
  },
  setTimer(ms: number, callback: () => void): TimerHandle {
    let remaining = normalizeDelay(ms);
    let timer: ReturnType<typeof setTimeout>;
    const arm = (): void => {
      const step = Math.min(remaining, MAX_TIMEOUT_MS);
      remaining -= step;
      timer = setTimeout(remaining > 0 ? arm : callback, step);
    };
    arm();
    return { cancel: () => clearTimeout(timer) };
  },
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(realClock, ms, signal);
  },
};

interface FakeTimer {
  readonly due: number;
  readonly seq: number;
  readonly callback: () => void;
}

interface TimerWaiter {
  readonly count: number;
  readonly resolve: () => void;
}

/**
 * A manually driven clock for tests. Time stands still until {@link advance} or
 * {@link setTime} moves it; timers then fire synchronously, in due-time order (ties in
 * creation order), each seeing {@link now} equal to its due time.
 *
 * Caveat: a timer callback runs synchronously, but code waiting on a promise it settles
 * (e.g. the code after `await clock.sleep(…)`) runs later, on the microtask queue, after
 * `advance` has returned. When that code arms the next timer, `await` between `advance`
 * steps, preferably with {@link waitForTimers} (wait for the condition, never sleep).
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: FakeTimer[] = [];
  #waiters = new Set<TimerWaiter>();

  /** Starts at `startMs` (default 2026-01-01T00:00:00Z). */
  constructor(startMs: number = Date.UTC(2026, 0, 1)) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimer(ms: number, callback: () => void): TimerHandle {
    const timer: FakeTimer = { due: this.#now + normalizeDelay(ms), seq: this.#seq++, callback };
    this.#timers.push(timer);
    this.#notifyWaiters();
    return {
      cancel: () => {
        const i = this.#timers.indexOf(timer);
        if (i >= 0) this.#timers.splice(i, 1);
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /**
   * Moves time forward by `ms`, firing every timer due within the window, including timers
   * that callbacks create during the call. If a callback throws, the error propagates: time
   * stays at that timer's due time and later timers stay pending.
   *
   * @throws {RangeError} when `ms` is negative or NaN.
   */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.advance: ms must be >= 0, got ${ms}`);
    this.#runUntil(this.#now + ms);
  }

  /**
   * Sets the time. Moving forward is {@link advance}; moving backward fires nothing and
   * leaves timers due at their original times.
   *
   * @throws {RangeError} when `ms` is NaN.
   */
  setTime(ms: number): void {
    if (Number.isNaN(ms)) throw new RangeError("FakeClock.setTime: ms must be a number, got NaN");
    if (ms >= this.#now) this.#runUntil(ms);
    else this.#now = ms;
  }

  /** How many timers (including sleeps) are scheduled and not yet fired or cancelled. */
  pendingTimers(): number {
    return this.#timers.length;
  }

  /** The due time of the earliest pending timer, or `undefined` when none is pending. */
  nextTimerAt(): number | undefined {
    return this.#earliest()?.due;
  }

  /**
   * Resolves once at least `count` timers are pending (immediately if they already are):
   * lets a test wait until the code under test has armed its timers before advancing.
   * Rejects with `signal.reason` when `signal` aborts first.
   */
  waitForTimers(count: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#timers.length >= count) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiters.delete(waiter);
        reject(signal?.reason);
      };
      const waiter: TimerWaiter = {
        count,
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      this.#waiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  #earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.#timers) {
      if (best === undefined || t.due < best.due || (t.due === best.due && t.seq < best.seq)) {
        best = t;
      }
    }
    return best;
  }

  #runUntil(target: number): void {
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.due > target) break;
      this.#timers.splice(this.#timers.indexOf(next), 1);
      this.#now = Math.max(this.#now, next.due);
      next.callback();
    }
    this.#now = Math.max(this.#now, target);
  }

  #notifyWaiters(): void {
    for (const w of this.#waiters) {
      if (this.#timers.length >= w.count) {
        this.#waiters.delete(w);
        w.resolve();
      }
    }
  }
}
